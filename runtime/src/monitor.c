/* monitor.c: mutex calls, conditions and waitfor (see cfa/monitor.h).
 *
 * Ownership moves by *hand-off*: a monitor whose owner lets go (leave,
 * wait, signal_block, waitfor) is given directly to the next request (urgent
 * queue first, then entry queue) before anyone else can see it free, so no
 * entering thread barges past a woken one.
 *
 * A request is a blocked thread's claim on one or more monitors; it lives
 * on that thread's stack and has one link per monitor, so it can wait in
 * several monitors' queues at once (a signalled waiter needs its whole
 * group back). Each hand-off decrements `remaining`; the hand-off that
 * brings it to zero unparks the thread. The owner and nesting fields are
 * set by the giver, so the woken thread owns everything when it runs.
 *
 * A mutex call (inline: cfa/mutex_call.h) takes a free monitor with one
 * compare-and-swap of `owner` (0 -> self) and lets go of it by subtracting
 * its own address: 0 when nobody has queued meanwhile; otherwise the
 * monitor is left at CFA_MONITOR_QUEUED alone, owned by nobody yet taken
 * by no one, and the leaver hands it over under the lock
 * (cfa_monitor_release_slow). The lock is for everything else.
 *
 * Invariants:
 *  - `owner` changes without the lock only in those two ways; every other
 *    change of a monitor's fields happens under its lock; several locks
 *    are taken only in increasing address order (the group order);
 *  - CFA_MONITOR_QUEUED is set in `owner` whenever a queue of the monitor
 *    is not empty (a waiter queues only after setting it, by a CAS that
 *    fails if the owner let go meanwhile), so the lock-free release cannot
 *    leave a waiter behind; it may stay set after the queues empty, which
 *    costs one locked release;
 *  - `nested` (the owner's mutex calls on it beyond the first; so a
 *    mutex call on a free monitor writes nothing but `owner`) is 0 while
 *    the monitor is free, and is written by the owner, or under the lock
 *    by a thread handing the monitor to a parked one;
 *  - a condition's queue is touched only by threads owning its monitors;
 *  - a request is unlinked from every queue before its thread is unparked,
 *    and its thread returns only once `remaining` is 0, the waker's last
 *    touch of the request (grant()), so it never outlives a reference to
 *    it, nor its thread a waker's unpark;
 *  - nested == NESTED_GRANTED means "granted by a waitfor hand-off,
 *    not yet entered": the owner's acquisition then counts it as 1;
 *  - every queue (entry, urgent, a condition's) is a cfa/internal/queue.h
 *    FIFO, with its invariants;
 *  - while an accept is OPEN its acceptor owns the monitors it waits on;
 *    an accept moves OPEN -> CLAIMED -> TAKEN or OPEN -> TIMED_OUT.
 * The debug build checks (invariant.h): a waiting thread owns every
 * monitor of its mutex call, with a recursion count (not a grant); a
 * monitor goes free with nested 0 and empty queues; a hand-off restores a
 * recursion count of at least 1; the queues' shape on every change; an
 * open accept's acceptor owns the monitor, and an accept is claimed
 * (CLAIMED by a caller, or TAKEN by the acceptor itself) when handed off.
 */
#include "invariant.h"
#include "io_wakeup.h"
#include "monitor.h"
#include "thread_internal.h"
#include "spinlock.h"

#include <cfa/monitor.h>
#include <cfa/runtime.h>
#include <cfa/sleep.h>
#include <cfa/test_hook.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

const char cfa_join_function[] = "join";

struct cfa_monitor_link {
    struct cfa_qlink            link;    /* in an entry or urgent queue */
    struct cfa_monitor_request *request;
    unsigned                    index;   /* which of the request's monitors */
};

