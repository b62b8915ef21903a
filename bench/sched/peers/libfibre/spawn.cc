// Spawn (issue #24): create N fibres (default one million, env
// BENCH_THREADS) that each park (fibre_park), then unpark and join
// (delete, whose destructor joins) them all. Variant "time":
// microseconds per fibre from the first creation to the last join;
// "memory": resident memory per parked fibre in KB (VmRSS + VmPTE
// growth), read once every fibre has announced itself. libfibre's
// default stack (64 KiB, one mmap each) but without its guard page: an
// mprotect'ed guard splits every stack into two mappings, and
// vm.max_map_count (65,530) would stop the run near 32,700 fibres
// (cfa-lite's guards are madvise guard pages, no extra mapping).
#include <string.h>
#include "common.h"

static std::atomic<long> parked;

static void sleeper(void *) {
    parked.fetch_add(1, std::memory_order_relaxed);
    fibre_park();
}

int main(int argc, char **argv) {
    int procs = bench_arg(argc, argv, 1, "1 time|memory");
    bool memory = argc > 3 && !strcmp(argv[3], "memory");
    long n = bench_threads();
    bench_workers(procs);
    Fibre **s = new Fibre *[n];
    long before = bench_resident_bytes();
    double t0 = bench_now();
    for (long i = 0; i < n; i++) s[i] = bench_fibre(sleeper, (void *)nullptr, 0);
    while (parked.load(std::memory_order_relaxed) != n) Fibre::yield();
    long during = bench_resident_bytes();
    for (long i = 0; i < n; i++) fibre_unpark(s[i]);
    for (long i = 0; i < n; i++) delete s[i];
    double t1 = bench_now();
    fprintf(stderr, "spawn: %ld fibres, %.3f us/fibre, %.3f KB/parked fibre\n", n,
            (t1 - t0) / n * 1e6, (during - before) / 1024.0 / n);
    bench_result(memory ? (during - before) / 1024.0 / n : (t1 - t0) / n * 1e6);
}
