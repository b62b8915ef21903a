/* cfa/std/barrier.h: a reusable barrier for a fixed number of threads.
 *
 * wait blocks the calling user thread (park) until `parties` threads have
 * called it; the last one to arrive releases all of them together and gets
 * true (one thread per phase may then act alone), the others false. The
 * barrier is ready for the next phase as soon as it releases a phase, so a
 * thread may wait again at once. Fairness: not applicable (a whole phase
 * is released at once; wake-up order is arrival order).
 *
 * destroy: the barrier is uninitialised again (init may reuse it); no
 * thread may be waiting.
 *
 * Errors (fatal, naming the thread): init with 0 parties; wait on a
 * barrier that was never initialised (or was destroyed); destroy while
 * threads wait.
 *
 * Invariants (under `lock`): arrived < parties between calls; exactly
 * `arrived` threads wait.
 */
#ifndef CFA_STD_BARRIER_H
#define CFA_STD_BARRIER_H

#include <cfa/std/waitq.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cfa_barrier {
    _Atomic int          lock;
    unsigned             parties;
    unsigned             arrived;
    unsigned long long   phase;   /* phases released so far */
    struct cfa_std_waitq waiters;
};

void cfa_barrier_init(struct cfa_barrier *b, unsigned parties);
/* 1 in exactly one thread per phase (the last arrival), else 0. */
int  cfa_barrier_wait(struct cfa_barrier *b);
void cfa_barrier_destroy(struct cfa_barrier *b);

#ifdef __cplusplus
}
#endif
#endif