struct cfa_monitor_request {
    struct cfa_thread          *thread;
    struct cfa_monitor        **monitors;
    unsigned                    count;
    unsigned                   *recursion;  /* restored per monitor; NULL: 1 */
    _Atomic unsigned            remaining;  /* monitors not yet handed over */
    struct cfa_monitor_link    *links;      /* count of them */
    struct cfa_timed_park      *timed;      /* when the thread waits with a timeout */
    /* entry requests */
    const void                 *func;
    uint64_t                    arrival;
    struct cfa_mutex_group     *group;      /* the caller's whole group */
    unsigned                    group_index;
    /* condition waiters */
    uintptr_t                   info;
    struct cfa_qlink            waiting; /* in the condition's queue */
};

struct cfa_accept {
    struct cfa_thread                *thread;
    const struct cfa_waitfor_clause  *clauses;
    unsigned                          nclauses;
    _Atomic int                       state;  /* ACCEPT_OPEN, _CLAIMED, _TAKEN, _TIMED_OUT */
    int                               fired;  /* clause index of the accepted call */
    struct cfa_monitor_request       *back;   /* the acceptor's claim to get its monitors back */
};

/* OPEN -> CLAIMED (a caller won the accept; it is setting up the hand-off)
 * -> TAKEN (the acceptor's `back` request is queued and counted: from here
 * `back.remaining == 0` means the monitors came back). OPEN -> TIMED_OUT.
 * The acceptor trusts `remaining` only once TAKEN: in CLAIMED it is still
 * 0 before the caller counts the hand-off, and an acceptor woken then (by
 * a stray permit) would return with its `back` request still queued on
 * its stack. */
enum { ACCEPT_OPEN, ACCEPT_CLAIMED, ACCEPT_TAKEN, ACCEPT_TIMED_OUT };

static _Atomic uint64_t arrivals;

/* `nested` of a monitor handed to a caller by waitfor before the caller's
 * mutex call reaches it: that call's re-entrant acquisition makes it 0. */
#define NESTED_GRANTED UINT_MAX

static inline struct cfa_thread *owner_of(const struct cfa_monitor *m)
{
    return (struct cfa_thread *)(atomic_load_explicit(&m->owner, memory_order_relaxed) &
                                 ~CFA_MONITOR_QUEUED);
}

static inline bool has_waiters(const struct cfa_monitor *m)
{
    return !cfa_queue_empty(&m->urgent) || !cfa_queue_empty(&m->entry);
}

/* m (locked) now belongs to t (NULL: free; only when its queues are
 * empty). Release: what the last owner did happens before the next owner
 * takes the monitor by CAS. */
static void set_owner_locked(struct cfa_monitor *m, struct cfa_thread *t)
{
    uintptr_t word = (uintptr_t)t;
    if (t && has_waiters(m))
        word |= CFA_MONITOR_QUEUED;
    atomic_store_explicit(&m->owner, word, memory_order_release);
}

/* The owner (this thread) queued a request on m (locked): nobody else can
 * change `owner` now (a waiter's CAS needs the lock), so a plain store
 * does, where a locked instruction would cost the signal path. */
static void mark_queued_by_owner(struct cfa_monitor *m)
{
    uintptr_t word = atomic_load_explicit(&m->owner, memory_order_relaxed);
    atomic_store_explicit(&m->owner, word | CFA_MONITOR_QUEUED, memory_order_relaxed);
}

/* ---- queues ------------------------------------------------------------- */

static inline struct cfa_monitor_link *link_of(struct cfa_qlink *l)
{
    return l ? cfa_queue_entry(l, struct cfa_monitor_link, link) : NULL;
}

static inline struct cfa_monitor_request *waiter_of(struct cfa_qlink *l)
{
    return l ? cfa_queue_entry(l, struct cfa_monitor_request, waiting) : NULL;
}

/* ---- hand-off ------------------------------------------------------------ */

/* `remaining` of a granted request whose waker has still to unpark its
 * thread: the thread, awake early by a stray permit, waits (spinning: the
 * waker is a few instructions away) instead of returning, so its thread
 * cannot end while the waker still reaches it. Requests span far fewer
 * monitors than this. */
#define REQUEST_WAKING UINT_MAX

