/* pthread_wait.c: waiting and waking for the pthread synchronisation
 * objects (the protocol is in pthread_wait.h). */
#include "pthread_wait.h"

#include <cfa/runtime.h>
#include <cfa/test_hook.h>
#include <dlfcn.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

__thread char pt_kthread_token __attribute__((tls_model("initial-exec")));

void pt_waiter_init(struct pt_waiter *w, int want, int64_t deadline)
{
    cfa_qlink_init(&w->link);
    w->thread = cfa_this_thread();
    w->id = pt_self();
    atomic_store_explicit(&w->granted, 0, memory_order_relaxed);
    w->want = want;
    w->timed = w->thread && deadline != PT_NO_DEADLINE;
    w->popped = false;
    if (w->timed)
        cfa_timed_park_init(&w->park);
}

void pt_spin_pause(unsigned *spins)
{
    if (++*spins % 64) {
        __builtin_ia32_pause();
        return;
    }
    if (cfa_this_thread())
        cfa_yield();
    else
        sched_yield();
}

void pt_qlock_slow(_Atomic unsigned *word, unsigned bit)
{
    unsigned spins = 0;
    for (;;) {
        unsigned v = atomic_load_explicit(word, memory_order_relaxed);
        if (!(v & bit) && atomic_compare_exchange_weak_explicit(word, &v, v | bit, memory_order_acquire,
                                                                memory_order_relaxed))
            return;
        pt_spin_pause(&spins);
    }
}

/* `granted` of a user thread's untimed wait while pt_grant unparks it:
 * the thread, awake early by a stray permit, waits for GRANTED instead of
 * returning, so it cannot end while the waker still reaches it. */
enum { GRANTED = 1, GRANTING = 2 };

/* After step 2 or a popped waiter's step 3: pt_grant is on its way. */
static void await_granted(struct pt_waiter *w)
{
    unsigned spins = 0;
    while (atomic_load_explicit(&w->granted, memory_order_acquire) != GRANTED)
        pt_spin_pause(&spins);
}

static long futex(_Atomic int *addr, int op, int val, const struct timespec *ts)
{
    return syscall(SYS_futex, addr, op, val, ts, NULL, FUTEX_BITSET_MATCH_ANY);
}

/* A kernel thread's wait: the futex on `granted`, against an absolute
 * CLOCK_MONOTONIC deadline. True once granted, false at the deadline. */
static bool kthread_wait(struct pt_waiter *w, int64_t deadline)
{
    struct timespec ts = { .tv_sec = deadline / 1000000000, .tv_nsec = deadline % 1000000000 };
    while (!atomic_load_explicit(&w->granted, memory_order_acquire)) {
        long r = futex(&w->granted, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, 0,
                       deadline == PT_NO_DEADLINE ? NULL : &ts);
        if (r != 0 && errno == ETIMEDOUT)
            return atomic_load_explicit(&w->granted, memory_order_acquire);
    }
    return true;
}

int pt_wait(_Atomic unsigned *word, unsigned bit, struct pt_queue *q, struct pt_waiter *w,
            int64_t deadline, const char *reason)
{
    pt_qunlock(word, bit);
    bool granted;
    if (!w->thread) {
        int saved = errno;
        granted = kthread_wait(w, deadline);
        errno = saved;
    } else if (!w->timed) {
        /* One park pairs with the waker's one unpark; the loop only
         * absorbs permits the thread was given elsewhere. */
        do
            cfa_park_for(reason);
        while (!atomic_load_explicit(&w->granted, memory_order_acquire));
        await_granted(w); /* GRANTING: the waker is a few instructions away */
        return 0;
    } else {
        granted = cfa_park_deadline_ns(&w->park, deadline) == CFA_PARK_WOKEN;
    }
    if (!granted) {
        /* Step 3: the deadline passed; a waker may still have taken w. */
        pt_qlock(word, bit);
        bool popped = w->popped;
        if (!popped)
            pt_remove(q, w);
        pt_qunlock(word, bit);
        if (!popped)
            return ETIMEDOUT;
    }
    await_granted(w); /* the waker's last touch */
    return 0;
}

void pt_grant(struct pt_waiter *w)
{
    struct cfa_thread *t = w->thread;
    if (!t) {
        atomic_store_explicit(&w->granted, GRANTED, memory_order_release);
        /* w may be gone already: a stray wake of whatever futex uses that
         * address later is harmless, futex waits loop. */
        futex(&w->granted, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL);
    } else if (w->timed) {
        /* false: the timeout won, and the waiter waits for `granted`;
         * true: it returns from its park and waits for `granted` too. */
        cfa_unpark_timed(&w->park);
        atomic_store_explicit(&w->granted, GRANTED, memory_order_release);
    } else {
        /* Unpark, then the last touch of the record: a waiter awake early
         * (a stray permit) sees GRANTING and waits for it. */
        atomic_store_explicit(&w->granted, GRANTING, memory_order_release);
        if (cfa_test_hook)
            cfa_test_hook(CFA_STEP_WAKE_CLAIMED);
        cfa_unpark(t);
        atomic_store_explicit(&w->granted, GRANTED, memory_order_release);
    }
}

void pt_grant_all(struct pt_waiter *list)
{
    for (struct pt_waiter *w = list, *next; w; w = next) {
        next = pt_waiter_of(cfa_qlink_take_next(&w->link)); /* w may be gone once granted */
        pt_grant(w);
    }
}

int pt_deadline(const struct timespec *abstime, clockid_t clock, int64_t *deadline)
{
    if (abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000)
        return EINVAL;
    struct timespec now;
    if (clock_gettime(clock, &now) != 0)
        return EINVAL;
    __int128 left = (__int128)(abstime->tv_sec - now.tv_sec) * 1000000000 + (abstime->tv_nsec - now.tv_nsec);
    __int128 at = (__int128)cfa_clock_ns() + left;
    *deadline = at >= PT_NO_DEADLINE ? PT_NO_DEADLINE - 1 : at < 0 ? 0 : (int64_t)at;
    return 0;
}

#ifndef CFA_STATIC_LIBC
PT_BEFORE_SANITIZER void *pt_real_lookup(const char *name, void *_Atomic *slot)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        /* The shared runtime (libcfa.so) may be loaded after the C library,
         * so that nothing follows it; ask the C library itself. */
        void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
        f = libc ? dlsym(libc, name) : NULL;
    }
    if (!f)
        cfa_fatal("glibc's %s is not found (dlsym: %s)", name, dlerror());
    atomic_store_explicit(slot, f, memory_order_relaxed);
    return f;
}
#endif
