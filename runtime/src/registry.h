/* registry.h: every live thread, started coroutine, processor and cluster
 * (registry.c), for the deadlock report, the preemption ticker and the
 * debugger. Each list has its own lock;
 * a walk holds it throughout. */
#ifndef CFA_REGISTRY_H
#define CFA_REGISTRY_H

#include <stdbool.h>

struct cfa_thread;
struct cfa_coroutine;
struct cfa_processor_state;
struct cfa_cluster_state;

void registry_add_thread(struct cfa_thread *t);
void registry_remove_thread(struct cfa_thread *t);
/* A coroutine is listed while ACTIVE: from its first resume to its halt
 * or its destruction (coroutine.c). */
void registry_add_coroutine(struct cfa_coroutine *c);
void registry_remove_coroutine(struct cfa_coroutine *c);
/* Returns the processor that was the only one, if p is the second. */
struct cfa_processor_state *registry_add_processor(struct cfa_processor_state *p);
void registry_remove_processor(struct cfa_processor_state *p);
void registry_processor_signalable(struct cfa_processor_state *p, bool yes);
/* Walking a list: lock, follow all_next from the head, unlock. */
void registry_lock_processors(void);
void registry_unlock_processors(void);
struct cfa_processor_state *registry_processors(void);
void registry_lock_threads(void);
void registry_unlock_threads(void);
struct cfa_thread *registry_threads(void);
/* Every initialised cluster; changed and walked only by one kernel
 * thread at a time (its lock), walked by a child of fork() (fork.c). */
void registry_add_cluster(struct cfa_cluster_state *cs);
void registry_remove_cluster(struct cfa_cluster_state *cs);
struct cfa_cluster_state *registry_clusters(void);
/* fork.c: P1 takes the clusters', processors' and coroutines' locks, P2
 * lets them go; C1 lets them go too and makes `survivor` (or nobody) the
 * only registered thread. */
void registry_lock_for_fork(void);
void registry_unlock_after_fork(void);
void registry_fork_child(struct cfa_thread *survivor);

#endif
