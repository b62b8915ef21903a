/* interpose.h: whether an interposed blocking call (interpose_io.c,
 * interpose_poll.c) should park its caller: the caller is a user thread,
 * outside the runtime (its return address is not in the runtime's text
 * section: the runtime's own calls are glibc's) and outside a signal
 * handler. */
#ifndef CFA_INTERPOSE_H
#define CFA_INTERPOSE_H

#include "pthread_wait.h"
#include <cfa/runtime.h>
#include <stdbool.h>

extern const char __start_cfa_runtime_text[], __stop_cfa_runtime_text[];

static inline bool interpose_in_runtime(const void *pc)
{
    return (const char *)pc >= __start_cfa_runtime_text && (const char *)pc < __stop_cfa_runtime_text;
}

/* Inside a signal handler the program installed, on the thread it
 * interrupted (interpose_signal.c): no parking there. */
bool interpose_in_signal_handler(void);

/* A macro: the return address must be the interposed function's own. */
#define PARKS_CALLER()                                                       \
    (cfa_this_thread() && !interpose_in_runtime(__builtin_return_address(0)) && \
     !interpose_in_signal_handler())

/* The interposed calls are weak: a program that defines a function of the
 * same name (its own `poll`, say) keeps it, as it would over glibc's. A
 * sanitizer's runtime defines them weakly too, and its definitions come
 * first: under a sanitizer these calls are the sanitizer's (glibc's). */
#define PT_WEAK __attribute__((weak))

#endif
