/* select.c: cfa_select, the engine of waituntil (see cfa/std/select.h).
 *
 * One round: lock every object of the clauses (unique, in address order:
 * the only place where the library holds several locks, so no deadlock),
 * try the clauses from a random start and complete the first that can go;
 * otherwise publish one waiter per enabled clause, all sharing one
 * std_wait, unlock, and park. The first claimant (a peer's operation or a
 * close; waitq.h) completes exactly one clause and removes it; the thread
 * then re-locks everything and unlinks its other waiters. A claim by a
 * close (status CLOSED) completed nothing: the round starts over, so a
 * receive clause on the now-drained channel is disabled and a send clause
 * reports the closed channel.
 *
 * Every object's lock is its first member, so an object's address is its
 * lock's address.
 */
#include <cfa/std/select.h>

#include "select_ops.h"

/* Per kernel thread: only the start of a scan depends on it. Atomic
 * (relaxed) because the user threads that run on one kernel thread share
 * it: they never run at once, but ThreadSanitizer, which sees each of them
 * as a thread of its own, would report their accesses as a race. */
static __thread _Atomic uint32_t select_seed;

static unsigned random_below(unsigned n)
{
    uint32_t x = atomic_load_explicit(&select_seed, memory_order_relaxed);
    if (!x)
        x = 0x9e3779b9u ^ (uint32_t)(uintptr_t)&select_seed;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    atomic_store_explicit(&select_seed, x, memory_order_relaxed);
    return (unsigned)(((uint64_t)x * n) >> 32);
}

struct lock_set {
    _Atomic int *locks[CFA_SELECT_MAX];
    unsigned     count;
};

static void lock_set_build(struct lock_set *ls, const struct cfa_select_clause *cl, unsigned n)
{
    ls->count = 0;
    for (unsigned i = 0; i < n; i++) {
        _Atomic int *l = cl[i].object;
        unsigned     at = ls->count;
        while (at > 0 && ls->locks[at - 1] > l)
            at--;
        if (at > 0 && ls->locks[at - 1] == l)
            continue; /* already there */
        memmove(&ls->locks[at + 1], &ls->locks[at], (ls->count - at) * sizeof ls->locks[0]);
        ls->locks[at] = l;
        ls->count++;
    }
}

static void lock_all(struct lock_set *ls)
{
    for (unsigned i = 0; i < ls->count; i++)
        std_lock(ls->locks[i]);
}

static void unlock_all(struct lock_set *ls)
{
    for (unsigned i = ls->count; i-- > 0;)
        spin_unlock(ls->locks[i]);
}

static struct cfa_std_waitq *queue_of(const struct cfa_select_clause *c)
{
    switch (c->kind) {
    case CFA_SELECT_RECV: return &((struct cfa_channel *)c->object)->receivers;
    case CFA_SELECT_SEND: return &((struct cfa_channel *)c->object)->senders;
    default: return &((struct cfa_future *)c->object)->waiters;
    }
}

/* Under every lock: CFA_CHANNEL_OK (done), _WOULD_BLOCK or _CLOSED. */
static int try_clause(struct cfa_select_clause *c, struct std_wakes *wakes)
{
    switch (c->kind) {
    case CFA_SELECT_RECV: return std_channel_recv_now(c->object, c->value, wakes);
    case CFA_SELECT_SEND: return std_channel_send_now(c->object, c->value, wakes);
    default:
        return std_future_get_now(c->object, c->slot, c->value, c->size) ? CFA_CHANNEL_OK
                                                                         : CFA_CHANNEL_WOULD_BLOCK;
    }
}

static void check_clauses(const struct cfa_select_clause *cl, unsigned n)
{
    if (n > CFA_SELECT_MAX)
        cfa_fatal("waituntil with %u clauses (at most %d)", n, CFA_SELECT_MAX);
    for (unsigned i = 0; i < n; i++) {
        if (cl[i].kind < CFA_SELECT_RECV || cl[i].kind > CFA_SELECT_FUTURE || !cl[i].object)
            cfa_fatal("waituntil: clause %u is not a receive, send or future clause", i);
    }
}

int cfa_select(struct cfa_select_clause *cl, unsigned n, int64_t timeout_ns)
{
    check_clauses(cl, n);
    struct lock_set ls;
    lock_set_build(&ls, cl, n);
    bool    timed = timeout_ns > 0;
    int64_t deadline = timed ? std_deadline(timeout_ns) : 0;
    bool    enabled[CFA_SELECT_MAX];

    for (;;) {
        /* Everything that calls out of the library is done before locking
         * (waitq.h: no library call under a spinlock). */
        struct cfa_timed_park timed_park;
        struct std_wait       s;
        struct cfa_std_waiter w[n ? n : 1];
        std_wait_init(&s, timed ? &timed_park : NULL, true);
        if (timed)
            cfa_timed_park_init(&timed_park);
        for (unsigned j = 0; j < n; j++)
            w[j] = (struct cfa_std_waiter){ .wait = &s, .value = cl[j].value, .clause = (int)j };
        bool expired = timeout_ns == 0 || (timed && cfa_clock_ns() >= deadline);
        unsigned start = n ? random_below(n) : 0;

        struct std_wakes       wakes = { 0 };
        struct cfa_channel    *grow = NULL;
        bool                   any = false;
        lock_all(&ls);
        for (unsigned k = 0, i = start; k < n; k++, i = i + 1 == n ? 0 : i + 1) {
            int r = try_clause(&cl[i], &wakes);
            if (r == CFA_CHANNEL_OK) {
                unlock_all(&ls);
                wakes_run(&wakes);
                return (int)i;
            }
            if (r == STD_CHANNEL_NEED_ROOM) {
                grow = cl[i].object;
                break;
            }
            if (r == CFA_CHANNEL_CLOSED && cl[i].kind == CFA_SELECT_SEND) {
                unlock_all(&ls);
                cfa_fatal("send on a closed channel (waituntil clause %u)", i);
            }
            enabled[i] = r == CFA_CHANNEL_WOULD_BLOCK;
            any |= enabled[i];
        }
        /* Nothing completed, so nothing was claimed: `wakes` is empty. */
        if (grow) {
            unlock_all(&ls);
            std_channel_make_room(grow);
            continue;
        }
        if (!any || expired) {
            unlock_all(&ls);
            return any ? CFA_SELECT_TIMEOUT : CFA_SELECT_CLOSED;
        }
        for (unsigned j = 0; j < n; j++)
            if (enabled[j])
                waitq_push(queue_of(&cl[j]), &w[j]);
        unlock_all(&ls);

        bool claimed = true;
        if (timed)
            claimed = wait_timed(&s, deadline);
        else
            wait_untimed(&s, "waituntil");

        lock_all(&ls);
        for (unsigned j = 0; j < n; j++)
            waitq_remove(queue_of(&cl[j]), &w[j]);
        unlock_all(&ls);
        if (!claimed)
            return CFA_SELECT_TIMEOUT;
        if (s.status == STD_OK)
            return s.fired;
        /* Woken by a close: look again. */
    }
}
