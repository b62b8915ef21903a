/* forkjoin.h: what the fork-join files share (forkjoin.c owns the pools,
 * the workers and the task groups; forkjoin_loops.c the loops on them). */
#ifndef CFA_FORKJOIN_INTERNAL_H
#define CFA_FORKJOIN_INTERNAL_H

#include "fj_deque.h"

struct cfa_thread;

/* Adds t to the caller's deque (counted in t->group first); runs it at
 * once when the caller has no deque (a kernel thread that is not a
 * processor, or memory exhausted). */
void fj_spawn(const struct fj_task *t);

/* Processors of the caller's cluster, 0 on a kernel thread that is not
 * a processor. */
unsigned fj_processors(void);

/* thread.c: t halts; its deque goes back to its pool for reuse. */
void forkjoin_thread_halted(struct cfa_thread *t);
/* In a child made by fork(): no pool (their workers were the parent's
 * threads); the survivor's deque, with any task it had not run, is
 * forgotten too. */
void forkjoin_fork_child(struct cfa_thread *survivor);

#endif
