// The Locality benchmark of thesis 7.6 as a correctness test: the churn
// pattern with work arrays. Each iteration a thread increments WCNT random
// cells of its array, then takes a random seat, waking the thread sitting
// there, and parks until displaced in turn (sched_sync.h's seat). In the
// `share` variant the arrival hands its freshly written array to the
// thread it wakes (thesis Figure 7.11b); in `noshare` arrays never move.
// 100 threads per processor on 2 processors, seats = threads - processors.
// When only `seats` threads are left unfinished, the seats close (a sitter
// is woken, arrivals pass), so the last ones cannot be left seated.
//
// Invariants, exact: every thread completes ITERS iterations; an array is
// never worked on by two threads at once (ownership moves only with a
// hand-over); the cells add up to iterations x WCNT over all arrays
// (share) or per thread and its own array (noshare); every park in a seat
// is ended by exactly one displacement or closing, never a stray permit.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: locality share: 200 threads, 198 seats, 500 iterations on 2 processors: arrays and seats balance
// CHECK-NEXT: locality noshare: 200 threads, 198 seats, 500 iterations on 2 processors: arrays and seats balance
#include "sched_test.h"

enum { PROCS = 2, PER_PROC = 100, ITERS = 500, WSIZE = 64, WCNT = 16 };

struct work_array {
    _Atomic int in_use;
    int         origin;        /* index of the thread that started with it */
    uint64_t    cells[WSIZE];
} __attribute__((aligned(64)));

struct local {
    int                index, nthreads, nseats;
    bool               share;
    long               done, sat, passed;
    struct work_array *array;
    struct seat       *seats;
    struct cfa_thread  thread;
};

static _Atomic int finished;

static void work(struct local *l, uint64_t *rng) {
    struct work_array *a = l->array;
    CHECK(atomic_exchange(&a->in_use, 1) == 0, "thread %d works on array %d, in use elsewhere", l->index,
          a->origin);
    for (int i = 0; i < WCNT; i++) a->cells[prng_next(rng) % WSIZE]++;
    atomic_store(&a->in_use, 0);
}

static void local_main(void *object) {
    struct local *l = object;
    uint64_t rng = prng_seed(l->index);
    struct work_array *mine = l->array;
    cfa_park(); /* start gate */
    for (; l->done < ITERS; l->done++) {
        work(l, &rng);
        struct seat *s = &l->seats[prng_next(&rng) % l->nseats];
        enum seat_result r = seat_sit(s, (void **)&l->array, l->share);
        CHECK(r != SEAT_STRAY_PERMIT, "thread %d woke in a seat without being displaced", l->index);
        if (r == SEAT_WOKEN) l->sat++;
        else l->passed++;
        if (!l->share) CHECK(l->array == mine, "noshare: thread %d's array moved", l->index);
    }
    if (atomic_fetch_add(&finished, 1) + 1 == l->nthreads - l->nseats)
        for (int j = 0; j < l->nseats; j++) seat_close(&l->seats[j]);
}

static void run(bool share) {
    struct extra_procs extra;
    procs_start(&extra, PROCS);
    int n = PER_PROC * PROCS, nseats = n - PROCS;
    struct local *ls = zalloc_aligned(n, sizeof *ls);
    struct seat *seats = zalloc_aligned(nseats, sizeof *seats);
    struct work_array *arrays = zalloc_aligned(n, sizeof *arrays);
    atomic_store(&finished, 0);
    for (int i = 0; i < n; i++) {
        arrays[i].origin = i;
        ls[i] = (struct local){ .index = i, .nthreads = n, .nseats = nseats, .share = share,
                                .array = &arrays[i], .seats = seats };
        cfa_thread_start(&ls[i].thread, local_main, &ls[i], "Local", 0);
    }
    for (int i = 0; i < n; i++) cfa_unpark(&ls[i].thread);
    for (int i = 0; i < n; i++) cfa_thread_join(&ls[i].thread);
    procs_stop(&extra);

    long sat = 0, passed = 0, wakes = 0, total = 0;
    bool *held = calloc(n, sizeof *held);
    for (int i = 0; i < n; i++) {
        CHECK(ls[i].done == ITERS, "thread %d did %ld iterations", i, ls[i].done);
        CHECK_EQ(atomic_load(&ls[i].thread.ticket), 0);
        int a = ls[i].array->origin;
        CHECK(!held[a], "array %d ends with two threads", a);
        held[a] = true;
        sat += ls[i].sat;
        passed += ls[i].passed;
        uint64_t sum = 0;
        for (int c = 0; c < WSIZE; c++) sum += arrays[i].cells[c];
        if (!share) CHECK(sum == (uint64_t)ITERS * WCNT, "noshare: array %d holds %lu increments", i, (unsigned long)sum);
        total += sum;
        cfa_thread_destroy(&ls[i].thread);
    }
    for (int j = 0; j < nseats; j++) {
        CHECK(atomic_load(&seats[j].sitter) == SEAT_CLOSED, "seat %d not closed", j);
        wakes += atomic_load(&seats[j].displaced) + atomic_load(&seats[j].closed_wakes);
    }
    CHECK_EQ(total, (long)n * ITERS * WCNT);
    CHECK_EQ(sat, wakes);
    CHECK_EQ(sat + passed, (long)n * ITERS);
    CHECK(sat > 0, "nobody ever sat: the test exercised nothing");
    free(held);
    free(arrays);
    free(seats);
    free(ls);
    REPORT("locality %s: %d threads, %d seats, %d iterations on %d processors: arrays and seats balance\n",
           share ? "share" : "noshare", n, nseats, ITERS, PROCS);
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    for (rep_index = 0; rep_index < reps; rep_index++) {
        run(true);
        run(false);
    }
    return 0;
}
