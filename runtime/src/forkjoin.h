/* forkjoin.h: what the fork-join files share (forkjoin.c owns the pools,
 * the workers and the task groups; forkjoin_loops.c the loops on them). */
#ifndef CFA_FORKJOIN_INTERNAL_H
#define CFA_FORKJOIN_INTERNAL_H

#include "fj_deque.h"

struct cfa_thread;

/* Adds the task {run, g, a, b, c} to the caller's deque (counted in g
 * first); runs it at once when the caller has no deque (a kernel thread
 * that is not a processor, or memory exhausted). The fields come in
 * registers: a record built in memory by the caller and copied here
 * stalls on store forwarding (its words stored one by one, loaded two by
 * two). */
void fj_spawn(void (*run)(struct fj_task *task), cfa_task_group *g, uintptr_t a, int64_t b, int64_t c);

/* Whether the caller's deque holds no task (or the caller has none): a
 * thief looking there finds nothing. */
bool fj_own_deque_empty(void);

/* Processors of the caller's cluster, 0 on a kernel thread that is not
 * a processor. */
unsigned fj_processors(void);

/* idle.c, a processor of cl between its search (I2) and its sleep (I3),
 * and in its pass-on (I5): wakes a sleeping fork-join worker if a deque of
 * cl's pool holds a task (forkjoin.c, "Idle processor"). */
struct cfa_cluster;
void forkjoin_idle(struct cfa_cluster *cl);

/* CFA_STATS, over every pool: sleeping workers woken by spawns and by
 * idle processors; workers parked in a wait that were replaced, and of
 * those replacements the ones that were new workers. */
void forkjoin_counts(unsigned long *spawn_wakes, unsigned long *idle_wakes, unsigned long *replaced,
                     unsigned long *started);

/* thread.c: t halts; its deque goes back to its pool for reuse. */
void forkjoin_thread_halted(struct cfa_thread *t);
/* In a child made by fork(): no pool (their workers were the parent's
 * threads); the survivor's deque, with any task it had not run, is
 * forgotten too. */
void forkjoin_fork_child(struct cfa_thread *survivor);

#endif
