/* Cycle (thesis 7.3, Figure 7.2): rings of 5 threads; each parks, then
 * unparks the next thread of its ring. One token per ring: only each
 * ring's first thread is unparked at the start, as in the thesis's own
 * programs (Cforall's benchmark/readyQ/cycle in every runtime: wait, then
 * post; the driver posts the ring heads), so nearly every park blocks and
 * is a push and a pop. (Unparking all five would put five tokens in each
 * ring, and most parks would then find a permit and not block.) -t is
 * rings per processor: 100 ("many", the thesis's left column) or 1
 * ("few"). Throughput: parks completed per second, all threads together.
 *
 * Placement: each processor starts with its own -t rings. Posted from one
 * thread, every ring head would start in that processor's lanes, and the
 * work-stealing baseline never spreads them: a processor steals only when
 * its lanes are empty, and one ring is enough to keep them non-empty. It
 * then runs 1 ring on one processor and all the others on the other (the
 * lone ring's five threads stay in L1, and a fifth of all parks are
 * theirs): its throughput is that unfairness. So one starter thread per
 * processor posts that processor's share (an unpark pushes to the
 * unparker's processor). The FAIRNESS line gives the busiest ring's parks
 * over the median ring's.
 *
 * Stopping: a thread leaves its loop after a park returns with bench_stop
 * raised; its successor may then wait for an unpark that never comes, so
 * the main thread keeps unparking the threads still running until all
 * have left (extra permits are harmless then). */
#include "bench.h"

#include <stdlib.h>

enum { RING = 5 };

struct cycler {
    long long         count;
    struct cycler    *next;
    _Atomic int       left;
    struct cfa_thread thread;
} __attribute__((aligned(64)));

static void cycler_main(void *object)
{
    struct cycler *c = object;
    cfa_park(); /* start gate */
    for (;;) {
        cfa_unpark(&c->next->thread);
        cfa_park();
        c->count++;
        if (atomic_load_explicit(&bench_stop, memory_order_relaxed))
            break;
    }
    atomic_store(&c->left, 1);
}

/* Starts `rings` rings on a processor of its own. A starter runs first on
 * whatever processor takes it; on one another starter has claimed it
 * yields, so that an idle processor steals it. Having claimed one, it
 * spins (a running thread is never stolen, a yielding one could be) until
 * every processor is claimed, and only then posts its ring heads: posted
 * earlier, they would keep the unclaimed processors busy with stolen
 * rings, and those would never steal the remaining starters. */
struct starter {
    struct cycler                  *first;
    int                             rings, nprocs;
    struct cfa_processor *_Atomic *claimed;
    _Atomic int                    *nclaimed;
    struct cfa_thread               thread;
};

static bool claim(struct starter *s, struct cfa_processor *here)
{
    for (int k = 0; k < s->nprocs; k++) {
        struct cfa_processor *expected = NULL;
        if (atomic_compare_exchange_strong(&s->claimed[k], &expected, here))
            return true;
        if (expected == here)
            return false;
    }
    return false;
}

static void starter_main(void *object)
{
    struct starter *s = object;
    while (!claim(s, cfa_active_thread()->last_processor))
        cfa_yield();
    atomic_fetch_add(s->nclaimed, 1);
    while (atomic_load(s->nclaimed) < s->nprocs)
        __builtin_ia32_pause();
    for (int r = 0; r < s->rings; r++)
        cfa_unpark(&s->first[r * RING].thread);
}

static int compare_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    struct bench_args a = bench_parse(argc, argv, "cycle", 100, "park", NULL);
    struct cfa_processor *procs = bench_procs_start(a.procs);
    int n = a.per_proc * a.procs * RING;
    struct cycler *cs = bench_alloc(n, sizeof *cs);
    for (int i = 0; i < n; i++) {
        cs[i].next = &cs[i / RING * RING + (i + 1) % RING];
        cfa_thread_start(&cs[i].thread, cycler_main, &cs[i], "Cycler", 0);
    }
    struct starter *st = bench_alloc(a.procs, sizeof *st);
    struct cfa_processor *_Atomic *claimed = calloc(a.procs, sizeof *claimed);
    _Atomic int nclaimed = 0;
    for (int k = 0; k < a.procs; k++) {
        st[k] = (struct starter){ .first = &cs[k * a.per_proc * RING], .rings = a.per_proc,
                                  .nprocs = a.procs, .claimed = claimed,
                                  .nclaimed = &nclaimed };
        cfa_thread_start(&st[k].thread, starter_main, &st[k], "Starter", 0);
    }
    double seconds = bench_run(NULL, 0, 0, a.seconds); /* the starters post the rings */
    for (int k = 0; k < a.procs; k++)
        cfa_thread_join(&st[k].thread);
    for (bool all = false; !all; cfa_yield()) {
        all = true;
        for (int i = 0; i < n; i++)
            if (!atomic_load(&cs[i].left)) {
                all = false;
                cfa_unpark(&cs[i].thread);
            }
    }
    long long ops = 0;
    for (int i = 0; i < n; i++) {
        cfa_thread_join(&cs[i].thread);
        ops += cs[i].count;
    }
    long long *ring_ops = bench_alloc(n / RING, sizeof *ring_ops);
    for (int r = 0; r < n / RING; r++)
        ring_ops[r] = cs[r * RING].count;
    qsort(ring_ops, n / RING, sizeof *ring_ops, compare_ll);
    printf("FAIRNESS busiest ring / median ring = %.2f\n",
           (double)ring_ops[n / RING - 1] / (double)(ring_ops[n / RING / 2] ? ring_ops[n / RING / 2] : 1));
    bench_result("cycle", &a, n, ops, seconds);
    free(ring_ops);
    free(claimed);
    free(st);
    free(cs);
    bench_procs_stop(procs, a.procs);
    return 0;
}
