/* pthread_mutex.c: pthread mutexes that block only the calling user
 * thread (the shared protocol is in pthread_wait.h).
 *
 * State, inside glibc's pthread_mutex_t:
 *   word   LOCKED | QLOCK | WAITERS        (glibc's __lock)
 *   count  extra acquisitions of a recursive mutex by its owner
 *   owner  pt_self() of the holder, 0 when free
 *   kind   glibc's __kind, where the static initialisers put the type
 *   queue  the waiters, FIFO
 *
 * Invariants: LOCKED is set exactly while someone holds the mutex; the
 * waiter at the head of the queue is handed the mutex directly by unlock
 * (LOCKED stays set, owner becomes the waiter), so a woken waiter never
 * finds it taken again. WAITERS is set whenever the queue is not empty
 * (it may stay set after a timed-out waiter left: unlock then takes the
 * slow path once). A free mutex is taken, and one with an empty queue is
 * let go, by one compare-and-swap on the word.
 *
 * Protocol:
 *   L1. lock: one compare-and-swap of the word from 0 to LOCKED (free, no
 *       waiters, QLOCK not held); done if it succeeds;
 *   L2. otherwise, under QLOCK: a mutex without LOCKED is taken; else the
 *       caller queues its record, sets WAITERS and waits (pt_wait);
 *   U1. unlock: one compare-and-swap of the word from LOCKED to 0; done if
 *       it succeeds (no waiters, QLOCK not held);
 *   U2. otherwise, under QLOCK: the oldest waiter becomes the owner with
 *       LOCKED left set (WAITERS cleared with the last one), and is granted
 *       once QLOCK is let go; with nobody queued, LOCKED and WAITERS clear.
 * A waiter queues (L2) with QLOCK held and the word's QLOCK bit makes U1
 * fail, so an unlock either sees the waiter at U2 or ran before L2 took
 * QLOCK and then L2 finds the mutex free: no waiter sleeps on a free
 * mutex.
 *
 * Types as glibc: a normal mutex relocked by its owner deadlocks and may
 * be unlocked by anyone; error-checking and recursive ones check the
 * owner (EDEADLK, EPERM); the recursive count stops at UINT_MAX (EAGAIN).
 * pthread_cond_wait releases and retakes a mutex through
 * pt_mutex_release_for_wait and pt_mutex_retake_after_wait.
 */
#include "pthread_wait.h"
#include "pthread_mutex.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

PT_UNIT(mutex);

enum { LOCKED = 1, QLOCK = 2, WAITERS = 4 };

struct pt_mutex {
    _Atomic unsigned   word;
    unsigned           count;
    _Atomic uintptr_t  owner;
    int                kind;
    int                spare;
    struct pt_queue    queue;
};
_Static_assert(sizeof(struct pt_mutex) <= sizeof(pthread_mutex_t), "fits glibc's mutex");
_Static_assert(offsetof(struct pt_mutex, kind) == offsetof(pthread_mutex_t, __data.__kind),
               "the type stays where the initialisers put it");

/* glibc's own mutexes: process-shared, robust, priority inheritance or
 * protection (glibc's __kind bits). */
enum { GLIBC_KINDS = 16 | 32 | 64 | 128, TYPE_MASK = 3 };

static inline bool is_glibc(const struct pt_mutex *x) { return x->kind & GLIBC_KINDS; }

static int lock_slow(struct pt_mutex *x, uintptr_t self, int64_t deadline, const char *reason)
{
    pt_qlock(&x->word, QLOCK);
    unsigned v = atomic_load_explicit(&x->word, memory_order_relaxed);
    if (!(v & LOCKED)) {
        /* Under QLOCK no compare-and-swap of the fast paths can succeed. */
        atomic_fetch_or_explicit(&x->word, LOCKED, memory_order_acquire);
        atomic_store_explicit(&x->owner, self, memory_order_relaxed);
        pt_qunlock(&x->word, QLOCK);
        return 0;
    }
    if (deadline < 0) { /* trylock */
        pt_qunlock(&x->word, QLOCK);
        return EBUSY;
    }
    struct pt_waiter w;
    pt_waiter_init(&w, 0, deadline);
    pt_push(&x->queue, &w);
    atomic_fetch_or_explicit(&x->word, WAITERS, memory_order_relaxed);
    return pt_wait(&x->word, QLOCK, &x->queue, &w, deadline, reason);
}

/* deadline: PT_NO_DEADLINE, or -1 for trylock. */
static inline int mutex_take(struct pt_mutex *x, int64_t deadline, const char *reason)
{
    uintptr_t self = pt_self();
    unsigned expected = 0;
    if (atomic_compare_exchange_strong_explicit(&x->word, &expected, LOCKED, memory_order_acquire,
                                                memory_order_relaxed)) {
        atomic_store_explicit(&x->owner, self, memory_order_relaxed);
        return 0;
    }
    int type = x->kind & TYPE_MASK;
    if (type != PTHREAD_MUTEX_NORMAL && type != PTHREAD_MUTEX_ADAPTIVE_NP &&
        atomic_load_explicit(&x->owner, memory_order_relaxed) == self) {
        if (type == PTHREAD_MUTEX_ERRORCHECK)
            return deadline < 0 ? EBUSY : EDEADLK;
        if (x->count == UINT_MAX)
            return EAGAIN;
        x->count++;
        return 0;
    }
    return lock_slow(x, self, deadline, reason);
}

