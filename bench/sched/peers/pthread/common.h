/* common.h: what the pthread versions of the thesis chapter 7 benchmarks
 * share: one kernel thread per benchmark "thread", pinned to no core but
 * restricted to the first `processors` CPUs of the process's affinity
 * set (the peer's equivalent of processors; built with -D_GNU_SOURCE), the cfa-lite common.h
 * helpers (command line, BENCH_SECONDS, PRNG, the single RESULT line and
 * the immediate exit), and a start gate. */
#ifndef BENCH_SCHED_PTHREAD_COMMON_H
#define BENCH_SCHED_PTHREAD_COMMON_H
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include "../../cfa/common.h"

static _Atomic int bench_go;

/* Restricts the process (and the threads it creates) to `procs` CPUs. */
static inline void bench_cpus(int procs) {
    cpu_set_t have, use;
    CPU_ZERO(&use);
    if (sched_getaffinity(0, sizeof have, &have) == 0) {
        for (int c = 0, k = 0; c < CPU_SETSIZE && k < procs; c++)
            if (CPU_ISSET(c, &have)) { CPU_SET(c, &use); k++; }
        sched_setaffinity(0, sizeof use, &use);
    }
}

/* Starts `n` threads running fn(i); they wait at the gate for bench_open. */
static inline void bench_spawn(int n, void *(*fn)(void *)) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    for (long i = 0; i < n; i++) {
        pthread_t t;
        if (pthread_create(&t, &attr, fn, (void *)i)) {
            fprintf(stderr, "pthread_create failed at thread %ld\n", i);
            exit(1);
        }
    }
}

static inline void bench_gate(void) { while (!atomic_load(&bench_go)) sched_yield(); }

/* Opens the gate, sleeps for the duration, returns the start time.
 */
static inline double bench_open_and_sleep(void) {
    double t0 = bench_now(), d = bench_seconds();
    atomic_store(&bench_go, 1);
    struct timespec ts = { (time_t)d, (long)((d - (time_t)d) * 1e9) };
    nanosleep(&ts, NULL);
    return t0;
}

struct counter { _Atomic long n; } __attribute__((aligned(64)));
static inline void bench_bump(struct counter *c) {
    atomic_store_explicit(&c->n, atomic_load_explicit(&c->n, memory_order_relaxed) + 1, memory_order_relaxed);
}
static inline double bench_mops(struct counter *c, int n, double t0) {
    long ops = 0;
    for (int i = 0; i < n; i++) ops += atomic_load_explicit(&c[i].n, memory_order_relaxed);
    return ops / (bench_now() - t0) / 1e6;
}
#endif
