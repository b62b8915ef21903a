/* pthread_wait.h: what the pthread synchronisation objects share.
 *
 * The runtime defines the pthread synchronisation functions itself
 * (pthread_mutex.c, pthread_cond.c, pthread_rwlock.c, pthread_spin.c,
 * pthread_barrier.c, pthread_sem.c), so the program's calls and those of
 * the shared libraries it loads bind to them instead of glibc's. Each
 * object keeps its state inside glibc's storage for it (same size; the
 * fields glibc's static initialisers and process-shared attribute set keep
 * their places), so every initialiser of <pthread.h> gives a valid object.
 *
 * Every object has an internal queue lock (one bit of a word in the
 * object) guarding its state and a FIFO queue of waiters. A waiter is a
 * record on the waiting thread's stack:
 *   - a user thread parks, so only that thread stops;
 *   - a kernel thread that is not running a user thread (a program's own
 *     kernel thread, a processor's scheduler, code before the runtime
 *     started) waits on a futex in the record.
 * Both kinds wait in the same queue, so one object serves both.
 *
 * Protocol (every object):
 *   1. the waiter fills its record (pt_waiter_init), takes the queue lock,
 *      finds it must wait, queues the record and calls pt_wait, which lets
 *      the queue lock go and blocks;
 *   2. a waker, under the queue lock, takes the record off the queue
 *      (pt_pop marks it `popped`) and sets up what the waiter is being
 *      given (the mutex, a read lock, ...); once it has let the queue lock
 *      go, it calls pt_grant, which unparks a user thread and then, its
 *      last touch of the record, sets `granted`. So the waiter returns
 *      only after the waker is done with the object and with the waiting
 *      thread too: the waiter may destroy the object at once (POSIX allows
 *      that for a semaphore or a barrier, or a mutex just unlocked), and
 *      its thread may end;
 *   3. a waiter whose deadline passes takes the queue lock: if its record
 *      is still queued it removes it and fails with ETIMEDOUT; if it was
 *      popped, it waits for `granted` and succeeds.
 * The queue lock is held only inside the runtime's code, which preemption
 * never interrupts, so no thread is ever switched out holding it.
 *
 * Objects created with a process-shared, robust or priority-protocol
 * attribute are glibc's own objects and every call forwards to glibc (a
 * user thread blocking on one blocks its processor): see pt_real.
 */
#ifndef CFA_PTHREAD_WAIT_H
#define CFA_PTHREAD_WAIT_H

/* The files that include this one define the interposed functions: the
 * pthread names keep their meaning here (kthread.h). */
#define CFA_PTHREAD_INTERPOSED

#include <cfa/internal/queue.h>
#include <cfa/runtime.h>
#include <errno.h>
#include <stdint.h>
#include <time.h>

#ifdef CFA_STATIC_LIBC
#include "interpose_static.h"
#endif

#define PT_NO_DEADLINE INT64_MAX

/* Who holds an object: the user thread, or, on a kernel thread not running
 * one, a token unique to that kernel thread. Never 0. */
extern __thread char pt_kthread_token __attribute__((tls_model("initial-exec")));
static inline uintptr_t pt_self(void)
{
    struct cfa_thread *t = cfa_this_thread();
    return t ? (uintptr_t)t : (uintptr_t)&pt_kthread_token;
}

struct pt_waiter {
    struct cfa_qlink      link;     /* in the object's queue, or in a list being granted */
    struct cfa_thread    *thread;   /* NULL: a kernel thread, waits on `granted` */
    uintptr_t             id;       /* pt_self() of the waiter */
    _Atomic int           granted;  /* set by the waker (pt_grant) */
    int                   want;     /* what it waits for (the object decides) */
    bool                  timed;    /* a user thread's wait with a deadline */
    bool                  popped;   /* taken off the queue by a waker (queue lock) */
    struct cfa_timed_park park;     /* its timed park, when `timed` */
};

/* The waiters, oldest first (cfa/internal/queue.h); changed under the
 * queue lock only. */
struct pt_queue {
    struct cfa_queue waiters;
};

/* Before the record is queued: binds it to the calling thread. */
void pt_waiter_init(struct pt_waiter *w, int want, int64_t deadline);

static inline struct pt_waiter *pt_waiter_of(struct cfa_qlink *l)
{
    return l ? cfa_queue_entry(l, struct pt_waiter, link) : NULL;
}

/* Without the queue lock: true if nobody was queued when the caller last
 * synchronised with the waiters (e.g. through the mutex of a condition
 * variable). */
static inline bool pt_empty(struct pt_queue *q) { return cfa_queue_empty_unlocked(&q->waiters); }

static inline void pt_push(struct pt_queue *q, struct pt_waiter *w)
{
    cfa_queue_push_back(&q->waiters, &w->link);
}