/* Wakes the thread t of request r, all of whose monitors it now owns
 * (`remaining` is 1, the last hand-off's): the thread is unparked before
 * `remaining` is cleared, the last touch of r. `direct`: the caller blocks
 * right after, so t may take its processor (thread.c, the run-next slot). */
static void grant(struct cfa_monitor_request *r, struct cfa_thread *t, bool direct)
{
    atomic_store_explicit(&r->remaining, REQUEST_WAKING, memory_order_release);
    if (cfa_test_hook)
        cfa_test_hook(CFA_STEP_WAKE_CLAIMED);
    if (direct)
        thread_unpark_before_blocking(t);
    else
        cfa_unpark(t);
    atomic_store_explicit(&r->remaining, 0, memory_order_release);
}

/* Requests completed under a monitor lock, woken once it is released.
 *
 * The last hand-off of a request does not decrement `remaining` to zero
 * under the lock: the waiter could then return (after a stray permit) and
 * free its request while we still read it. The thread and timed record are
 * copied under the lock, the timed record is claimed while `remaining` is
 * still 1 (so it is alive), then grant() marks the request REQUEST_WAKING,
 * unparks the thread and clears `remaining`, after which neither is
 * touched again. Wake-ups may therefore leave a permit behind; every park
 * in the runtime re-checks its condition. */
struct pending_wake {
    struct cfa_monitor_request *request;
    struct cfa_thread          *thread;
    struct cfa_timed_park      *timed;
};

struct wake_list {
    struct pending_wake wakes[8];
    unsigned count;
};

/* `then_block`: the caller blocks right after, so the last thread woken
 * may take its processor directly (thread.c, the run-next slot). */
static void wake_all(struct wake_list *w, bool then_block)
{
    for (unsigned i = 0; i < w->count; i++) {
        struct pending_wake *p = &w->wakes[i];
        if (p->timed)
            cfa_unpark_timed(p->timed);
        grant(p->request, p->thread, then_block && i + 1 == w->count);
    }
    w->count = 0;
}

/* Gives m (locked) to the request behind link l. */
static void give(struct cfa_monitor *m, struct cfa_monitor_link *l, struct wake_list *w)
{
    struct cfa_monitor_request *r = l->request;
    cfa_assert("monitor hand-off restores a recursion count of at least 1",
               !r->recursion || (r->recursion[l->index] >= 1 && r->recursion[l->index] != NESTED_GRANTED));
    m->nested = r->recursion ? r->recursion[l->index] - 1 : 0;
    set_owner_locked(m, r->thread);
    /* Each monitor still to come has one giver: at 1 the only one left
     * is us, so a single-monitor request costs no locked instruction. */
    unsigned left = atomic_load_explicit(&r->remaining, memory_order_acquire);
    cfa_assert("monitor request: each monitor handed over once", left >= 1);
    while (left > 1 && !atomic_compare_exchange_weak(&r->remaining, &left, left - 1))
        ;
    if (left == 1) {
        if (w->count == sizeof w->wakes / sizeof w->wakes[0])
            cfa_fatal("internal: too many wake-ups from one release");
        w->wakes[w->count++] = (struct pending_wake){ r, r->thread, r->timed };
    }
}

/* The owner of m (locked) lets go of it entirely. Inlined into its three
 * callers: out of line it cost the signal benchmark 1-2 ns. */
static inline __attribute__((always_inline)) void release_locked(struct cfa_monitor *m, struct wake_list *w)
{
    struct cfa_monitor_link *l = link_of(cfa_queue_pop_front(&m->urgent));
    if (!l)
        l = link_of(cfa_queue_pop_front(&m->entry));
    if (l) {
        give(m, l, w);
    } else {
        cfa_assert("monitor goes free with empty queues", !has_waiters(m));
        m->nested = 0;
        set_owner_locked(m, NULL);
    }
}

static void park_until_granted(struct cfa_monitor_request *r, const char *reason)
{
    unsigned left, spins = 0;
    while ((left = atomic_load_explicit(&r->remaining, memory_order_acquire)) != 0)
        if (left == REQUEST_WAKING)
            wakeup_pause(&spins);
        else
            cfa_park_for(reason);
}

