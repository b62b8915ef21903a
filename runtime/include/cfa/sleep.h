/* cfa/sleep.h: sleeping blocks the calling user thread, not its processor. */
#ifndef CFA_SLEEP_H
#define CFA_SLEEP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Blocks the calling user thread for at least ns nanoseconds (none for
 * ns <= 0, which still yields). From a kernel thread that is not a
 * processor, it sleeps the kernel thread. */
void cfa_sleep_ns(int64_t ns);

/* CLOCK_MONOTONIC in nanoseconds. */
int64_t cfa_clock_ns(void);

#ifdef __cplusplus
}
#endif
#endif
