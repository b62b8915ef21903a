/* Locality (thesis 7.6, Figure 7.11): churn with work arrays. Each
 * iteration a thread increments WCNT random cells of its array, then takes
 * a random seat (sched_sync.h), waking the thread sitting there, and
 * parks until displaced in turn. -v share: the arrival hands its freshly
 * written array to the thread it wakes, which runs next on the waker's
 * processor (unpark is local), so the array stays in that cache; -v
 * noshare: arrays never move, so the woken thread finds its array in the
 * cache of the processor it last ran on, not in the waker's. -t threads
 * per processor (default 100); seats = threads - processors. Throughput:
 * iterations per second. */
#include "bench.h"

enum { WSIZE = 1024, WCNT = 64 }; /* 8 KiB arrays, 64 random cells touched */

struct work_array {
    uint64_t cells[WSIZE];
} __attribute__((aligned(64)));

struct local {
    long long          count;
    int                index, nseats;
    bool               share;
    struct work_array *array;
    struct seat       *seats;
    struct cfa_thread  thread;
} __attribute__((aligned(64)));

static void local_main(void *object)
{
    struct local *l = object;
    uint64_t rng = prng_seed(l->index);
    cfa_park(); /* start gate */
    do {
        for (int i = 0; i < WCNT; i++)
            l->array->cells[prng_next(&rng) % WSIZE]++;
        seat_sit(&l->seats[prng_next(&rng) % l->nseats], (void **)&l->array, l->share);
        l->count++;
    } while (!atomic_load_explicit(&bench_stop, memory_order_relaxed));
}

int main(int argc, char **argv)
{
    struct bench_args a = bench_parse(argc, argv, "locality", 100, "share", "share|noshare");
    struct cfa_processor *procs = bench_procs_start(a.procs);
    int n = a.per_proc * a.procs, nseats = n - a.procs > 0 ? n - a.procs : 1;
    struct local *ls = bench_alloc(n, sizeof *ls);
    struct seat *seats = bench_alloc(nseats, sizeof *seats);
    struct work_array *arrays = bench_alloc(n, sizeof *arrays);
    for (int i = 0; i < n; i++) {
        ls[i].index = i;
        ls[i].nseats = nseats;
        ls[i].share = !strcmp(a.variant, "share");
        ls[i].array = &arrays[i];
        ls[i].seats = seats;
        cfa_thread_start(&ls[i].thread, local_main, &ls[i], "Local", 0);
    }
    double seconds = bench_run(&ls[0].thread, sizeof ls[0], n, a.seconds);
    for (int j = 0; j < nseats; j++)
        seat_close(&seats[j]); /* sitters wake, arrivals pass */
    long long ops = 0;
    for (int i = 0; i < n; i++) {
        cfa_thread_join(&ls[i].thread);
        ops += ls[i].count;
    }
    bench_result("locality", &a, n, ops, seconds);
    free(arrays);
    free(seats);
    free(ls);
    bench_procs_stop(procs, a.procs);
    return 0;
}
