/* stats.c: CFA_STATS=1 prints the scheduler's counters at exit.
 *
 * The counters are plain per-processor fields (no atomics on the hot
 * paths); they are summed at exit without stopping anyone, so a count may
 * be off by the operations in flight at that instant.
 */
#include "cluster.h"
#include "preemption.h"
#include "processor.h"
#include "ready_queue.h"
#include "registry.h"
#include "stats.h"
#include "environment.h"
#include "forkjoin.h"
#include "stack.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_cluster(const char *name, struct cfa_cluster_state *cs)
{
    /* The spin lengths of the cluster's processors (the registry is locked). */
    unsigned spin_min = UINT32_MAX, spin_max = 0;
    for (struct cfa_processor_state *p = registry_processors(); p; p = p->all_next)
        if (p->cluster->state == cs) {
            unsigned spin = atomic_load_explicit(&p->sleeper.spin_tsc, memory_order_relaxed);
            spin_min = spin < spin_min ? spin : spin_min;
            spin_max = spin > spin_max ? spin : spin_max;
        }
    struct ready_stats s;
    ready_queue_stats(&cs->ready, &s);
    fprintf(stderr,
            "cfa stats: cluster %s: processors %u, lanes %u\n"
            "cfa stats:   push: local %lu, remote %lu, external %lu; run next %lu; yields alone %lu, yield swaps %lu\n"
            "cfa stats:   pop:  local %lu, helped %lu, stolen %lu, idle search %lu, left in grace %lu (help declined %lu)\n"
            "cfa stats:   idle: sleeps %lu, notifications %lu, eventfd writes %lu; wake-ups held %lu, os yields %lu, TSC reads %lu; "
            "idle list registrations %lu, found busy %lu; spins found work %lu, found none %lu, "
            "spin now %u-%u TSC\n",
            name, atomic_load(&cs->nprocs), cs->ready.count, s.push_local, s.push_remote,
            s.push_external, s.run_next, s.yields_alone, s.yield_swaps, s.pop_local, s.pop_helped, s.pop_stolen, s.pop_searched, s.search_left, s.help_declined,
            atomic_load(&cs->idle.sleeps), atomic_load(&cs->idle.wakeups),
            atomic_load(&cs->idle.notify_syscalls), s.notify_held, s.os_yields, s.clock_reads, atomic_load(&cs->idle.registrations),
            atomic_load(&cs->idle.register_busy), atomic_load(&cs->idle.spins_found),
            atomic_load(&cs->idle.spins_missed), spin_min, spin_max);
    unsigned instances, min_lanes, max_lanes;
    ready_queue_cache_spread(&cs->ready, &instances, &min_lanes, &max_lanes);
    fprintf(stderr,
            "cfa stats:   cache: instances %u, lanes per instance %u-%u; help targets same %lu, other %lu; "
            "steal victims same %lu, other %lu; steals same %lu, other %lu\n",
            instances, min_lanes, max_lanes, s.target_same_cache, s.target_other_cache, s.victim_same_cache,
            s.victim_other_cache, s.steal_same_cache, s.steal_other_cache);
}

static void print_stats(void)
{
    /* Clusters are reached through their processors; each printed once. */
    struct cfa_cluster_state *seen[64];
    unsigned nseen = 0;
    registry_lock_processors();
    for (struct cfa_processor_state *p = registry_processors(); p; p = p->all_next) {
        struct cfa_cluster_state *cs = p->cluster->state;
        bool dup = false;
        for (unsigned i = 0; i < nseen; i++)
            dup |= seen[i] == cs;
        if (dup || nseen == 64)
            continue;
        seen[nseen++] = cs;
        print_cluster(p->cluster->name ? p->cluster->name : "(unnamed)", cs);
    }
    registry_unlock_processors();
    unsigned long ticks, taken, in_window;
    preemption_counts(&ticks, &taken, &in_window);
    fprintf(stderr, "cfa stats: preemption: signals %lu, yields %lu, in a one-processor window %lu\n",
            ticks, taken, in_window);
    unsigned long spawn_wakes, idle_wakes, replaced, started;
    forkjoin_counts(&spawn_wakes, &idle_wakes, &replaced, &started);
    fprintf(stderr,
            "cfa stats: fork-join: workers woken by spawns %lu, by idle processors %lu; "
            "workers parked in waits replaced %lu (new workers %lu)\n",
            spawn_wakes, idle_wakes, replaced, started);
    struct stack_counts st;
    stack_counts(&st);
    fprintf(stderr,
            "cfa stats: stacks: slots carved %lu; guard pages by madvise %lu, by mprotect %lu; canary %lu; "
            "free warm %lu, cold %lu; mappings %ld of %ld for mprotect guards\n",
            st.carved, st.guarded_madvise, st.guarded_mprotect, st.canary, st.warm, st.cold, st.maps,
            st.maps_budget);
    fprintf(stderr, "cfa stats: stacks: memory returned: stacks %lu, ranges %lu, system calls %lu\n", st.trimmed,
            st.trim_ranges, st.trim_calls);
}

void stats_configure(void)
{
    if (env_flag(ENV_CFA_STATS))
        atexit(print_stats);
}
