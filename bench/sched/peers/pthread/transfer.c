/* Transfer (thesis 001 ch.7, sec. 7.7, Fig. 7.14, Table 7.1): one pthread
 * leads at a time: it publishes a new leadership index and spins until
 * every other thread has acknowledged it, then picks the next leader at
 * random and ("park") posts all others' semaphores. The others
 * acknowledge, then sched_yield ("yield") or wait on their semaphore
 * ("park"; woken before the next index appears, they yield until it
 * does). Load: threads per processor. Result: mean time of one transfer
 * in us; "dnf" when one is not acknowledged within 5 s. */
#include <semaphore.h>
#include <string.h>
#include "common.h"

enum { DNF_SECONDS = 5 };

struct member { _Atomic long seen; sem_t permit; } __attribute__((aligned(64)));

static struct member *members;
static int nmembers;
static _Bool park_variant;
static _Atomic long lead_idx;
static _Atomic int leader, done, finished;
static uint64_t rng = 42; /* touched by the leader only */
static double t_end;

static void lead(int me) {
    long idx = atomic_load(&lead_idx) + 1;
    atomic_store(&members[me].seen, idx);
    atomic_store(&lead_idx, idx);
    if (atomic_load(&done)) {
        t_end = bench_now();
        atomic_store(&finished, 1);
        return;
    }
    double start = bench_now();
    for (int i = 0; i < nmembers; i++)
        while (atomic_load(&members[i].seen) != idx)
            if (bench_now() - start > DNF_SECONDS) bench_dnf();
    atomic_store(&leader, (int)(bench_rand(&rng) % nmembers));
    if (park_variant)
        for (int i = 0; i < nmembers; i++)
            if (i != me) sem_post(&members[i].permit);
}

static void *member(void *arg) {
    int me = (int)(long)arg;
    bench_gate();
    while (!atomic_load(&finished)) {
        if (atomic_load(&leader) == me) {
            lead(me);
            continue;
        }
        long idx = atomic_load(&lead_idx), seen = atomic_exchange(&members[me].seen, idx);
        if (park_variant && idx != seen) sem_wait(&members[me].permit);
        else sched_yield();
    }
    return NULL;
}

int main(int argc, char **argv) {
    park_variant = bench_variant(argc, argv, "park", "yield");
    int procs = bench_arg(argc, argv, 1, "threads-per-processor park|yield");
    nmembers = bench_arg(argc, argv, 2, "threads-per-processor park|yield") * procs;
    bench_cpus(procs);
    members = calloc(nmembers, sizeof *members);
    for (int i = 0; i < nmembers; i++) sem_init(&members[i].permit, 0, 0);
    bench_spawn(nmembers, member);
    double t0 = bench_open_and_sleep();
    atomic_store(&done, 1);
    for (int w = 0; !atomic_load(&finished); w++) { /* the leader's own bound normally fires first */
        if (w > (DNF_SECONDS + 1) * 1000) bench_dnf();
        usleep(1000);
    }
    long transfers = atomic_load(&lead_idx) - 1;
    if (transfers < 1) bench_dnf();
    bench_result((t_end - t0) / transfers * 1e6);
}