static struct cfa_thread *self_or_fatal(const char *what)
{
    struct cfa_thread *t = this_thread();
    if (!t)
        cfa_fatal("%s from a kernel thread that is not a processor", what);
    return t;
}

/* ---- mutex calls ----------------------------------------------------------- */

/* The general case of cfa_sort_monitors (cfa/mutex_call.h): insertion
 * sort by address, then duplicates dropped; returns the new count. */
unsigned cfa_sort_monitors_any(struct cfa_monitor **m, unsigned n)
{
    for (unsigned i = 1; i < n; i++) {
        struct cfa_monitor *x = m[i];
        unsigned j = i;
        for (; j > 0 && m[j - 1] > x; j--)
            m[j] = m[j - 1];
        m[j] = x;
    }
    unsigned k = n ? 1 : 0;
    for (unsigned i = 1; i < n; i++)
        if (m[k - 1] != m[i])
            m[k++] = m[i];
    return k;
}

/* Whether clause c accepts a call whose group is g (sorted, unique): its
 * function, and its one monitor among g's or its monitors exactly g's. */
static bool clause_accepts(const struct cfa_waitfor_clause *c, const struct cfa_mutex_group *g)
{
    if (c->func != g->func)
        return false;
    if (c->count == 1) {
        for (unsigned i = 0; i < g->count; i++)
            if (g->monitors[i] == c->monitors[0])
                return true;
        return false;
    }
    unsigned j = 0; /* c->monitors is sorted (cfa_waitfor), maybe with repeats */
    for (unsigned i = 0; i < c->count; i++) {
        if (i > 0 && c->monitors[i] == c->monitors[i - 1])
            continue;
        if (j == g->count || g->monitors[j] != c->monitors[i])
            return false;
        j++;
    }
    return j == g->count;
}

/* The first clause of a that accepts a call with group g (lexical order). */
static bool accepts(const struct cfa_accept *a, const struct cfa_mutex_group *g, int *clause)
{
    for (unsigned k = 0; k < a->nclauses; k++) {
        if (clause_accepts(&a->clauses[k], g)) {
            *clause = (int)k;
            return true;
        }
    }
    return false;
}

static int back_index(const struct cfa_monitor_request *back, const struct cfa_monitor *m)
{
    for (unsigned i = 0; i < back->count; i++)
        if (back->monitors[i] == m)
            return (int)i;
    return -1;
}

/* The acceptor A (owner of m, locked by the caller) hands m to thread c,
 * and with it the monitors of c's group after position `from` that A
 * holds (locked here, in increasing order, above m). A gets each back
 * through its urgent request when c lets go of it. The request goes to
 * the front of the urgent queue, which acceptors use as a stack: if c
 * accepts in turn, its own request goes in front of A's, so nested
 * waitfors unwind innermost first (each returns only once the call it
 * accepted has finished), as in Cforall and uC++. */
static void accept_hand_off(struct cfa_accept *a, struct cfa_monitor *m, struct cfa_thread *c,
                            struct cfa_mutex_group *cg, unsigned from, bool locked_all)
{
    struct cfa_monitor_request *back = a->back;
    int i = back_index(back, m);
    cfa_assert("accept handed off only once claimed (never OPEN or TIMED_OUT), of a monitor the acceptor holds",
               (atomic_load(&a->state) == ACCEPT_CLAIMED || atomic_load(&a->state) == ACCEPT_TAKEN) && i >= 0);
    back->recursion[i] = m->nested + 1;
    atomic_fetch_add(&back->remaining, 1);
    cfa_queue_push_front(&m->urgent, &back->links[i].link);
    m->nested = 0;
    set_owner_locked(m, c);
    for (unsigned k = from + 1; cg && k < cg->count; k++) {
        struct cfa_monitor *m2 = cg->monitors[k];
        int j = back_index(back, m2);
        if (j < 0)
            continue;
        if (!locked_all)
            spin_lock(&m2->lock);
        if (owner_of(m2) == a->thread) {
            back->recursion[j] = m2->nested + 1;
            atomic_fetch_add(&back->remaining, 1);
            cfa_queue_push_front(&m2->urgent, &back->links[j].link);
            m2->nested = NESTED_GRANTED; /* c's acquisition makes it 0 */
            set_owner_locked(m2, c);
        }
        if (!locked_all)
            spin_unlock(&m2->lock);
    }
}

