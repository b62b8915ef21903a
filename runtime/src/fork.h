/* fork.h: the runtime in a process made by fork() (fork.c). The child is
 * a complete cfa-lite process: it keeps the thread that forked, forgets
 * every other, and gets kernel threads of its own for its processors
 * when it first needs them. */
#ifndef CFA_FORK_H
#define CFA_FORK_H

#include <cfa/runtime.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Set in a child until its processors have kernel threads again. */
extern _Atomic bool fork_revive_pending;
void fork_revive_slow(void);

/* Called before anything that needs the cluster's processors running:
 * starting a thread or a processor, stopping one, migrating. One relaxed
 * load outside a child. */
static inline void fork_revive(void)
{
    if (__builtin_expect(atomic_load_explicit(&fork_revive_pending, memory_order_relaxed), 0))
        fork_revive_slow();
}

/* Threads that existed when the last fork() made this process, other
 * than the one that called it, are ghosts: they do not exist here, and
 * an unpark must never make one ready (a pthread object may still list
 * one as a waiter). Both 0 in a process no fork() made. */
extern uint64_t fork_ghosts_below;   /* thread ids below this existed at the fork */
extern uint64_t fork_survivor_id;    /* except this one: the thread that forked */
static inline bool fork_ghost(const struct cfa_thread *t)
{
    return __builtin_expect(t->id < fork_ghosts_below, 0) && t->id != fork_survivor_id;
}

#endif
