/* io_future.c: the futures of I/O requests.
 *
 * A future's state:
 *   EMPTY    zero-initialised, never started (waiting on it: EINVAL)
 *   PENDING  started, nobody waits
 *   WAITING  started, `waiter` is parked on it
 *   DONE     `result` is final; returned by every later wait
 * and DONE|WAKE_CLAIMED while the completer unparks the waiter (the
 * one-shot protocol of io_wakeup.h). The completer stores `result` before
 * it publishes DONE (release); readers load the state with acquire.
 *
 * Completers are the processor that reaps the CQE (or a user thread on it
 * reaping in the slow path), a fallback poller or pool thread, or the
 * caller itself when the request finished at once. Exactly one completes a
 * request: the one that owns it at the time (ring, backlog, fd wait list
 * or pool queue), so io_complete never races with itself.
 */
#include "processor.h"
#include "thread_internal.h"
#include "io_internal.h"
#include "io_wakeup.h"

#include <cfa/runtime.h>
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

enum { FUT_EMPTY = 0, FUT_PENDING = 1, FUT_WAITING = 2, FUT_DONE = 3 };

void io_future_begin(io_future *f)
{
    /* The future may hold garbage (an uninitialised local): overwrite. */
    f->result = 0;
    f->waiter = NULL;
    cfa_qlink_init(&f->link);
    atomic_store_explicit(&f->state, FUT_PENDING, memory_order_relaxed);
}

void io_complete(io_future *f, int64_t res)
{
    f->result = res;
    int s = atomic_load_explicit(&f->state, memory_order_acquire);
    for (;;) {
        if (s == FUT_PENDING) {
            if (atomic_compare_exchange_weak_explicit(&f->state, &s, FUT_DONE, memory_order_release,
                                                      memory_order_acquire))
                return;
        } else if (s == FUT_WAITING) {
            struct cfa_thread *t = f->waiter; /* valid: the waiter stays while WAITING */
            if (wakeup_claim(&f->state, FUT_WAITING, FUT_DONE)) {
                wakeup_deliver(t, &f->state, FUT_DONE);
                return;
            }
            s = atomic_load_explicit(&f->state, memory_order_acquire);
        } else {
            cfa_fatal("an io_future completed twice (state %d): was it restarted while in flight?", s);
        }
    }
}

ssize_t io_result(int64_t r)
{
    if (r < 0) {
        errno = (int)-r;
        return -1;
    }
    return (ssize_t)r;
}

/* Fairness for calls that end without a park: a thread whose calls all
 * complete at once (a send with room, the fallback's successful try, a
 * sendfile) never passes through the scheduler, so without preemption it
 * would keep its processor forever, and the processor would never poll its
 * ring for the others' completions. Each such call counts as a scheduling
 * decision on the processor's poll countdown (IO_POLL_INTERVAL), and when
 * that runs out the thread yields: others run, and the scheduler polls on
 * the way, at least every IO_POLL_INTERVAL calls. Runtime code: never
 * preempted between the read of the processor and the decrement. */
void io_count_unparked(void)
{
    struct cfa_processor_state *p = this_processor();
    if (p && p->current && p->io && --p->io->countdown == 0) {
        p->io->countdown = 1; /* the scheduler's io_tick takes it to 0 and polls */
        cfa_yield();
    }
}

ssize_t cfa_io_wait(io_future *f)
{
    int s = atomic_load_explicit(&f->state, memory_order_acquire);
    if (s == FUT_DONE) {
        io_count_unparked();
        return io_result(f->result);
    }
    if (s == FUT_EMPTY) {
        errno = EINVAL;
        return -1;
    }
    struct cfa_thread *self = this_thread();
    if (!self) {
        /* A kernel thread that is not a processor cannot park: it naps
         * until a processor or the fallback engine completes f. */
        struct timespec nap = { 0, 50000 };
        while (atomic_load_explicit(&f->state, memory_order_acquire) != FUT_DONE)
            nanosleep(&nap, NULL);
        return io_result(f->result);
    }
    if (s != FUT_PENDING)
        cfa_fatal("two threads wait on one io_future");
    f->waiter = self;
    int expected = FUT_PENDING;
    if (atomic_compare_exchange_strong_explicit(&f->state, &expected, FUT_WAITING, memory_order_release,
                                                memory_order_acquire))
        wakeup_wait(&f->state, FUT_WAITING, "io");
    /* else it completed meanwhile (expected is DONE) */
    return io_result(f->result);
}

bool cfa_io_available(io_future *f)
{
    if (atomic_load_explicit(&f->state, memory_order_acquire) == FUT_DONE)
        return true;
    /* Not yet: a polling loop must let the processor submit and reap. It
     * polls at its next scheduling decision, which the yield makes now
     * (the ring is the processor's to touch, not this thread's). */
    struct cfa_processor_state *p = this_processor();
    if (p && p->current && p->io) {
        p->io->countdown = 1;
        cfa_yield();
    }
    return atomic_load_explicit(&f->state, memory_order_acquire) == FUT_DONE;
}
