/* pthread_rwlock.c: readers-writer locks that block only the calling user
 * thread (the shared protocol is in pthread_wait.h).
 *
 * State, inside glibc's pthread_rwlock_t: a word whose bit QLOCK is the
 * queue lock, the number of readers inside, the writer inside (pt_self(),
 * 0 if none), the FIFO of waiting readers and writers; glibc's __flags
 * (the preference, where PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP
 * puts it) and __shared (process-shared: glibc's lock) keep their places.
 *
 * Preference as glibc: by default a reader enters whenever no writer is
 * inside, even with writers waiting (so a thread may take read locks
 * recursively); with PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP readers
 * wait behind a waiting writer. When the lock becomes free it goes to the
 * oldest waiter: a writer alone, or readers (every waiting reader, or with
 * writer preference those before the first writer).
 */
#include "pthread_wait.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

PT_UNIT(rwlock);

enum { QLOCK = 1, WANT_READ = 0, WANT_WRITE = 1 };

struct pt_rwlock {
    _Atomic unsigned word;
    unsigned         readers;
    uintptr_t        writer;
    char             spare[12];
    int              glibc_shared;
    struct pt_queue  queue;
    unsigned         flags;
};
_Static_assert(sizeof(struct pt_rwlock) <= sizeof(pthread_rwlock_t), "fits glibc's rwlock");
_Static_assert(offsetof(struct pt_rwlock, glibc_shared) == offsetof(pthread_rwlock_t, __data.__shared),
               "the process-shared mark stays");
_Static_assert(offsetof(struct pt_rwlock, flags) == offsetof(pthread_rwlock_t, __data.__flags),
               "the preference stays where the initialisers put it");

static inline bool is_glibc(const struct pt_rwlock *x) { return x->glibc_shared != 0; }
static inline bool prefers_writers(const struct pt_rwlock *x)
{
    return x->flags == PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP;
}

static bool writer_waiting(const struct pt_rwlock *x)
{
    cfa_queue_foreach(l, &x->queue.waiters)
        if (pt_waiter_of(l)->want == WANT_WRITE)
            return true;
    return false;
}

/* Under QLOCK, with the lock free: hands it to the oldest waiter(s).
 * Returns them, linked by `link`, to be granted once QLOCK is let go. */
static struct pt_waiter *hand_over(struct pt_rwlock *x)
{
    struct pt_waiter *w = pt_waiter_of(cfa_queue_peek(&x->queue.waiters));
    if (!w)
        return NULL;
    if (w->want == WANT_WRITE) {
        pt_pop(&x->queue);
        x->writer = w->id;
        return w;
    }
    struct cfa_queue granted = { 0 };
    for (struct cfa_qlink *l = cfa_queue_peek(&x->queue.waiters), *next; l; l = next) {
        next = l->next;
        w = pt_waiter_of(l);
        if (w->want == WANT_WRITE) {
            if (prefers_writers(x))
                break;
            continue;
        }
        pt_remove(&x->queue, w);
        w->popped = true;
        x->readers++;
        cfa_queue_push_back(&granted, l);
    }
    return pt_waiter_of(cfa_queue_take_all(&granted));
}

/* deadline: PT_NO_DEADLINE, or -1 for a try. */
static int take(struct pt_rwlock *x, int want, int64_t deadline, const char *reason)
{
    uintptr_t self = pt_self();
    pt_qlock(&x->word, QLOCK);
    if (x->writer == self) {
        pt_qunlock(&x->word, QLOCK);
        return deadline < 0 ? EBUSY : EDEADLK;
    }
    bool free_now = want == WANT_READ
        ? !x->writer && !(prefers_writers(x) && writer_waiting(x))
        : !x->writer && x->readers == 0;
    if (free_now) {
        if (want == WANT_READ) {
            if (x->readers == UINT_MAX) {
                pt_qunlock(&x->word, QLOCK);
                return EAGAIN;
            }
            x->readers++;
        } else {
            x->writer = self;
        }
        pt_qunlock(&x->word, QLOCK);
        return 0;
    }
    if (deadline < 0) {
        pt_qunlock(&x->word, QLOCK);
        return EBUSY;
    }
    struct pt_waiter w;
    pt_waiter_init(&w, want, deadline);
    pt_push(&x->queue, &w);
    return pt_wait(&x->word, QLOCK, &x->queue, &w, deadline, reason);
}

