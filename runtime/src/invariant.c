/* invariant.c: what the debug build does when an invariant check fails,
 * and its fault-injection switch (invariant.h). Empty in other builds. */
#include "processor.h"
#include "thread_internal.h"
#include "invariant.h"

#ifdef CFA_DEBUG
#include <cfa/runtime.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cfa/debug.h>

_Atomic int debug_fault_armed;

void invariant_broken(const char *invariant, const char *file, int line)
{
    struct cfa_thread *t = this_thread();
    const char *who = t ? cfa_thread_name(t) : this_processor() ? "scheduler" : "kernel thread";
    fflush(stdout);
    fprintf(stderr, "cfa-lite: invariant '%s' broken in thread '%s' (%p) at %s:%d\n", invariant, who,
            t ? (void *)t : (void *)debug_kthread(), file, line);
    abort();
}

bool debug_fault_take(enum debug_fault fault)
{
    int armed = fault;
    return atomic_compare_exchange_strong(&debug_fault_armed, &armed, FAULT_NONE);
}

const void *debug_kthread(void)
{
    static __thread char self;
    return &self;
}

static const char *const fault_names[FAULT_COUNT] = {
    [FAULT_LANE_HOLDER] = "lane-holder",
    [FAULT_LANE_STAMP] = "lane-stamp",
};

bool cfa_debug_inject(const char *fault)
{
    for (int f = FAULT_NONE + 1; f < FAULT_COUNT; f++)
        if (!strcmp(fault, fault_names[f])) {
            atomic_store(&debug_fault_armed, f);
            return true;
        }
    return false;
}
#endif