/* Step 2, under the queue lock: the oldest waiter, marked popped. */
static inline struct pt_waiter *pt_pop(struct pt_queue *q)
{
    struct pt_waiter *w = pt_waiter_of(cfa_queue_pop_front(&q->waiters));
    if (w)
        w->popped = true;
    return w;
}

/* Step 2, under the queue lock: every waiter, in order, linked by
 * `link` (pt_grant_all). */
static inline struct pt_waiter *pt_pop_all(struct pt_queue *q)
{
    cfa_queue_foreach(l, &q->waiters)
        pt_waiter_of(l)->popped = true;
    return pt_waiter_of(cfa_queue_take_all(&q->waiters));
}

/* Removes w from q (under the queue lock); false if it is not there. */
static inline bool pt_remove(struct pt_queue *q, struct pt_waiter *w)
{
    return cfa_queue_remove(&q->waiters, &w->link);
}

/* The queue lock: bit `bit` of *word. Spins, and after a while yields (a
 * user thread) or gives the CPU up (a kernel thread): the holder may be a
 * kernel thread that the OS preempted. */
void pt_qlock_slow(_Atomic unsigned *word, unsigned bit);
static inline void pt_qlock(_Atomic unsigned *word, unsigned bit)
{
    unsigned v = atomic_load_explicit(word, memory_order_relaxed);
    if ((v & bit) || !atomic_compare_exchange_weak_explicit(word, &v, v | bit, memory_order_acquire,
                                                            memory_order_relaxed))
        pt_qlock_slow(word, bit);
}
static inline void pt_qunlock(_Atomic unsigned *word, unsigned bit)
{
    atomic_fetch_and_explicit(word, ~bit, memory_order_release);
}

/* Step 1: called with the queue lock held and w queued on q; lets the lock
 * go and blocks. Returns 0 once granted, ETIMEDOUT when the deadline
 * (CLOCK_MONOTONIC ns, or PT_NO_DEADLINE) passed first: w is then off q.
 * `reason` names the wait in deadlock reports. */
int pt_wait(_Atomic unsigned *word, unsigned bit, struct pt_queue *q, struct pt_waiter *w,
            int64_t deadline, const char *reason);

/* Step 2, once the queue lock is let go: w (popped) may run on. */
void pt_grant(struct pt_waiter *w);
/* The same for a list linked by `link` (pt_pop_all). */
void pt_grant_all(struct pt_waiter *list);

/* A deadline in CLOCK_MONOTONIC ns for an absolute time on `clock`;
 * EINVAL for a malformed time or an unsupported clock. */
int pt_deadline(const struct timespec *abstime, clockid_t clock, int64_t *deadline);

/* Spinning: pause, and every so often give the processor (or CPU) up. */
void pt_spin_pause(unsigned *spins);

/* Each file that interposes libc functions names itself with PT_UNIT, and
 * pthread_glibc.c (always linked) refers to every unit: so the file is
 * linked into every program, even one that never names its functions
 * (the shared libraries it loads still must find them), and even where a
 * sanitizer's runtime defines the same functions weakly (its definitions
 * would satisfy a reference to the functions themselves). */
#define PT_UNIT(name) const char pt_unit_##name = 0

/* For the functions a sanitizer's runtime calls while it starts (ThreadSanitizer
 * creates a key before it can record anything): no instrumentation. */
#define PT_BEFORE_SANITIZER __attribute__((disable_sanitizer_instrumentation))

#ifdef CFA_STATIC_LIBC
/* glibc's definition of a function the runtime interposes: the linker's
 * name for it under --wrap (interpose_static.h). */
#define pt_real(name)                           \
    ({                                          \
        extern __typeof__(name) __real_##name; \
        &__real_##name;                         \
    })
#else
/* glibc's definition of a function the runtime interposes (dlsym
 * RTLD_NEXT, looked up once). */
PT_BEFORE_SANITIZER void *pt_real_lookup(const char *name, void *_Atomic *slot);
#define pt_real(name)                                                        \
    ({                                                                       \
        static void *_Atomic pt_real_slot_;                                  \
        void *f_ = atomic_load_explicit(&pt_real_slot_, memory_order_relaxed); \
        (__typeof__(&name))(f_ ? f_ : pt_real_lookup(#name, &pt_real_slot_)); \
    })
#endif

/* glibc's function `name`, through a sanitizer's interceptor when the
 * program has one (declare it with PT_INTERCEPTOR): the sanitizer must
 * see the calls the runtime makes for the program. */
#define PT_INTERCEPTOR(ret, name, ...) \
    extern ret __interceptor_##name(__VA_ARGS__) __attribute__((weak))
#define pt_glibc_call(name, ...) \
    (__interceptor_##name ? __interceptor_##name(__VA_ARGS__) : pt_real(name)(__VA_ARGS__))

#endif