static void unlock_slow(struct pt_mutex *x)
{
    pt_qlock(&x->word, QLOCK);
    struct pt_waiter *w = pt_pop(&x->queue);
    if (!w) {
        atomic_fetch_and_explicit(&x->word, ~(unsigned)(LOCKED | WAITERS), memory_order_release);
    } else {
        if (cfa_queue_empty(&x->queue.waiters))
            atomic_fetch_and_explicit(&x->word, ~(unsigned)WAITERS, memory_order_relaxed);
        atomic_store_explicit(&x->owner, w->id, memory_order_relaxed); /* hand-over: LOCKED stays */
    }
    pt_qunlock(&x->word, QLOCK);
    if (w)
        pt_grant(w);
}

static inline void mutex_let_go(struct pt_mutex *x)
{
    atomic_store_explicit(&x->owner, 0, memory_order_relaxed);
    unsigned expected = LOCKED;
    if (!atomic_compare_exchange_strong_explicit(&x->word, &expected, 0, memory_order_release,
                                                 memory_order_relaxed))
        unlock_slow(x);
}

int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr)
{
    int type = PTHREAD_MUTEX_DEFAULT, pshared = PTHREAD_PROCESS_PRIVATE,
        robust = PTHREAD_MUTEX_STALLED, protocol = PTHREAD_PRIO_NONE;
    if (attr) {
        pthread_mutexattr_gettype(attr, &type);
        pthread_mutexattr_getpshared(attr, &pshared);
        pthread_mutexattr_getrobust(attr, &robust);
        pthread_mutexattr_getprotocol(attr, &protocol);
    }
    if (pshared != PTHREAD_PROCESS_PRIVATE || robust != PTHREAD_MUTEX_STALLED || protocol != PTHREAD_PRIO_NONE)
        return pt_real(pthread_mutex_init)(m, attr);
    memset(m, 0, sizeof *m);
    ((struct pt_mutex *)m)->kind = type;
    return 0;
}

int pthread_mutex_destroy(pthread_mutex_t *m)
{
    struct pt_mutex *x = (struct pt_mutex *)m;
    if (is_glibc(x))
        return pt_real(pthread_mutex_destroy)(m);
    return atomic_load_explicit(&x->word, memory_order_relaxed) & LOCKED ? EBUSY : 0;
}

int pthread_mutex_lock(pthread_mutex_t *m)
{
    struct pt_mutex *x = (struct pt_mutex *)m;
    if (is_glibc(x))
        return pt_real(pthread_mutex_lock)(m);
    return mutex_take(x, PT_NO_DEADLINE, "pthread_mutex_lock");
}

int pthread_mutex_trylock(pthread_mutex_t *m)
{
    struct pt_mutex *x = (struct pt_mutex *)m;
    if (is_glibc(x))
        return pt_real(pthread_mutex_trylock)(m);
    return mutex_take(x, -1, NULL);
}

int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clock, const struct timespec *abstime)
{
    struct pt_mutex *x = (struct pt_mutex *)m;
    if (is_glibc(x))
        return pt_real(pthread_mutex_clocklock)(m, clock, abstime);
    int r = mutex_take(x, -1, NULL);
    if (r != EBUSY)
        return r;
    int64_t deadline;
    if ((r = pt_deadline(abstime, clock, &deadline)))
        return r;
    return mutex_take(x, deadline, "pthread_mutex_timedlock");
}

int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
    return pthread_mutex_clocklock(m, CLOCK_REALTIME, abstime);
}

int pthread_mutex_unlock(pthread_mutex_t *m)
{
    struct pt_mutex *x = (struct pt_mutex *)m;
    if (is_glibc(x))
        return pt_real(pthread_mutex_unlock)(m);
    int type = x->kind & TYPE_MASK;
    if (type == PTHREAD_MUTEX_ERRORCHECK || type == PTHREAD_MUTEX_RECURSIVE) {
        if (!(atomic_load_explicit(&x->word, memory_order_relaxed) & LOCKED) ||
            atomic_load_explicit(&x->owner, memory_order_relaxed) != pt_self())
            return EPERM;
        if (x->count) {
            x->count--;
            return 0;
        }
    }
    mutex_let_go(x);
    return 0;
}

int pt_mutex_release_for_wait(pthread_mutex_t *m, unsigned *count)
{
    struct pt_mutex *x = (struct pt_mutex *)m;
    *count = 0;
    if (is_glibc(x))
        return pt_real(pthread_mutex_unlock)(m);
    int type = x->kind & TYPE_MASK;
    if ((type == PTHREAD_MUTEX_ERRORCHECK || type == PTHREAD_MUTEX_RECURSIVE) &&
        (!(atomic_load_explicit(&x->word, memory_order_relaxed) & LOCKED) ||
         atomic_load_explicit(&x->owner, memory_order_relaxed) != pt_self()))
        return EPERM;
    *count = x->count;
    x->count = 0;
    mutex_let_go(x);
    return 0;
}

void pt_mutex_retake_after_wait(pthread_mutex_t *m, unsigned count)
{
    struct pt_mutex *x = (struct pt_mutex *)m;
    if (is_glibc(x)) {
        pt_real(pthread_mutex_lock)(m);
        return;
    }
    if (mutex_take(x, PT_NO_DEADLINE, "pthread_cond_wait (retaking the mutex)") == 0)
        x->count = count;
}
