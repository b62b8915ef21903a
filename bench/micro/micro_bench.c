/* micro_bench.c: the first thesis's context-switch and creation
 * micro-benchmarks ("Concurrency in C∀", "Micro Benchmarks") on the runtime's C API,
 * with pthread peers, in one program.
 *
 *   coroutine_resume     resume + suspend round trip of a coroutine whose
 *                        main suspends in a loop (a 2-step switch)
 *   thread_yield         cfa_yield() of the only thread on 1 processor
 *                        (user thread -> scheduler -> same user thread)
 *   thread_create_join   start + join + destroy of a thread whose main does
 *                        nothing (`{ MyThread m; }` in cfa-lite)
 *   coroutine_create     set up + destroy, never resumed (lazy stack)
 *   coroutine_create_eager  set up + first resume (stack mapped) + destroy
 *   pthread_create_join  pthread_create + pthread_join, empty routine
 *   sched_yield          sched_yield() on one kernel thread
 *
 * Usage: micro_bench [name...] [-n scale]. Prints "name ns_per_op" per
 * benchmark, timed around a loop of N calls after a short warm-up (the
 * thesis's BENCH() harness; clock: see now_ns). -n scales the iteration
 * counts (default 1.0).
 */
#define _GNU_SOURCE
#include <cfa/runtime.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../include/glibc_pthread.h" /* the pthread peers are glibc's */

/* CPU time of the calling kernel thread, as the thesis's harness: on one
 * processor every cfa-lite benchmark runs on this kernel thread, and time
 * the machine gives to other processes does not count. (For the pthread
 * peers the children's CPU time is not counted either, as in the thesis.)
 * MICRO_CLOCK=wall switches to CLOCK_MONOTONIC. */
static clockid_t bench_clock = CLOCK_THREAD_CPUTIME_ID;
static double now_ns(void) {
    struct timespec t;
    clock_gettime(bench_clock, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

#define BENCH(name, n, body)                                                \
    do {                                                                    \
        long warm = (n) / 10 + 1;                                           \
        for (long i_ = 0; i_ < warm; i_++) { body; }                        \
        double t0_ = now_ns();                                              \
        for (long i_ = 0; i_ < (n); i_++) { body; }                         \
        double t1_ = now_ns();                                              \
        printf("%s %.2f\n", name, (t1_ - t0_) / (double)(n));               \
        fflush(stdout);                                                     \
    } while (0)

/* ---- coroutines ---- */
struct suspender { struct cfa_coroutine cor; };
static void suspender_main(void *object) {
    (void)object;
    for (;;) cfa_coroutine_suspend();
}
struct once { struct cfa_coroutine cor; };
static void once_main(void *object) { (void)object; cfa_coroutine_suspend(); }

/* ---- threads ---- */
struct nothing { struct cfa_thread thread; };
static void nothing_main(void *object) { (void)object; }
static void *pthread_nothing(void *arg) { return arg; }

static double scale = 1.0;
static long iters(long base) { long n = (long)(base * scale); return n < 1 ? 1 : n; }

static int wanted(int argc, char **argv, const char *name) {
    int any = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-n") == 0) { i++; continue; }
        any = 1;
        if (strcmp(argv[i], name) == 0) return 1;
    }
    return !any;
}

int main(int argc, char **argv) {
    const char *clk = getenv("MICRO_CLOCK");
    if (clk && strcmp(clk, "wall") == 0) bench_clock = CLOCK_MONOTONIC;
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "-n") == 0) scale = atof(argv[i + 1]);

    if (wanted(argc, argv, "coroutine_resume")) {
        struct suspender s;
        memset(&s, 0, sizeof s);
        cfa_coroutine_setup(&s.cor, suspender_main, &s, "GreatSuspender");
        cfa_coroutine_resume(&s.cor);
        BENCH("coroutine_resume", iters(20000000), cfa_coroutine_resume(&s.cor));
        cfa_coroutine_destroy(&s.cor);
    }
    if (wanted(argc, argv, "thread_yield"))
        BENCH("thread_yield", iters(10000000), cfa_yield());
    if (wanted(argc, argv, "thread_create_join")) {
        BENCH("thread_create_join", iters(1000000), {
            struct nothing t;
            memset(&t, 0, sizeof t);
            cfa_thread_start(&t.thread, nothing_main, &t, "MyThread", 0);
            cfa_thread_join(&t.thread);
            cfa_thread_destroy(&t.thread);
        });
    }
    if (wanted(argc, argv, "coroutine_create")) {
        BENCH("coroutine_create", iters(10000000), {
            struct once c;
            memset(&c, 0, sizeof c);
            cfa_coroutine_setup(&c.cor, once_main, &c, "MyCoroutine");
            cfa_coroutine_destroy(&c.cor);
        });
    }
    if (wanted(argc, argv, "coroutine_create_eager")) {
        BENCH("coroutine_create_eager", iters(1000000), {
            struct once c;
            memset(&c, 0, sizeof c);
            cfa_coroutine_setup(&c.cor, once_main, &c, "MyCoroutine");
            cfa_coroutine_resume(&c.cor);
            cfa_coroutine_destroy(&c.cor);
        });
    }
    if (wanted(argc, argv, "pthread_create_join")) {
        BENCH("pthread_create_join", iters(20000), {
            pthread_t t;
            if (pthread_create(&t, NULL, pthread_nothing, NULL) != 0) { perror("pthread_create"); return 1; }
            pthread_join(t, NULL);
        });
    }
    if (wanted(argc, argv, "sched_yield"))
        BENCH("sched_yield", iters(2000000), sched_yield());
    return 0;
}
