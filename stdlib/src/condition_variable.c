/* condition_variable.c: condition variables for mutex_lock and owner_lock
 * (see cfa/std/condition_variable.h).
 *
 * The waiter queues itself under the condition's spinlock *before* it lets
 * the lock go, so a notify issued under the lock after that point finds
 * it: no lost wake-up. Untimed waiters park until their notifier's wake-up
 * (waitq.h); timed ones race the notifier for their record and, whatever
 * the outcome, re-lock the condition to unlink themselves before the
 * record goes away.
 */
#include <cfa/std/condition_variable.h>

#include "lock_release.h"

/* One lock type's release and reacquire, for the generic wait below. */
struct lock_ops {
    const char *name;
    bool (*owned)(void *lock);
    unsigned (*release)(void *lock);
    void (*reacquire)(void *lock, unsigned saved);
};

static bool mutex_owned(void *m) { return cfa_mutex_lock_owned(m); }
static unsigned mutex_release(void *m)
{
    cfa_mutex_lock_release(m);
    return 1;
}
static void mutex_reacquire(void *m, unsigned saved) { cfa_mutex_lock_acquire(m); }
static bool owner_owned(void *l) { return cfa_owner_lock_owned(l); }
static unsigned owner_release(void *l) { return std_owner_lock_release_all(l); }
static void owner_reacquire(void *l, unsigned depth) { std_owner_lock_reacquire(l, depth); }

static const struct lock_ops mutex_ops = { "mutex_lock", mutex_owned, mutex_release, mutex_reacquire };
static const struct lock_ops owner_ops = { "owner_lock", owner_owned, owner_release, owner_reacquire };

/* timeout_ns < 0: untimed. Returns whether a notify chose this waiter. */
static bool wait_on(struct cfa_condition_variable *cv, void *lock, const struct lock_ops *ops,
                    int64_t timeout_ns)
{
    if (!ops->owned(lock))
        cfa_fatal("wait on a condition_variable without holding its %s", ops->name);
    bool                  timed = timeout_ns >= 0;
    int64_t               deadline = timed ? std_deadline(timeout_ns) : 0;
    struct cfa_timed_park park;
    struct std_wait       s;
    struct cfa_std_waiter w = { 0 };
    std_wait_init(&s, timed ? &park : NULL, false);
    if (timed)
        cfa_timed_park_init(&park);
    w.wait = &s;

    std_lock(&cv->lock);
    waitq_push(&cv->waiters, &w);
    spin_unlock(&cv->lock);
    unsigned saved = ops->release(lock);

    bool notified = true;
    if (timed) {
        notified = wait_timed(&s, deadline);
        std_lock(&cv->lock);
        waitq_remove(&cv->waiters, &w);
        spin_unlock(&cv->lock);
    } else {
        wait_untimed(&s, "condition_variable");
    }
    ops->reacquire(lock, saved);
    return notified;
}

void cfa_condvar_wait_mutex(struct cfa_condition_variable *cv, struct cfa_mutex_lock *m)
{
    wait_on(cv, m, &mutex_ops, -1);
}

void cfa_condvar_wait_owner(struct cfa_condition_variable *cv, struct cfa_owner_lock *l)
{
    wait_on(cv, l, &owner_ops, -1);
}

_Bool cfa_condvar_wait_mutex_for(struct cfa_condition_variable *cv, struct cfa_mutex_lock *m,
                                 int64_t timeout_ns)
{
    return wait_on(cv, m, &mutex_ops, timeout_ns < 0 ? 0 : timeout_ns);
}

_Bool cfa_condvar_wait_owner_for(struct cfa_condition_variable *cv, struct cfa_owner_lock *l,
                                 int64_t timeout_ns)
{
    return wait_on(cv, l, &owner_ops, timeout_ns < 0 ? 0 : timeout_ns);
}

static unsigned notify(struct cfa_condition_variable *cv, unsigned most)
{
    struct std_wakes       wakes = { 0 };
    struct cfa_std_waiter *w;
    unsigned               woken = 0;
    std_lock(&cv->lock);
    while (woken < most && (w = waitq_claim(&cv->waiters))) {
        wait_complete(w, STD_OK, &wakes);
        woken++;
    }
    spin_unlock(&cv->lock);
    wakes_run(&wakes);
    return woken;
}

unsigned cfa_condvar_notify_one(struct cfa_condition_variable *cv) { return notify(cv, 1); }
unsigned cfa_condvar_notify_all(struct cfa_condition_variable *cv) { return notify(cv, ~0u); }

_Bool cfa_condvar_empty(struct cfa_condition_variable *cv)
{
    std_lock(&cv->lock);
    bool empty = waitq_empty(&cv->waiters);
    spin_unlock(&cv->lock);
    return empty;
}
