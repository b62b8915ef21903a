/* common.h: what the libfibre versions of the thesis chapter 7 benchmarks
 * share (C++, libfibre's own API: Fibre, Fibre::yield, fibre_park and
 * fibre_unpark, FredSemaphore, FredMutex). Processors are libfibre
 * workers: FibreInit(1, procs) makes the main pthread one worker and adds
 * procs - 1 (unpinned, as cfa-lite's processors; one I/O poller, idle
 * here). The rest is the cfa-lite common.h (command line, BENCH_SECONDS,
 * PRNG, the single RESULT line and the immediate _exit), a start gate,
 * per-fibre counters on their own cache line, and the measurement.
 * libfibre has no preemption: a fibre that never blocks (locality's, whose
 * send then receive rarely blocks) keeps its worker, and a main fibre
 * woken by a timer behind it would never run. So the timed programs are
 * measured by a plain pthread outside the workers (asleep in the kernel
 * for the duration, like the pthread peer's main), while the main fibre
 * parks for good and leaves its worker to the benchmark. */
#ifndef BENCH_SCHED_LIBFIBRE_COMMON_H
#define BENCH_SCHED_LIBFIBRE_COMMON_H
#include <atomic>
#include <pthread.h>
#include "libfibre/fibre.h"
#include "../../cfa/common.h"

static std::atomic<int> bench_go;

/* procs workers in libfibre's one cluster, the caller (main) on the first. */
static inline void bench_workers(int procs) { FibreInit(1, procs); }

/* A fibre on the cluster (libfibre places new fibres round-robin over the
 * workers) running fn(arg); stack and guard as given (libfibre's default
 * 64 KiB + 4 KiB guard page). */
template <typename T>
static inline Fibre *bench_fibre(void (*fn)(T *), T *arg, size_t guard = Fibre::DefaultStackGuard) {
    Fibre *f = new Fibre(Context::CurrCluster(), Fibre::DefaultStackSize, guard);
    f->run(fn, arg);
    return f;
}

static inline void bench_gate(void) { while (!bench_go.load()) Fibre::yield(); }

static double (*bench_report)(double t0);

static void *bench_observer(void *) {
    double t0 = bench_now(), d = bench_seconds();
    bench_go.store(1);
    struct timespec ts = { (time_t)d, (long)((d - (time_t)d) * 1e9) };
    nanosleep(&ts, NULL);
    bench_result(bench_report(t0)); /* exits the process */
    return NULL;
}

/* Opens the gate, and BENCH_SECONDS later prints report(start time) and
 * exits, from a pthread of its own; the calling (main) fibre parks. */
static inline void bench_measure(double (*report)(double t0)) {
    pthread_t t;
    bench_report = report;
    if (pthread_create(&t, NULL, bench_observer, NULL)) {
        fprintf(stderr, "pthread_create failed\n");
        exit(1);
    }
    for (;;) fibre_park();
}

struct alignas(64) Counter {
    std::atomic<long> n{0};
    void bump() { n.store(n.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }
};

static inline double bench_mops(Counter *c, int n, double t0) {
    long ops = 0;
    for (int i = 0; i < n; i++) ops += c[i].n.load(std::memory_order_relaxed);
    return ops / (bench_now() - t0) / 1e6;
}
#endif