/* m had another owner when this thread tried to take it: under m's lock,
 * take it if it has been let go of since, or take an accept that wants
 * this call, or queue and park until the monitor is handed over. */
static void acquire_slow(struct cfa_thread *self, struct cfa_mutex_group *g, unsigned i)
{
    struct cfa_monitor *m = g->monitors[i];
    spin_lock(&m->lock);
    int clause;
    struct cfa_accept *a = m->acceptor; /* set only while its owner waits in waitfor */
    cfa_assert("an open accept's acceptor owns the monitor",
               !a || atomic_load(&a->state) != ACCEPT_OPEN || owner_of(m) == a->thread);
    if (a && accepts(a, g, &clause)) {
        int open = ACCEPT_OPEN;
        if (atomic_compare_exchange_strong(&a->state, &open, ACCEPT_CLAIMED)) {
            a->fired = clause;
            m->acceptor = NULL;
            accept_hand_off(a, m, self, g, i, false);
            /* Not touched after this store: the acceptor may return once
             * we let go of m. */
            atomic_store_explicit(&a->state, ACCEPT_TAKEN, memory_order_release);
            spin_unlock(&m->lock);
            return;
        }
    }
    uintptr_t word = atomic_load_explicit(&m->owner, memory_order_relaxed);
    for (;;) {
        if (word == 0) {
            if (atomic_compare_exchange_weak_explicit(&m->owner, &word, (uintptr_t)self,
                                                      memory_order_acquire, memory_order_relaxed)) {
                spin_unlock(&m->lock); /* free: nested is 0 */
                return;
            }
        } else if ((word & CFA_MONITOR_QUEUED) ||
                   atomic_compare_exchange_weak_explicit(&m->owner, &word, word | CFA_MONITOR_QUEUED,
                                                         memory_order_relaxed, memory_order_relaxed)) {
            break; /* the owner's lock-free release now fails: it will hand m over */
        }
    }
    struct cfa_monitor_link link = { .index = 0 };
    struct cfa_monitor_request r = {
        .thread = self, .monitors = &g->monitors[i], .count = 1, .remaining = 1,
        .links = &link, .func = g->func, .group = g, .group_index = i,
        .arrival = atomic_fetch_add_explicit(&arrivals, 1, memory_order_relaxed),
    };
    link.request = &r;
    cfa_queue_push_back(&m->entry, &link.link);
    spin_unlock(&m->lock);
    park_until_granted(&r, g->func == cfa_join_function ? "join" : "mutex entry");
}

/* Monitor `from` of g could not be taken inline; takes it and the rest. */
void cfa_mutex_enter_slow(struct cfa_thread *self, struct cfa_mutex_group *g, unsigned from)
{
    acquire_slow(self, g, from);
    for (unsigned i = from + 1; i < g->count; i++)
        if (!cfa_monitor_try_acquire(self, g->monitors[i]))
            acquire_slow(self, g, i);
}

void cfa_mutex_outside_thread(void)
{
    cfa_fatal("a mutex call from a kernel thread that is not a processor");
}

/* m is let go of (nested 0) and somebody may wait for it: hand it
 * over, or free it, under the lock; then wake the new owner. */
static void release_slow(struct cfa_monitor *m, bool then_block)
{
    struct wake_list w;
    w.count = 0; /* not an initializer: that would zero all the slots */
    spin_lock(&m->lock);
    release_locked(m, &w);
    spin_unlock(&m->lock);
    wake_all(&w, then_block);
}

void cfa_monitor_release_slow(struct cfa_monitor *m) { release_slow(m, false); }

