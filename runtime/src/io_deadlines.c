/* io_deadlines.c: each ring's timed requests in flight, earliest deadline
 * first (a binary min-heap in the io_context).
 *
 * A timed request (cfa_X_until) on the io_uring engine is submitted alone,
 * with no linked timeout; it enters its ring's heap when its SQE is filled
 * and leaves it when its CQE is reaped. The processor's polls pop the
 * requests whose deadline has passed and cancel them (io_uring.c), so a
 * timed call that completes in time costs a heap insertion and removal,
 * no kernel timer and no second SQE or CQE.
 *
 * Invariants: the heap belongs to one io_context and is touched only on
 * its processor's kernel thread, so nothing is locked; an entry's request
 * has `slot` = 1 + its position, and a request not in the heap has 0;
 * deadlines_insert never allocates (it runs in the no-migration window of
 * io_start, which calls no library function): deadlines_reserve makes
 * room before that window.
 */
#include "invariant.h"
#include "io_internal.h"
#include "timer.h"

#include <cfa/runtime.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

static void put(struct io_deadlines *h, size_t i, struct io_deadline e)
{
    h->at[i] = e;
    e.f->req.slot = (int64_t)i + 1;
}

static void sift_up(struct io_deadlines *h, size_t i, struct io_deadline e)
{
    for (size_t up; i > 0 && h->at[up = (i - 1) / 2].deadline > e.deadline; i = up)
        put(h, i, h->at[up]);
    put(h, i, e);
}

static void sift_down(struct io_deadlines *h, size_t i, struct io_deadline e)
{
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= h->len)
            break;
        if (child + 1 < h->len && h->at[child + 1].deadline < h->at[child].deadline)
            child++;
        if (h->at[child].deadline >= e.deadline)
            break;
        put(h, i, h->at[child]);
        i = child;
    }
    put(h, i, e);
}

bool deadlines_reserve(struct io_deadlines *h)
{
    if (h->len < h->cap)
        return true;
    size_t cap = h->cap ? h->cap * 2 : 64;
    struct io_deadline *at = realloc(h->at, cap * sizeof *at);
    if (!at)
        cfa_fatal("out of memory for the deadlines of timed I/O");
    h->at = at;
    h->cap = cap;
    return false;
}

void deadlines_insert(struct io_deadlines *h, io_future *f)
{
    cfa_assert("io deadlines: room reserved before the no-migration window", h->len < h->cap);
    sift_up(h, h->len++, (struct io_deadline){ f->req.deadline, f });
}

void deadlines_remove(struct io_deadlines *h, io_future *f)
{
    if (!f->req.slot)
        return;
    size_t i = (size_t)f->req.slot - 1;
    f->req.slot = 0;
    struct io_deadline last = h->at[--h->len];
    if (i == h->len)
        return;
    if (i > 0 && h->at[(i - 1) / 2].deadline > last.deadline)
        sift_up(h, i, last);
    else
        sift_down(h, i, last);
}

int64_t deadlines_earliest(const struct io_deadlines *h)
{
    return h->len ? h->at[0].deadline : TIMER_NONE;
}

io_future *deadlines_pop(struct io_deadlines *h)
{
    io_future *f = h->at[0].f;
    deadlines_remove(h, f);
    return f;
}

void deadlines_fini(struct io_deadlines *h)
{
    for (size_t i = 0; i < h->len; i++)
        h->at[i].f->req.slot = 0;
    free(h->at);
    *h = (struct io_deadlines){ 0 };
}
