/* Transfer (thesis 7.7, Figure 7.14): a leader spins until every other
 * thread has acknowledged its leadership, then picks the next leader at
 * random; the others acknowledge, then yield (-v yield) or block on their
 * semaphore until the next leader is picked (-v park). 100 threads per
 * processor, at least 2 processors; run with CFA_PREEMPTION_MS=0 (the
 * thesis turns preemption off: it would rescue the spinner's queue).
 * Result: the mean time of one transfer (all threads acknowledging one
 * leader), over the transfers done in the duration. A transfer not
 * acknowledged within 5 s is "did not complete" (thesis Table 7.1): the
 * program prints status=dnc and exits with status 3 at once (the starved
 * threads can never be joined). */
#include "bench.h"

enum { DNC_SECONDS = 5 };

struct member {
    int               id;
    _Atomic long      seen;
    struct csem       sem;
    struct cfa_thread thread;
} __attribute__((aligned(64)));

static struct member *members;
static int nmembers;
static bool park_variant;
static _Atomic long lead_idx;
static _Atomic int leader, done;
static uint64_t lead_rng;
static double start_time, run_seconds;
static struct csem main_sem;
static struct bench_args args;

static void wake_others(int me)
{
    if (park_variant)
        for (int i = 0; i < nmembers; i++)
            if (i != me)
                csem_v(&members[i].sem, 0);
}

static void lead(struct member *me)
{
    long idx = atomic_load(&lead_idx) + 1;
    atomic_store(&me->seen, idx);
    atomic_store(&lead_idx, idx);
    if (bench_now() - start_time >= run_seconds) {
        atomic_store(&done, 1);
        wake_others(me->id);
        csem_v(&main_sem, 0);
        return;
    }
    double t0 = bench_now();
    for (int i = 0; i < nmembers; i++)
        while (atomic_load_explicit(&members[i].seen, memory_order_acquire) != idx) {
            __builtin_ia32_pause();
            if (bench_now() - t0 > DNC_SECONDS) {
                printf("RESULT bench=transfer variant=%s procs=%d threads=%d transfers=%ld status=dnc\n",
                       args.variant, args.procs, nmembers, idx - 1);
                fflush(stdout);
                _exit(3);
            }
        }
    atomic_store(&leader, (int)(prng_next(&lead_rng) % nmembers));
    wake_others(me->id);
}

static void wait_leader(struct member *me)
{
    cfa_yield();
    long idx = atomic_load(&lead_idx);
    if (idx == atomic_load(&me->seen))
        return;
    atomic_store_explicit(&me->seen, idx, memory_order_release);
    if (park_variant && !atomic_load(&done))
        csem_p(&me->sem, NULL);
}

static void member_main(void *object)
{
    struct member *me = object;
    cfa_park(); /* start gate */
    while (!atomic_load(&done)) {
        if (atomic_load(&leader) == me->id)
            lead(me);
        else
            wait_leader(me);
    }
}

int main(int argc, char **argv)
{
    args = bench_parse(argc, argv, "transfer", 100, "yield", "yield|park");
    if (args.procs < 2) {
        fprintf(stderr, "transfer needs at least 2 processors\n");
        return 2;
    }
    park_variant = !strcmp(args.variant, "park");
    struct cfa_processor *procs = bench_procs_start(args.procs);
    nmembers = args.per_proc * args.procs;
    members = bench_alloc(nmembers, sizeof *members);
    lead_rng = prng_seed((uint64_t)getpid());
    atomic_store(&leader, (int)(prng_next(&lead_rng) % nmembers));
    run_seconds = args.seconds;
    for (int i = 0; i < nmembers; i++) {
        members[i].id = i;
        cfa_thread_start(&members[i].thread, member_main, &members[i], "Member", 0);
    }
    start_time = bench_now();
    for (int i = 0; i < nmembers; i++)
        cfa_unpark(&members[i].thread);
    csem_p(&main_sem, NULL);
    double seconds = bench_now() - start_time;
    /* Threads blocked in the park variant's P were woken by the last
     * leader; a late one may still P after `done`: V everyone once more. */
    for (int i = 0; i < nmembers; i++)
        csem_v(&members[i].sem, 0);
    for (int i = 0; i < nmembers; i++)
        cfa_thread_join(&members[i].thread);
    long transfers = atomic_load(&lead_idx) - 1;
    printf("RESULT bench=transfer variant=%s procs=%d threads=%d transfers=%ld seconds=%.3f latency_us=%.1f\n",
           args.variant, args.procs, nmembers, transfers, seconds, transfers > 0 ? seconds / transfers * 1e6 : 0.0);
    free(members);
    bench_procs_stop(procs, args.procs);
    return 0;
}
