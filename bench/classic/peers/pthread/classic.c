/* classic.c: the first thesis's micro-benchmarks with pthreads, the peers
 * of bench/classic/cfa/classic.cfa where a pthread equivalent exists, on
 * one CPU (bench_cpus(1)): yield (sched_yield of the only thread), mutex1/
 * 2/4 (lock and unlock 1, 2 or 4 pthread mutexes around the same work as
 * the cfa-lite mutex function), signal (two threads alternating under one
 * mutex by pthread_cond_signal + wait), create (pthread_create + join of
 * an empty thread). No coroutines and no external scheduling: ctxswitch
 * and waitfor are cfa-lite only. "RESULT <ns per operation>". */
#include <string.h>
#include "../../../sched/peers/pthread/common.h"

enum { BATCH = 1024 };
static pthread_mutex_t mx[4] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                 PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER };
static volatile long shared;

static void time_loop(void (*op)(void)) {
    double t0 = bench_now(), end = t0 + bench_seconds();
    long ops = 0;
    do {
        for (int i = 0; i < BATCH; i++) op();
        ops += BATCH;
    } while (bench_now() < end);
    bench_result((bench_now() - t0) * 1e9 / ops);
}

static void locked(int n) {
    for (int i = 0; i < n; i++) pthread_mutex_lock(&mx[i]);
    shared++;
    for (int i = n; i-- > 0;) pthread_mutex_unlock(&mx[i]);
}
static void op_yield(void) { sched_yield(); }
static void op_mutex1(void) { locked(1); }
static void op_mutex2(void) { locked(2); }
static void op_mutex4(void) { locked(4); }
static void *empty(void *arg) { return arg; }
static void op_create(void) {
    pthread_t t;
    if (pthread_create(&t, NULL, empty, NULL) == 0) pthread_join(t, NULL);
}

static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static long handoffs;
static void *passer(void *arg) {
    pthread_mutex_lock(&mx[0]);
    for (;;) {
        handoffs++;
        pthread_cond_signal(&cond);
        pthread_cond_wait(&cond, &mx[0]);
    }
    return arg;
}

int main(int argc, char **argv) {
    const char *b = argc > 1 ? argv[1] : "";
    bench_cpus(1);
    if (!strcmp(b, "yield")) time_loop(op_yield);
    if (!strcmp(b, "mutex1")) time_loop(op_mutex1);
    if (!strcmp(b, "mutex2")) time_loop(op_mutex2);
    if (!strcmp(b, "mutex4")) time_loop(op_mutex4);
    if (!strcmp(b, "create")) time_loop(op_create);
    if (!strcmp(b, "signal")) {
        pthread_t t;
        pthread_create(&t, NULL, passer, NULL);
        pthread_create(&t, NULL, passer, NULL);
        double t0 = bench_now(), d = bench_seconds();
        struct timespec ts = { (time_t)d, (long)((d - (time_t)d) * 1e9) };
        nanosleep(&ts, NULL);
        pthread_mutex_lock(&mx[0]);
        long n = handoffs;
        bench_result((bench_now() - t0) * 1e9 / n);
    }
    fprintf(stderr, "usage: %s yield|mutex1|mutex2|mutex4|signal|create\n", argv[0]);
    return 2;
}
