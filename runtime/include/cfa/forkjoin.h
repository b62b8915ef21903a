/* cfa/forkjoin.h: fork-join parallelism on cfa-lite (docs/forkjoin.md).
 *
 * Tasks, not threads: a spawned task is a record of a few words in its
 * spawner's work deque; the cluster's fork-join workers (ordinary cfa-lite
 * threads, one per processor, scheduled through the ready queue) steal
 * tasks from the far end of the deques, and a thread that waits for its
 * tasks runs those still in its own deque itself. No task gets a stack of
 * its own. `cofor` and `corun` (docs/language.md) are built on this API.
 *
 * Every function is callable from any cfa-lite thread or coroutine and from
 * main. From a kernel thread that is not a processor, tasks run at once in
 * the caller (sequentially).
 *
 * A task may block (locks, channels, I/O): that blocks the thread running
 * it, not its processor. A task must not wait for a sibling task or for
 * code of its spawner that follows the spawn: they may not have started
 * (use threads for that). parallel_for may run neighbouring indices one
 * after another in the same task.
 */
#ifndef CFA_FORKJOIN_H
#define CFA_FORKJOIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Calls body(first, last, arg) on disjoint sub-ranges that together cover
 * [lo, hi) exactly once; returns after every call has returned. grain: the
 * smallest sub-range worth a task (0: chosen by the runtime from the range
 * and the number of processors). An empty range (hi <= lo) calls nothing. */
void cfa_parallel_for(int64_t lo, int64_t hi, int64_t grain,
                      void (*body)(int64_t first, int64_t last, void *arg), void *arg);

/* Each sub-range's body accumulates into a private accumulator of `size`
 * bytes initialised by copying `identity`; combine(into, from, arg) merges
 * two accumulators (associative; called in index order of the sub-ranges,
 * so a non-commutative combine is fine). The final value is written to
 * `result` (size bytes); an empty range gives `identity`. */
void cfa_parallel_reduce(int64_t lo, int64_t hi, int64_t grain,
                         const void *identity, void *result, size_t size,
                         void (*body)(int64_t first, int64_t last, void *acc, void *arg),
                         void (*combine)(void *into, const void *from, void *arg), void *arg);

/* A task group lives on its creator's stack (or anywhere that outlives
 * the wait): init, any number of spawns, then wait, which returns when
 * every task spawned into the group has finished (tasks spawned by those
 * tasks into the same group included), running the group's pending tasks
 * itself meanwhile. The thread that first spawned into a group is the
 * one that waits on it (a fatal error otherwise), unless that spawn ran
 * in a coroutine: then any thread may. After wait the group may be used
 * again. An all-zero
 * group is initialised (so cfacc's `corun` declares one `= {0}` and waits
 * on it with the cleanup attribute). Fields are private to the runtime. */
typedef struct cfa_task_group {
    uint64_t           state;    /* counted tasks, stolen ones, WAITING */
    struct cfa_thread *waiter;   /* parked in wait, or NULL */
    struct cfa_thread *owner;    /* spawns without counting (forkjoin.c) */
    uint64_t           pushed, popped; /* the owner's uncounted tasks */
} cfa_task_group;

void cfa_task_group_init(cfa_task_group *g);
void cfa_task_spawn(cfa_task_group *g, void (*fn)(void *arg), void *arg);
void cfa_task_group_wait(cfa_task_group *g);

#ifdef __cplusplus
}
#endif
#endif