static int take_by(struct pt_rwlock *x, int want, clockid_t clock, const struct timespec *abstime)
{
    int r = take(x, want, -1, NULL);
    if (r != EBUSY)
        return r;
    int64_t deadline;
    if ((r = pt_deadline(abstime, clock, &deadline)))
        return r;
    return take(x, want, deadline, want == WANT_READ ? "pthread_rwlock_rdlock" : "pthread_rwlock_wrlock");
}

int pthread_rwlock_init(pthread_rwlock_t *l, const pthread_rwlockattr_t *attr)
{
    int pshared = PTHREAD_PROCESS_PRIVATE, kind = PTHREAD_RWLOCK_DEFAULT_NP;
    if (attr) {
        pthread_rwlockattr_getpshared(attr, &pshared);
        pthread_rwlockattr_getkind_np(attr, &kind);
    }
    if (pshared != PTHREAD_PROCESS_PRIVATE)
        return pt_real(pthread_rwlock_init)(l, attr);
    memset(l, 0, sizeof *l);
    ((struct pt_rwlock *)l)->flags = kind;
    return 0;
}

int pthread_rwlock_destroy(pthread_rwlock_t *l)
{
    struct pt_rwlock *x = (struct pt_rwlock *)l;
    if (is_glibc(x))
        return pt_real(pthread_rwlock_destroy)(l);
    return 0;
}

#define RWLOCK_CALLS(op, want, glibc_try, glibc_lock, glibc_timed, glibc_clock)               \
    int pthread_rwlock_try##op(pthread_rwlock_t *l)                                            \
    {                                                                                          \
        struct pt_rwlock *x = (struct pt_rwlock *)l;                                           \
        return is_glibc(x) ? pt_real(glibc_try)(l) : take(x, want, -1, NULL);                  \
    }                                                                                          \
    int pthread_rwlock_##op(pthread_rwlock_t *l)                                               \
    {                                                                                          \
        struct pt_rwlock *x = (struct pt_rwlock *)l;                                           \
        return is_glibc(x) ? pt_real(glibc_lock)(l)                                            \
                           : take(x, want, PT_NO_DEADLINE, "pthread_rwlock_" #op);             \
    }                                                                                          \
    int pthread_rwlock_timed##op(pthread_rwlock_t *l, const struct timespec *abstime)          \
    {                                                                                          \
        struct pt_rwlock *x = (struct pt_rwlock *)l;                                           \
        return is_glibc(x) ? pt_real(glibc_timed)(l, abstime)                                  \
                           : take_by(x, want, CLOCK_REALTIME, abstime);                        \
    }                                                                                          \
    int pthread_rwlock_clock##op(pthread_rwlock_t *l, clockid_t clock, const struct timespec *abstime) \
    {                                                                                          \
        struct pt_rwlock *x = (struct pt_rwlock *)l;                                           \
        return is_glibc(x) ? pt_real(glibc_clock)(l, clock, abstime)                           \
                           : take_by(x, want, clock, abstime);                                 \
    }

RWLOCK_CALLS(rdlock, WANT_READ, pthread_rwlock_tryrdlock, pthread_rwlock_rdlock,
             pthread_rwlock_timedrdlock, pthread_rwlock_clockrdlock)
RWLOCK_CALLS(wrlock, WANT_WRITE, pthread_rwlock_trywrlock, pthread_rwlock_wrlock,
             pthread_rwlock_timedwrlock, pthread_rwlock_clockwrlock)

int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
    struct pt_rwlock *x = (struct pt_rwlock *)l;
    if (is_glibc(x))
        return pt_real(pthread_rwlock_unlock)(l);
    pt_qlock(&x->word, QLOCK);
    int r = 0;
    if (x->writer)
        x->writer = 0;
    else if (x->readers)
        x->readers--;
    else
        r = EPERM;
    struct pt_waiter *granted = !x->writer && !x->readers ? hand_over(x) : NULL;
    pt_qunlock(&x->word, QLOCK);
    pt_grant_all(granted);
    return r;
}
