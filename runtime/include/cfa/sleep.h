/* cfa/sleep.h: sleeping and timed parking block the calling user thread,
 * not its processor. Timers are serviced by the processors (timer.c). */
#ifndef CFA_SLEEP_H
#define CFA_SLEEP_H

#include <cfa/internal/queue.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cfa_thread;

/* Blocks the calling user thread for at least ns nanoseconds (none for
 * ns <= 0, which still yields). From a kernel thread that is not a
 * processor, it sleeps the kernel thread. A permit the thread holds (or
 * receives) meanwhile neither ends the sleep early nor is lost. */
void cfa_sleep_ns(int64_t ns);

/* CLOCK_MONOTONIC in nanoseconds. */
int64_t cfa_clock_ns(void);

/* --- timed park: a park that either one waker or a timeout ends ---------
 *
 * For `waitfor ... or timeout(d)` and any wait with a time limit. The
 * waiting thread owns a record (usually on its stack) and publishes it
 * where a waker can find it, typically in a queue under the waker's lock:
 *
 *   waiter:  cfa_timed_park_init(&w);           // binds w to this thread
 *            <publish &w under lock L>
 *            woken = cfa_park_timeout_ns(&w, d);
 *            <under L: unpublish &w if still there>
 *   waker:   <under L: take &w> cfa_unpark_timed(&w)  // false: too late
 *
 * Exactly one of the waker and the timeout claims the record (one atomic
 * compare-and-swap) and only the claimant unparks the thread, so the
 * thread wakes once. A waker that comes too late gets false and gives no
 * permit, so no stray permit is left for the thread's next park. The
 * record must stay valid while a waker may call cfa_unpark_timed on it
 * (hence lock L); cfa_park_timeout_ns returns only once neither the timer
 * nor the claimant touches it any more. Permits the thread receives from
 * elsewhere during the wait are kept for its next park. */
enum { CFA_PARK_TIMED_OUT = 0, CFA_PARK_WOKEN = 1 };

struct cfa_timed_park {
    struct cfa_thread     *thread;     /* the waiter */
    _Atomic int            state;      /* private: see timer.c */
    int                    spare;
    int64_t                deadline;   /* private: CLOCK_MONOTONIC ns */
    size_t                 heap_index; /* private: position in the timer heap */
    struct cfa_qlink       expired;    /* private: timer's list of expired records */
};

/* Binds w to the calling user thread; a waker may claim it from now on. */
void cfa_timed_park_init(struct cfa_timed_park *w);

/* Parks until claimed by cfa_unpark_timed or until ns nanoseconds have
 * passed (absolute deadline: _deadline_ns, on cfa_clock_ns's clock).
 * Returns CFA_PARK_WOKEN or CFA_PARK_TIMED_OUT. Returns at once if a waker
 * claimed w before the call. One call per cfa_timed_park_init. */
int cfa_park_timeout_ns(struct cfa_timed_park *w, int64_t ns);
int cfa_park_deadline_ns(struct cfa_timed_park *w, int64_t deadline_ns);

/* Claims w and unparks its thread. Returns false, doing nothing, when the
 * timeout (or another waker) claimed it first. Callable from any user
 * thread or kernel thread. */
bool cfa_unpark_timed(struct cfa_timed_park *w);

#ifdef __cplusplus
}
#endif
#endif
