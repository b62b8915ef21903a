// Sleep: 10,000 threads on 2 processors each sleep a random 1-20 ms; none
// wakes before its deadline, and every one wakes (a lost wake-up hangs
// the join, which %timeout reports). Twice: with the processors idle
// (their armed wake-ups end the sleeps), then with a thread that keeps
// yielding (busy processors end them in their polls, and the yielder runs
// on: sleeping blocks threads, not processors). From a kernel thread that
// is not a processor, cfa_sleep_ns sleeps that thread.
// How late the sleepers wake depends on the machine's load, not on the
// runtime alone: it is printed on stderr, and measured by
// bench/micro/sleep_lateness.c, never asserted here.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress default | FileCheck %s
// RUN: env CFA_IO=fallback %timeout %t %stress fallback | FileCheck %s
// CHECK: idle processors: 10000 sleepers on 2 processors: none early
// CHECK-NEXT: busy processors: 10000 sleepers on 2 processors: none early
// CHECK-NEXT: ticker ran while 10000 threads slept
// CHECK-NEXT: pthread slept 10 ms
#include "iotest.h"
#include <pthread.h>
#include <unistd.h>

enum { SLEEPERS = 10000 };

struct sleeper {
    int64_t           ns, deadline, woke;
    struct cfa_thread thread;
};

static void sleeper_main(void *object) {
    struct sleeper *s = object;
    s->deadline = cfa_clock_ns() + s->ns;
    cfa_sleep_ns(s->ns);
    s->woke = cfa_clock_ns();
}

static _Atomic int stop_ticking;
static _Atomic long ticks;
static void ticker(void *arg) {
    (void)arg;
    while (!atomic_load(&stop_ticking)) {
        atomic_fetch_add(&ticks, 1);
        cfa_yield();
    }
}

static void *pthread_sleeper(void *arg) {
    int64_t t0 = cfa_clock_ns();
    cfa_sleep_ns(10 * 1000000);
    *(int64_t *)arg = cfa_clock_ns() - t0;
    return NULL;
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    check_engine(argc, argv);
    static struct sleeper s[SLEEPERS];
    for (long rep = 0; rep < reps; rep++) {
        struct extra_procs procs;
        procs_start(&procs, 2);
        for (int busy = 0; busy < 2; busy++) {
            atomic_store(&stop_ticking, 0);
            atomic_store(&ticks, 0);
            struct task tick;
            if (busy) task_start(&tick, ticker, NULL, "Ticker");
            uint32_t x = 12345 + (uint32_t)rep;
            memset(s, 0, sizeof s);
            for (int i = 0; i < SLEEPERS; i++) {
                x ^= x << 13; x ^= x >> 17; x ^= x << 5;
                s[i].ns = (1 + (int64_t)(x % 20)) * 1000000 + (int64_t)(x % 1000) * 1000; /* 1-20.999 ms */
                cfa_thread_start(&s[i].thread, sleeper_main, &s[i], "Sleeper", 64 * 1024);
            }
            for (int i = 0; i < SLEEPERS; i++) cfa_thread_join(&s[i].thread);
            long ticks_seen = atomic_load(&ticks);
            atomic_store(&stop_ticking, 1);
            if (busy) cfa_thread_join(&tick.thread);
            int64_t worst = 0;
            for (int i = 0; i < SLEEPERS; i++) {
                int64_t late = s[i].woke - s[i].deadline;
                CHECK(late >= 0, "sleeper %d woke %lld ns early", i, (long long)-late);
                if (late > worst) worst = late;
            }
            const char *what = busy ? "busy processors" : "idle processors";
            if (rep == 0) printf("%s: %d sleepers on 2 processors: none early\n", what, SLEEPERS);
            fprintf(stderr, "%s: worst lateness %lld us\n", what, (long long)worst / 1000);
            if (busy) {
                CHECK(ticks_seen > 0, "the ticker never ran");
                if (rep == 0) printf("ticker ran while %d threads slept\n", SLEEPERS);
            }
        }
        procs_stop(&procs);

        int64_t slept = 0;
        pthread_t pt;
        CHECK(cfa_kernel_thread_create(&pt, NULL, pthread_sleeper, &slept) == 0);
        cfa_kernel_thread_join(pt, NULL);
        CHECK(slept >= 10 * 1000000, "pthread slept only %lld ns", (long long)slept);
        if (rep == 0) printf("pthread slept 10 ms\n");
    }
    return 0;
}
