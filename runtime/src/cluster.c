/* cluster.c: clusters and migration between them.
 *
 * A cluster's state lives on the heap (the main cluster's is static) so
 * that the public handle stays small and zero-initialisable.
 */
#include "cache_aligned.h"
#include "cluster.h"
#include "processor.h"
#include "fork.h"
#include "ready_queue.h"
#include "registry.h"
#include "thread_internal.h"

#include <cfa/runtime.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

void cluster_state_init(struct cfa_cluster_state *cs)
{
    ready_queue_init(&cs->ready);
    registry_add_cluster(cs);
}

void cluster_state_fork_child(struct cfa_cluster_state *cs)
{
    ready_queue_fork_child(&cs->ready);
    idle_list_fork_child(&cs->idle);
}

void cfa_cluster_init(struct cfa_cluster *cl)
{
    if (cl->state)
        cfa_fatal("cluster %s initialised twice", cl->name ? cl->name : "(unnamed)");
    struct cfa_cluster_state *cs = cache_aligned_zalloc(sizeof *cs);
    if (!cs)
        cfa_fatal("out of memory creating a cluster");
    cluster_state_init(cs);
    cl->state = cs;
}

void cfa_cluster_destroy(struct cfa_cluster *cl)
{
    if (!cl->state)
        return;
    if (cl == &cfa_main_cluster)
        cfa_fatal("the main cluster cannot be destroyed");
    if (atomic_load(&cl->state->nprocs) != 0)
        cfa_fatal("cluster %s destroyed while %u processor(s) still serve it",
                  cl->name ? cl->name : "(unnamed)", atomic_load(&cl->state->nprocs));
    if (ready_queue_any(&cl->state->ready))
        cfa_fatal("cluster %s destroyed with ready threads in it", cl->name ? cl->name : "(unnamed)");
    registry_remove_cluster(cl->state);
    ready_queue_fini(&cl->state->ready);
    free(cl->state);
    cl->state = NULL;
}

struct cfa_cluster *cfa_default_cluster(void) { return &cfa_main_cluster; }

struct cfa_cluster *cfa_current_cluster(void)
{
    struct cfa_thread *t = this_thread();
    return t ? t->cluster : &cfa_main_cluster;
}

void cfa_migrate(struct cfa_cluster *cl)
{
    struct cfa_thread *t = this_thread();
    if (!t)
        cfa_fatal("migrate called from a kernel thread that is not a processor");
    if (!cl->state)
        cfa_fatal("migrate to cluster %s before cfa_cluster_init", cl->name ? cl->name : "(unnamed)");
    if (t->cluster == cl)
        return;
    fork_revive();
    /* The yield's post action pushes onto t->cluster: the new one. */
    t->cluster = cl;
    t->last_lane = UINT32_MAX; /* a lane number of the old cluster means nothing here */
    schedule_out(t, POST_YIELD);
}
