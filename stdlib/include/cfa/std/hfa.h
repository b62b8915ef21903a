/* cfa/std/hfa.h: what the cfa-lite headers of the library (the .hfa files)
 * share: the prelude (Duration and the units; cfacc includes it first
 * anyway, a C program gets it here), how their functions are declared,
 * and the compile-time misuse guard.
 *
 * The .hfa headers are plain C with clang's `overloadable`, so that
 * send(&c, v) picks the function of c's channel type while the C library's
 * send(fd, buf, n, flags) keeps working beside it. They hold only short
 * forwarding functions; everything that takes a spinlock is in
 * libcfa_std.a, whose code preemption never interrupts.
 */
#ifndef CFA_STD_HFA_H
#define CFA_STD_HFA_H

#include <cfa/prelude.h>

#define __CFA_STD_API static inline __attribute__((overloadable, always_inline, unused))

/* With a single overload in scope, C would only warn about a wrong
 * pointer; these never-usable catch-alls lose to every right overload and
 * turn a wrong argument into an error that says what was expected. */
#define __CFA_STD_MISUSE(name, message)                                        \
    __attribute__((overloadable, unavailable(message))) void name(const volatile void *, ...)

__CFA_STD_MISUSE(init, "init needs a pointer to a channel, semaphore or barrier");
__CFA_STD_MISUSE(destroy, "destroy needs a pointer to a channel");

#endif
