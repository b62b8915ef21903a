/* pthread_thread.c: pthread_create and the calls on the threads it makes.
 *
 * A thread made by pthread_create is a user thread: a struct pt_thread
 * whose first member is its cfa_thread, so a pthread_t is the address of
 * the cfa_thread and pthread_self() on any user thread (one a `thread`
 * type made, the program's main thread) is its cfa_thread. A glibc thread
 * (a kernel thread that is not a processor) keeps glibc's pthread_t: the
 * first word of glibc's thread descriptor points to itself, which no
 * cfa_thread's does, so each call tells the two apart (is_kernel).
 *
 * Lifecycle of a pt_thread:
 *   1. pthread_create allocates it and starts the user thread (on the
 *      caller's cluster; the first call may grow the main cluster first);
 *   2. its main runs the start routine (pthread_exit jumps back to the
 *      end), the key destructors, then sets `finished` and releases the
 *      joiners (queue lock and queue of pthread_wait.h);
 *   3. the user thread halts; its storage is freed by its joiner, or, if
 *      detached, by the next pthread_create or pthread_detach once the
 *      thread is HALTED (the reap list).
 * `claim` makes join and detach exclusive: JOINABLE -> JOINED or DETACHED.
 */
#include "pthread_wait.h"
#include "cluster.h"
#include "pthread_thread.h"
#include "kthread.h"
#include "pthread_key.h"
#include "resize_lock.h"
#include "stack.h"

#include <cfa/runtime.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

PT_UNIT(thread);

enum { QLOCK = 1, JOINABLE = 0, JOINED = 1, DETACHED = 2 };

struct pt_thread {
    struct cfa_thread  thread;   /* first: pthread_t is its address */
    void            *(*start)(void *);
    void              *arg;
    void              *result;
    jmp_buf            exit_to;  /* pthread_exit's way out of the start routine */
    _Atomic int        claim;
    _Atomic unsigned   word;     /* QLOCK over finished and joiners */
    bool               finished;
    struct pt_queue    joiners;
    struct pt_thread  *_Atomic reap_next;
    char               name[16];
};

static const char pthread_type_name[] = "pthread";

/* ---- telling threads apart --------------------------------------------- */

/* A kernel thread's pthread_t is glibc's thread descriptor, whose first
 * word points to itself (written by glibc before the thread starts). Not
 * instrumented: ThreadSanitizer calls pthread_getattr_np as each thread
 * starts, before it has seen that write, and in a child of fork its report
 * of the "race" crashes it. */
__attribute__((no_sanitize("thread"))) static inline bool is_kernel(pthread_t t)
{
    return *(void **)t == (void *)t;
}

static inline struct pt_thread *as_pthread(pthread_t t)
{
    struct cfa_thread *c = (struct cfa_thread *)t;
    return !is_kernel(t) && c->self.type_name == pthread_type_name ? (struct pt_thread *)c : NULL;
}

/* ---- processors: a pthreads program keeps its parallelism --------------- */

static pthread_mutex_t resize_lock = PTHREAD_MUTEX_INITIALIZER;
static int concurrency;                 /* pthread_setconcurrency's level */
static bool cluster_sized;              /* the growth decision was made */
static struct cfa_processor **added;    /* processors started here */
static unsigned nadded, added_cap;

/* Under resize_lock. */
static void resize_main_cluster(unsigned target)
{
    while (cfa_cluster_processor_count(&cfa_main_cluster) < target) {
        if (nadded == added_cap) {
            unsigned cap = added_cap ? 2 * added_cap : 8;
            struct cfa_processor **grown = realloc(added, cap * sizeof *grown);
            if (!grown)
                return;
            added = grown;
            added_cap = cap;
        }
        struct cfa_processor *p = cfa_processor_new(&cfa_main_cluster);
        if (!p)
            return;
        added[nadded++] = p;
    }
    while (nadded && cfa_cluster_processor_count(&cfa_main_cluster) > target)
        cfa_processor_delete(added[--nadded]);
}

static unsigned usable_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

/* At the first pthread_create: one processor per usable CPU, or
 * CFA_PROCESSORS, unless the program chose already (setconcurrency, or
 * processors it started). */
