/* future.c: single-assignment futures (see cfa/std/future.h).
 *
 * fulfil copies the value into the future and into every blocked getter's
 * destination under the lock, so a woken getter needs nothing more from
 * the future. get of a fulfilled future copies without the lock: the
 * value was written before `state` became FULFILLED (release/acquire).
 */
#include "select_ops.h"

void cfa_future_fulfil(struct cfa_future *f, void *slot, const void *value, size_t size)
{
    struct std_wakes wakes = { 0 };
    std_lock(&f->lock);
    if (atomic_load_explicit(&f->state, memory_order_relaxed) == CFA_FUTURE_FULFILLED) {
        spin_unlock(&f->lock);
        cfa_fatal("fulfil of a future that is already fulfilled (reset it first)");
    }
    std_copy(slot, value, size);
    atomic_store_explicit(&f->state, CFA_FUTURE_FULFILLED, memory_order_release);
    struct cfa_std_waiter *w;
    while ((w = waitq_claim(&f->waiters))) {
        if (w->value)
            std_copy(w->value, slot, size);
        wait_complete(w, STD_OK, &wakes);
    }
    spin_unlock(&f->lock);
    wakes_run(&wakes);
}

bool std_future_get_now(struct cfa_future *f, const void *slot, void *out, size_t size)
{
    if (atomic_load_explicit(&f->state, memory_order_acquire) != CFA_FUTURE_FULFILLED)
        return false;
    if (out)
        std_copy(out, slot, size);
    return true;
}

void cfa_future_get(struct cfa_future *f, const void *slot, void *out, size_t size)
{
    if (std_future_get_now(f, slot, out, size))
        return;
    std_lock(&f->lock);
    if (std_future_get_now(f, slot, out, size)) {
        spin_unlock(&f->lock);
        return;
    }
    wait_in(&f->waiters, &f->lock, out, "future get");
}

_Bool cfa_future_available(struct cfa_future *f)
{
    return atomic_load_explicit(&f->state, memory_order_acquire) == CFA_FUTURE_FULFILLED;
}

void cfa_future_reset(struct cfa_future *f)
{
    std_lock(&f->lock);
    bool waited_on = !waitq_empty(&f->waiters);
    if (!waited_on)
        atomic_store_explicit(&f->state, CFA_FUTURE_EMPTY, memory_order_relaxed);
    spin_unlock(&f->lock);
    if (waited_on)
        cfa_fatal("reset of a future that threads are blocked on");
}