void monitor_leave_then_halt(struct cfa_mutex_group *g)
{
    struct cfa_monitor *m = g->monitors[0];
    if (cfa_owner_let_go(&m->owner, (uintptr_t)g->thread))
        release_slow(m, true); /* the joiner may take our processor */
    g->thread->mutex_group = g->outer;
}

/* ---- internal scheduling ---------------------------------------------------- */

static bool owns(struct cfa_thread *self, struct cfa_monitor *m)
{
    return owner_of(m) == self; /* only this thread makes it so */
}

static void check_owns_all(struct cfa_thread *self, struct cfa_monitor **m, unsigned n, const char *what)
{
    for (unsigned i = 0; i < n; i++)
        if (!owns(self, m[i]))
            cfa_fatal("%s without holding every monitor of the waiting thread's mutex call", what);
}

void cfa_wait(struct cfa_condition *c, uintptr_t info)
{
    struct cfa_thread *self = self_or_fatal("wait");
    struct cfa_mutex_group *g = self->mutex_group;
    if (!g || g->count == 0)
        cfa_fatal("wait on a condition without holding a monitor (outside any mutex call)");
    unsigned n = g->count;
    unsigned recursion[n];
    struct cfa_monitor_link links[n];
    struct cfa_monitor_request r = {
        .thread = self, .monitors = g->monitors, .count = n, .recursion = recursion,
        .remaining = n, .links = links, .info = info,
    };
    for (unsigned i = 0; i < n; i++) {
        links[i] = (struct cfa_monitor_link){ .request = &r, .index = i };
        cfa_assert("a waiting thread owns every monitor of its mutex call", owns(self, g->monitors[i]));
        cfa_assert("a waiting thread's recursion count is a count, not a waitfor grant",
                   g->monitors[i]->nested != NESTED_GRANTED);
    }
    cfa_queue_push_back(&c->waiters, &r.waiting);
    struct wake_list w;
    w.count = 0; /* not an initializer: that would zero all the slots */
    for (unsigned i = 0; i < n; i++) {
        struct cfa_monitor *m = g->monitors[i];
        spin_lock(&m->lock);
        recursion[i] = m->nested + 1;
        release_locked(m, &w);
        spin_unlock(&m->lock);
        wake_all(&w, i + 1 == n);
    }
    /* Nobody can grant r before the threads just woken have run (they own
     * its monitors now), so this parks: the last of them may run next. */
    park_until_granted(&r, "condition wait");
}

bool cfa_signal(struct cfa_condition *c)
{
    struct cfa_thread *self = self_or_fatal("signal");
    struct cfa_monitor_request *r = waiter_of(cfa_queue_peek(&c->waiters));
    if (!r)
        return false;
    check_owns_all(self, r->monitors, r->count, "signal");
    cfa_queue_pop_front(&c->waiters);
    /* The waiter gets its monitors back as we let go of each. */
    for (unsigned i = 0; i < r->count; i++) {
        struct cfa_monitor *m = r->monitors[i];
        spin_lock(&m->lock);
        cfa_queue_push_back(&m->urgent, &r->links[i].link);
        mark_queued_by_owner(m);
        spin_unlock(&m->lock);
    }
    return true;
}

bool cfa_signal_block(struct cfa_condition *c)
{
    struct cfa_thread *self = self_or_fatal("signal_block");
    struct cfa_monitor_request *r = waiter_of(cfa_queue_peek(&c->waiters));
    if (!r)
        return false;
    check_owns_all(self, r->monitors, r->count, "signal_block");
    cfa_queue_pop_front(&c->waiters);
    unsigned n = r->count;
    unsigned recursion[n];
    struct cfa_monitor_link links[n];
    struct cfa_monitor_request back = {
        .thread = self, .monitors = r->monitors, .count = n, .recursion = recursion,
        .remaining = n, .links = links,
    };
    struct wake_list w;
    w.count = 0; /* not an initializer: that would zero all the slots */
    for (unsigned i = 0; i < n; i++) {
        struct cfa_monitor *m = r->monitors[i];
        links[i] = (struct cfa_monitor_link){ .request = &back, .index = i };
        spin_lock(&m->lock);
        /* The waiter first, at once; then us, before anyone else. */
        cfa_queue_push_front(&m->urgent, &links[i].link);
        cfa_queue_push_front(&m->urgent, &r->links[i].link);
        recursion[i] = m->nested + 1;
        release_locked(m, &w);
        spin_unlock(&m->lock);
        wake_all(&w, i + 1 == n); /* as in cfa_wait: we block next */
    }
    park_until_granted(&back, "signal_block");
    return true;
}