static void size_main_cluster_once(void)
{
    if (__atomic_load_n(&cluster_sized, __ATOMIC_ACQUIRE))
        return;
    pthread_mutex_lock(&resize_lock);
    if (!cluster_sized) {
        unsigned target = 0;
        const char *env = getenv("CFA_PROCESSORS");
        if (env && *env) {
            char *end;
            long n = strtol(env, &end, 10);
            if (*end || n < 1 || n > 4096)
                cfa_fatal("CFA_PROCESSORS=%s is not a number of processors (1 to 4096)", env);
            target = (unsigned)n;
        } else if (concurrency == 0 && cfa_cluster_processor_count(&cfa_main_cluster) <= 1) {
            target = usable_cpus();
        }
        if (target)
            resize_main_cluster(target);
        __atomic_store_n(&cluster_sized, true, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&resize_lock);
}

int pthread_setconcurrency(int level)
{
    if (level < 0)
        return EINVAL;
    pthread_mutex_lock(&resize_lock);
    concurrency = level;
    if (level > 0) {
        resize_main_cluster((unsigned)level);
        __atomic_store_n(&cluster_sized, true, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&resize_lock);
    return 0;
}

int pthread_getconcurrency(void)
{
    pthread_mutex_lock(&resize_lock);
    int level = concurrency;
    pthread_mutex_unlock(&resize_lock);
    return level;
}

/* ---- detached threads' storage ------------------------------------------ */

static struct pt_thread *_Atomic reap_list;

static void reap_later(struct pt_thread *pt)
{
    struct pt_thread *head = atomic_load_explicit(&reap_list, memory_order_relaxed);
    do
        atomic_store_explicit(&pt->reap_next, head, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&reap_list, &head, pt, memory_order_release,
                                                  memory_order_relaxed));
}

static void reap(void)
{
    if (!atomic_load_explicit(&reap_list, memory_order_relaxed))
        return;
    struct pt_thread *pt = atomic_exchange_explicit(&reap_list, NULL, memory_order_acquire), *next;
    for (; pt; pt = next) {
        next = atomic_load_explicit(&pt->reap_next, memory_order_relaxed);
        if (atomic_load_explicit(&pt->thread.state, memory_order_acquire) == CFA_THREAD_HALTED)
            free(pt);
        else
            reap_later(pt);
    }
}

/* ---- the main program's exit waits for the pthreads (pthread_exit) ------ */

static _Atomic long live_pthreads;
static _Atomic unsigned all_done_word;
static struct pt_queue all_done_waiters;

static void pthread_ended(void)
{
    if (atomic_fetch_sub(&live_pthreads, 1) != 1)
        return;
    pt_qlock(&all_done_word, QLOCK);
    struct pt_waiter *all = pt_pop_all(&all_done_waiters);
    pt_qunlock(&all_done_word, QLOCK);
    pt_grant_all(all);
}

static void wait_for_every_pthread(void)
{
    for (;;) {
        struct pt_waiter w;
        pt_waiter_init(&w, 0, PT_NO_DEADLINE);
        pt_qlock(&all_done_word, QLOCK);
        if (atomic_load(&live_pthreads) == 0) {
            pt_qunlock(&all_done_word, QLOCK);
            return;
        }
        pt_push(&all_done_waiters, &w);
        pt_wait(&all_done_word, QLOCK, &all_done_waiters, &w, PT_NO_DEADLINE, "pthread_exit (main)");
    }
}

void pthread_fork_child(struct cfa_thread *survivor)
{
    resize_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    atomic_store(&reap_list, NULL); /* the parent's detached threads: leaked */
    bool alive = survivor && as_pthread((pthread_t)survivor);
    atomic_store(&live_pthreads, alive ? 1 : 0);
    atomic_store(&all_done_word, 0);
    all_done_waiters = (struct pt_queue){ 0 };
}

/* ---- create, exit, join, detach ----------------------------------------- */

static void pthread_main(void *object)
{
    struct pt_thread *pt = object;
    if (!setjmp(pt->exit_to))
        pt->result = pt->start(pt->arg);
    if (pt->thread.specific)
        pt_specific_thread_exit(&pt->thread);
    pt_qlock(&pt->word, QLOCK);
    pt->finished = true;
    struct pt_waiter *joiners = pt_pop_all(&pt->joiners);
    bool detached = atomic_load_explicit(&pt->claim, memory_order_relaxed) == DETACHED;
    pt_qunlock(&pt->word, QLOCK);
    pt_grant_all(joiners);
    if (detached)
        reap_later(pt); /* freed once HALTED */
    pthread_ended();
}

int pthread_create(pthread_t *result, const pthread_attr_t *attr, void *(*start)(void *), void *arg)
{
    size_t stack_size = 0;
    int detach = PTHREAD_CREATE_JOINABLE;
    if (attr) {
        pthread_attr_getstacksize(attr, &stack_size);
        pthread_attr_getdetachstate(attr, &detach);
        void *addr = NULL;
        size_t size = 0;
        if (pthread_attr_getstack(attr, &addr, &size) == 0 && addr)
            stack_size = size; /* a stack of the size asked; the runtime maps it */
    }
    reap();
    size_main_cluster_once();
    struct pt_thread *pt = calloc(1, sizeof *pt);
    if (!pt)
        return EAGAIN;
    pt->start = start;
    pt->arg = arg;
    atomic_store_explicit(&pt->claim, detach == PTHREAD_CREATE_DETACHED ? DETACHED : JOINABLE,
                          memory_order_relaxed);
    atomic_fetch_add(&live_pthreads, 1);
    *result = (pthread_t)&pt->thread;
    cfa_thread_start(&pt->thread, pthread_main, pt, pthread_type_name, stack_size);
    return 0;
}

void pthread_exit(void *result)
{
    struct cfa_thread *t = cfa_this_thread();
    if (!t)
        pt_real(pthread_exit)(result);
    struct pt_thread *pt = as_pthread((pthread_t)t);
    if (pt) {
        pt->result = result;
        longjmp(pt->exit_to, 1);
    }
    if (t->self.type_name && !strcmp(t->self.type_name, "main")) {
        /* The program's main thread: the process ends with the last thread. */
        wait_for_every_pthread();
        exit(0);
    }
    cfa_fatal("pthread_exit on thread %s, which pthread_create did not make (return from its main instead)",
              cfa_thread_name(t));
}

/* deadline: PT_NO_DEADLINE, or -1 for tryjoin. */
static int join(pthread_t t, void **result, int64_t deadline)
{
    struct pt_thread *pt = as_pthread(t);
    if (!pt)
        return EINVAL;
    if ((pthread_t)cfa_this_thread() == t)
        return EDEADLK;
    int expected = JOINABLE;
    if (!atomic_compare_exchange_strong(&pt->claim, &expected, JOINED))
        return EINVAL;
    pt_qlock(&pt->word, QLOCK);
    int r = 0;
    if (!pt->finished) {
        if (deadline < 0) {
            r = EBUSY;
            pt_qunlock(&pt->word, QLOCK);
        } else {
            struct pt_waiter w;
            pt_waiter_init(&w, 0, deadline);
            pt_push(&pt->joiners, &w);
            r = pt_wait(&pt->word, QLOCK, &pt->joiners, &w, deadline, "pthread_join");
        }
    } else {
        pt_qunlock(&pt->word, QLOCK);
    }
    if (r) { /* still running: joinable again */
        atomic_store(&pt->claim, JOINABLE);
        return r;
    }
    /* Finished: HALTED is a few instructions away. */
    unsigned spins = 0;
    while (atomic_load_explicit(&pt->thread.state, memory_order_acquire) != CFA_THREAD_HALTED)
        pt_spin_pause(&spins);
    if (result)
        *result = pt->result;
    free(pt);
    return 0;
}

int pthread_join(pthread_t t, void **result)
{
    return is_kernel(t) ? cfa_kernel_thread_join(t, result) : join(t, result, PT_NO_DEADLINE);
}

int pthread_tryjoin_np(pthread_t t, void **result)
{
    return is_kernel(t) ? pt_real(pthread_tryjoin_np)(t, result) : join(t, result, -1);
}

int pthread_clockjoin_np(pthread_t t, void **result, clockid_t clock, const struct timespec *abstime)
{
    if (is_kernel(t))
        return pt_real(pthread_clockjoin_np)(t, result, clock, abstime);
    int r = join(t, result, -1);
    if (r != EBUSY)
        return r;
    int64_t deadline;
    if ((r = pt_deadline(abstime, clock, &deadline)))
        return r;
    return join(t, result, deadline);
}

int pthread_timedjoin_np(pthread_t t, void **result, const struct timespec *abstime)
{
    return pthread_clockjoin_np(t, result, CLOCK_REALTIME, abstime);
}

int pthread_detach(pthread_t t)
{
    if (is_kernel(t))
        return cfa_kernel_thread_detach(t);
    struct pt_thread *pt = as_pthread(t);
    if (!pt)
        return EINVAL;
    reap();
    /* Under the lock, as the end of pthread_main: exactly one of the two
     * sees the other and queues pt for reaping. */
    pt_qlock(&pt->word, QLOCK);
    int expected = JOINABLE;
    if (!atomic_compare_exchange_strong(&pt->claim, &expected, DETACHED)) {
        pt_qunlock(&pt->word, QLOCK);
        return EINVAL;
    }
    bool finished = pt->finished;
    pt_qunlock(&pt->word, QLOCK);
    if (finished)
        reap_later(pt);
    return 0;
}

/* ---- identity ----------------------------------------------------------- */

pthread_t pthread_self(void)
{
    struct cfa_thread *t = cfa_this_thread();
    return t ? (pthread_t)t : pt_real(pthread_self)();
}

/* pthread_equal is glibc's: it compares the two values, as a user
 * thread's pthread_t needs (and <pthread.h> defines it inline when
 * optimising, so a definition here could not take its place everywhere). */

/* ---- once ----------------------------------------------------------------
 * 0 never run, 1 running, 2 done (glibc's PTHREAD_ONCE_INIT is 0). Others
 * wait for the first caller by yielding (a user thread) or giving the CPU
 * up: an initialiser is short and runs once. */
int pthread_once(pthread_once_t *once, void (*init)(void))
{
    _Atomic int *state = (_Atomic int *)once;
    if (atomic_load_explicit(state, memory_order_acquire) == 2)
        return 0;
    int expected = 0;
    if (atomic_compare_exchange_strong_explicit(state, &expected, 1, memory_order_acquire,
                                                memory_order_acquire)) {
        init();
        atomic_store_explicit(state, 2, memory_order_release);
        return 0;
    }
    unsigned spins = 0;
    while (atomic_load_explicit(state, memory_order_acquire) != 2)
        pt_spin_pause(&spins);
    return 0;
}

/* ---- calls glibc would make on its own descriptor ------------------------ */

int pthread_kill(pthread_t t, int sig)
{
    if (is_kernel(t))
        return kthread_kill(t, sig);
    if (sig < 0 || sig >= NSIG)
        return EINVAL;
    struct cfa_thread *c = (struct cfa_thread *)t;
    if (atomic_load_explicit(&c->state, memory_order_acquire) == CFA_THREAD_HALTED)
        return ESRCH;
    if (sig == 0)
        return 0;
    /* No per-thread signals on user threads: the process gets it. */
    return kill(getpid(), sig) == 0 ? 0 : errno;
}

int pthread_cancel(pthread_t t)
{
    return is_kernel(t) ? pt_real(pthread_cancel)(t) : ENOTSUP;
}

int pthread_setname_np(pthread_t t, const char *name)
{
    if (is_kernel(t))
        return pt_real(pthread_setname_np)(t, name);
    struct pt_thread *pt = as_pthread(t);
    if (strlen(name) >= sizeof pt->name)
        return ERANGE;
    if (!pt)
        return ENOTSUP;
    strcpy(pt->name, name);
    cfa_thread_set_name(&pt->thread, pt->name);
    return 0;
}

int pthread_getname_np(pthread_t t, char *buf, size_t len)
{
    if (is_kernel(t))
        return pt_real(pthread_getname_np)(t, buf, len);
    const char *name = cfa_thread_name((struct cfa_thread *)t);
    if (strlen(name) >= len)
        return ERANGE;
    strcpy(buf, name);
    return 0;
}

int pthread_getattr_np(pthread_t t, pthread_attr_t *attr)
{
    if (is_kernel(t))
        return pt_real(pthread_getattr_np)(t, attr);
    struct cfa_thread *c = (struct cfa_thread *)t;
    int r = pthread_attr_init(attr);
    if (r)
        return r;
    struct pt_thread *pt = as_pthread(t);
    if (pt && atomic_load_explicit(&pt->claim, memory_order_relaxed) == DETACHED)
        pthread_attr_setdetachstate(attr, PTHREAD_CREATE_DETACHED);
    const struct cfa_stack *s = &c->self.stack;
    if (s->map && s->map_size > s->guard)
        pthread_attr_setstack(attr, (char *)s->map + s->guard, s->map_size - s->guard);
    return 0;
}

/* Scheduling belongs to the runtime: a user thread has no policy,
 * priority or affinity of its own (docs/pthreads.md). */
int pthread_setschedparam(pthread_t t, int policy, const struct sched_param *param)
{
    return is_kernel(t) ? pt_real(pthread_setschedparam)(t, policy, param) : ENOTSUP;
}

int pthread_getschedparam(pthread_t t, int *policy, struct sched_param *param)
{
    if (is_kernel(t))
        return pt_real(pthread_getschedparam)(t, policy, param);
    *policy = SCHED_OTHER;
    param->sched_priority = 0;
    return 0;
}

int pthread_setschedprio(pthread_t t, int priority)
{
    return is_kernel(t) ? pt_real(pthread_setschedprio)(t, priority) : ENOTSUP;
}

int pthread_setaffinity_np(pthread_t t, size_t size, const cpu_set_t *set)
{
    return is_kernel(t) ? pt_real(pthread_setaffinity_np)(t, size, set) : ENOTSUP;
}

/* A user thread may run wherever the process may. */
int pthread_getaffinity_np(pthread_t t, size_t size, cpu_set_t *set)
{
    if (is_kernel(t))
        return pt_real(pthread_getaffinity_np)(t, size, set);
    return sched_getaffinity(0, size, set) == 0 ? 0 : errno;
}
