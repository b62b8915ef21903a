/* cluster.h: a cluster's state (cluster.c): its ready queue, its idle
 * processors and how many processors it has. A cluster's state lives as
 * long as the cluster; its arrays are resized under the resize lock
 * (resize_lock.h). */
#ifndef CFA_CLUSTER_STATE_H
#define CFA_CLUSTER_STATE_H

#include <cfa/runtime.h>
#include <stdatomic.h>

#include "idle.h"
#include "ready_queue.h"

struct cfa_cluster_state {
    struct ready_queue  ready;
    struct idle_list    idle;
    _Atomic unsigned    nprocs;
    struct cfa_cluster_state *all_next, *all_prev; /* registry.c */
};

extern struct cfa_cluster cfa_main_cluster;

void cluster_state_init(struct cfa_cluster_state *cs);
/* In a child made by fork() (fork.c, step C3): no thread in any lane, no
 * lock or reader flag held, no processor listed idle. */
void cluster_state_fork_child(struct cfa_cluster_state *cs);

#endif