bool cfa_condition_empty(const struct cfa_condition *c) { return cfa_queue_empty(&c->waiters); }

uintptr_t cfa_condition_front(const struct cfa_condition *c)
{
    if (cfa_queue_empty(&c->waiters))
        cfa_fatal("front of an empty condition");
    return waiter_of(cfa_queue_peek(&c->waiters))->info;
}

/* ---- external scheduling ---------------------------------------------------- */

unsigned cfa_monitor_entry_count(struct cfa_monitor *m)
{
    unsigned n = 0;
    spin_lock(&m->lock);
    cfa_queue_foreach(l, &m->entry)
        n++;
    spin_unlock(&m->lock);
    return n;
}

static void lock_all(struct cfa_monitor **m, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        spin_lock(&m[i]->lock);
}

static void unlock_all(struct cfa_monitor **m, unsigned n)
{
    for (unsigned i = n; i-- > 0;)
        spin_unlock(&m[i]->lock);
}

/* The call to accept among those queued on the monitors `owned` (locked):
 * the oldest one of the first clause, in order, that has any (lexical
 * priority, as in Cforall and uC++). A matching call is queued on one of
 * them: it blocked on the first monitor of its group it could not take,
 * and the acceptor holds every clause monitor. NULL if none. */
static struct cfa_monitor_link *first_accepted(const struct cfa_waitfor_clause *clauses, unsigned n,
                                                struct cfa_monitor **owned, unsigned count,
                                                int *clause, struct cfa_monitor **where)
{
    for (unsigned k = 0; k < n; k++) {
        struct cfa_monitor_link *best = NULL;
        for (unsigned i = 0; i < count; i++) {
            struct cfa_monitor *m = owned[i];
            cfa_queue_foreach(it, &m->entry) {
                struct cfa_monitor_link *l = link_of(it);
                if (!clause_accepts(&clauses[k], l->request->group))
                    continue;
                if (!best || l->request->arrival < best->request->arrival) {
                    best = l;
                    *where = m;
                }
                break; /* later ones on this queue are younger */
            }
        }
        if (best) {
            *clause = (int)k;
            return best;
        }
    }
    return NULL;
}

/* Sorts every clause's monitors and checks that the caller holds them;
 * returns how many there are in all. */
static unsigned prepare_clauses(struct cfa_thread *self, const struct cfa_waitfor_clause *clauses, unsigned n)
{
    unsigned total = 0;
    for (unsigned k = 0; k < n; k++) {
        const struct cfa_waitfor_clause *c = &clauses[k];
        if (c->count == 0)
            cfa_fatal("waitfor: a clause without a monitor");
        for (unsigned i = 1; i < c->count; i++) { /* insertion sort: clauses are short */
            struct cfa_monitor *x = c->monitors[i];
            unsigned j = i;
            for (; j > 0 && c->monitors[j - 1] > x; j--)
                c->monitors[j] = c->monitors[j - 1];
            c->monitors[j] = x;
        }
        for (unsigned i = 0; i < c->count; i++)
            if (!owns(self, c->monitors[i]))
                cfa_fatal("waitfor on a monitor the thread does not hold (waitfor must be inside a "
                          "mutex call on it, or in the thread's own main)");
        total += c->count;
    }
    return total;
}

/* Points every monitor of owned (locked) at accept, or clears the ones that
 * still point at it (accept == NULL: `was`). */
