/* cfa/runtime.h: the cfa-lite runtime's C API, for the code cfacc emits
 * and for C programs that use the runtime directly (link with -lcfa).
 *
 * The runtime boots before main() (a constructor): the calling kernel
 * thread becomes the main cluster's first processor and main() runs as a
 * user thread on it.
 */
#ifndef CFA_RUNTIME_H
#define CFA_RUNTIME_H

#include <cfa/coroutine.h>
#include <cfa/errno.h>
#include <cfa/kernel_thread.h>
#include <cfa/thread.h>
#include <cfa/monitor.h>
#include <cfa/mutex_call.h>
#include <cfa/cluster.h>
#include <cfa/processor.h>
#include <cfa/sleep.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Stops the program with "cfa: <message>" and the running thread's name on
 * stderr; exit status 134 (as abort). */
void cfa_fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#ifdef __cplusplus
}
#endif
#endif
