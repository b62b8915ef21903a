/* barrier.c: the reusable barrier (see cfa/std/barrier.h).
 *
 * The last arrival resets `arrived`, ends the phase (`phase`, released)
 * and claims every waiter under the lock, so the next phase starts
 * counting before anyone of this phase runs.
 *
 * Waiting: with more than one processor in the cluster, a waiter first
 * spins outside the lock (barrier_spin) and returns when it sees the
 * phase end; a waiter whose spin ran out takes the lock again and parks
 * only if the phase is still the one it arrived in. Parking costs the
 * phase's end a wake-up of a sleeping processor (tens of microseconds on
 * a VM), more than a fine-grained step between barriers lasts; a waiter
 * alone on its processor gains nothing from spinning, so one processor
 * parks at once.
 */
#include <cfa/std/barrier.h>

#include "waitq.h"

#include <cfa/cluster.h>
#include <cfa/processor.h>
#include <cfa/sleep.h>
#include <cfa/thread.h>

void cfa_barrier_init(struct cfa_barrier *b, unsigned parties)
{
    if (parties == 0)
        cfa_fatal("barrier init with 0 parties");
    memset(b, 0, sizeof *b);
    b->parties = parties;
}

enum { BARRIER_SPIN_NS = 50000 }; /* docs/stdlib.md, "Barriers" */

/* A waiter's spin: it yields (running whatever its processor has ready)
 * until the phase ends (true) or BARRIER_SPIN_NS pass (false). */
static bool barrier_spin(struct cfa_barrier *b, unsigned long long phase)
{
    int64_t ends = cfa_clock_ns() + BARRIER_SPIN_NS;
    do {
        cfa_yield();
        if (__atomic_load_n(&b->phase, __ATOMIC_ACQUIRE) != phase)
            return true;
    } while (cfa_clock_ns() < ends);
    return false;
}

int cfa_barrier_wait(struct cfa_barrier *b)
{
    std_lock(&b->lock);
    if (b->parties == 0) {
        spin_unlock(&b->lock);
        cfa_fatal("wait on a barrier that was never initialised or was destroyed (init(&b, parties))");
    }
    if (++b->arrived == b->parties) {
        struct std_wakes       wakes = { 0 };
        struct cfa_std_waiter *w;
        b->arrived = 0;
        __atomic_store_n(&b->phase, b->phase + 1, __ATOMIC_RELEASE); /* spinners read it unlocked */
        while ((w = waitq_claim(&b->waiters)))
            wait_complete(w, STD_OK, &wakes);
        spin_unlock(&b->lock);
        wakes_run(&wakes);
        return 1;
    }
    unsigned long long phase = b->phase;
    if (cfa_cluster_processor_count(cfa_current_cluster()) > 1) {
        spin_unlock(&b->lock);
        if (barrier_spin(b, phase))
            return 0;
        std_lock(&b->lock);
        if (b->phase != phase) {
            spin_unlock(&b->lock);
            return 0;
        }
    }
    wait_in(&b->waiters, &b->lock, NULL, "barrier");
    return 0;
}

void cfa_barrier_destroy(struct cfa_barrier *b)
{
    std_lock(&b->lock);
    unsigned waiting = b->arrived;
    spin_unlock(&b->lock);
    if (waiting)
        cfa_fatal("destroy of a barrier that %u thread%s wait%s on", waiting,
                  waiting == 1 ? "" : "s", waiting == 1 ? "s" : "");
    memset(b, 0, sizeof *b);
}