static void set_acceptor(struct cfa_monitor **owned, unsigned count, struct cfa_accept *accept,
                         const struct cfa_accept *was)
{
    for (unsigned i = 0; i < count; i++)
        if (accept || owned[i]->acceptor == was)
            owned[i]->acceptor = accept;
}

int cfa_waitfor(const struct cfa_waitfor_clause *clauses, unsigned n, int64_t timeout_ns, bool nonblocking)
{
    struct cfa_thread *self = self_or_fatal("waitfor");
    struct cfa_mutex_group *g = self->mutex_group;
    unsigned total = prepare_clauses(self, clauses, n);
    if (n == 0) {
        if (nonblocking)
            return CFA_WAITFOR_ELSE;
        if (timeout_ns < 0)
            return CFA_WAITFOR_NONE; /* every clause disabled: the statement does nothing */
        cfa_sleep_ns(timeout_ns);
        return CFA_WAITFOR_TIMEOUT;
    }

    /* The monitors we may hand over: the clauses' and the current call's.
     * A matching call may block on any of them (the first of its group it
     * cannot take), so each points at the accept while we wait. */
    unsigned cap = total + (g ? g->count : 0);
    struct cfa_monitor *owned[cap];
    unsigned count = 0;
    for (unsigned k = 0; k < n; k++)
        for (unsigned i = 0; i < clauses[k].count; i++)
            owned[count++] = clauses[k].monitors[i];
    for (unsigned i = 0; g && i < g->count; i++)
        owned[count++] = g->monitors[i];
    count = cfa_sort_monitors(owned, count);

    unsigned recursion[count];
    struct cfa_monitor_link links[count];
    struct cfa_timed_park timed;
    struct cfa_monitor_request back = {
        .thread = self, .monitors = owned, .count = count, .recursion = recursion,
        .remaining = 0, .links = links,
    };
    for (unsigned i = 0; i < count; i++)
        links[i] = (struct cfa_monitor_link){ .request = &back, .index = i };
    struct cfa_accept accept = {
        .thread = self, .clauses = clauses, .nclauses = n, .state = ACCEPT_OPEN, .fired = -1, .back = &back,
    };

    lock_all(owned, count);
    int clause;
    struct cfa_monitor *where;
    struct cfa_monitor_link *l = first_accepted(clauses, n, owned, count, &clause, &where);
    if (l) {
        /* A call is already waiting: let it in now. */
        struct cfa_monitor_request *caller = l->request;
        cfa_queue_remove(&where->entry, &l->link);
        atomic_store(&accept.state, ACCEPT_TAKEN);
        accept.fired = clause;
        struct cfa_thread *c = caller->thread;
        accept_hand_off(&accept, where, c, caller->group, caller->group_index, true);
        unlock_all(owned, count);
        grant(caller, c, false);
        park_until_granted(&back, "waitfor");
        return accept.fired;
    }
    if (nonblocking) {
        unlock_all(owned, count);
        return CFA_WAITFOR_ELSE;
    }
    if (timeout_ns >= 0) {
        cfa_timed_park_init(&timed);
        back.timed = &timed;
    }
    set_acceptor(owned, count, &accept, NULL);
    unlock_all(owned, count);

    if (timeout_ns >= 0 && cfa_park_timeout_ns(&timed, timeout_ns) == CFA_PARK_TIMED_OUT) {
        int open = ACCEPT_OPEN;
        if (atomic_compare_exchange_strong(&accept.state, &open, ACCEPT_TIMED_OUT)) {
            lock_all(owned, count);
            set_acceptor(owned, count, NULL, &accept);
            unlock_all(owned, count);
            return CFA_WAITFOR_TIMEOUT;
        }
        /* A caller claimed the accept just before the timeout: wait for it. */
    }
    while (atomic_load(&accept.state) != ACCEPT_TAKEN)
        cfa_park_for("waitfor");
    park_until_granted(&back, "waitfor");
    lock_all(owned, count);
    set_acceptor(owned, count, NULL, &accept);
    unlock_all(owned, count);
    return accept.fired;
}
