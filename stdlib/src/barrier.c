/* barrier.c: the reusable barrier (see cfa/std/barrier.h).
 *
 * The last arrival resets `arrived` and claims every waiter under the lock,
 * so the next phase starts counting before anyone of this phase runs.
 */
#include <cfa/std/barrier.h>

#include "waitq.h"

void cfa_barrier_init(struct cfa_barrier *b, unsigned parties)
{
    if (parties == 0)
        cfa_fatal("barrier init with 0 parties");
    memset(b, 0, sizeof *b);
    b->parties = parties;
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
        b->phase++;
        while ((w = waitq_claim(&b->waiters)))
            wait_complete(w, STD_OK, &wakes);
        spin_unlock(&b->lock);
        wakes_run(&wakes);
        return 1;
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
