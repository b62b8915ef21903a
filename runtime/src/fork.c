/* fork.c: a process made by fork() is a complete cfa-lite process.
 *
 * The child of fork() has one kernel thread: the one that called fork,
 * running the user thread that called it (the survivor), or no user
 * thread if a kernel thread of the program's own forked. The child's copy
 * of the runtime still describes the parent: its other threads, its
 * processors' kernel threads, the helper threads, and io_uring rings,
 * eventfds and an epoll instance that it shares with the parent. Here the
 * child keeps the survivor and the configuration (clusters, processors,
 * their handles) and forgets everything else, so that it runs as any
 * process does: starting threads and processors, blocking calls that park
 * only their caller.
 *
 * Invariants:
 *  - in the child, no ready queue, idle list, timer heap, I/O queue or
 *    pthread bookkeeping lists a thread other than the survivor, and no
 *    unpark makes another thread of the parent ready (fork_ghost);
 *  - the child never touches a ring, eventfd or epoll instance of the
 *    parent's except to close its own descriptor for it;
 *  - while fork_revive_pending, the only processor with a kernel thread is
 *    the forking one (if it is a processor), and the rest are marked
 *    `restart`.
 *
 * Protocol (pthread_atfork handlers, registered before main):
 *   P1 prepare (the forking thread, before fork): take the locks of the
 *      lists the child walks or keeps: the registry's clusters,
 *      processors and coroutines, and the stack pool. No other kernel
 *      thread can then be half-way through changing them at the fork.
 *   P2 parent: release them.
 *   C1 child: release them; the survivor is the only registered thread,
 *      and the threads of the parent are ghosts (fork_ghost);
 *   C2 forget the other threads' waits: the timer heap, pthread
 *      bookkeeping (the count pthread_exit in main waits for), FILE locks
 *      (those other threads held are free, as glibc frees its own),
 *      fork-join pools and their workers;
 *   C3 every cluster: empty lanes, no lock or reader flag held, no idle
 *      processor listed (whatever a vanished kernel thread held is free);
 *   C4 every processor: the forking one gets a new eventfd and a new ring
 *      now (it runs the survivor on); every other is marked `restart`,
 *      its kernel-thread-owned state (stack cache, signal stack) leaked;
 *   C5 the helpers' state (I/O fallback's poller and epoll instance, its
 *      pool, the deadlock check's counts) as before
 *      they started: each starts again on demand;
 *   R  revival, at the first thread start, processor start or stop, or
 *      migration (fork_revive): a kernel thread for every processor
 *      marked `restart`, and the preemption ticker. A child that only
 *      calls exec pays C1-C5 and nothing more.
 */
#include "asym_fence.h"
#include "cluster.h"
#include "deadlock.h"
#include "fork.h"
#include "forkjoin.h"
#include "idle.h"
#include "io_internal.h"
#include "interpose.h"
#include "kthread.h"
#include "preemption.h"
#include "processor.h"
#include "pthread_stdio.h"
#include "pthread_thread.h"
#include "ready_queue.h"
#include "registry.h"
#include "resize_lock.h"
#include "spinlock.h"
#include "stack.h"
#include "thread_internal.h"
#include "timer.h"

#include <cfa/runtime.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

_Atomic bool fork_revive_pending;
uint64_t fork_ghosts_below;
uint64_t fork_survivor_id;

static _Atomic int revive_lock;

/* P1 */
static void prepare(void)
{
    registry_lock_for_fork();
    stack_lock_for_fork();
}

/* P2 */
static void parent(void)
{
    stack_unlock_after_fork();
    registry_unlock_after_fork();
}

static void child(void)
{
    struct cfa_processor_state *self = cfa_tls_processor;
    struct cfa_thread *survivor = self ? self->current : NULL;
    /* C1 */
    fork_ghosts_below = thread_next_id();
    fork_survivor_id = survivor ? survivor->id : UINT64_MAX;
    stack_unlock_after_fork();
    registry_fork_child(survivor);
    /* C2 */
    timer_fork_child();
    pthread_fork_child(survivor);
    stdio_locks_fork_child();
    forkjoin_fork_child(survivor);
    /* C3 */
    if (asym_fence_membarrier && !asym_fence_init()) /* registration is the parent's address space's */
        cfa_fatal("fork: membarrier registration failed in the child");
    for (struct cfa_cluster_state *cs = registry_clusters(); cs; cs = cs->all_next)
        cluster_state_fork_child(cs);
    /* C4 */
    io_processor_fork_child();
    bool restart = false;
    struct cfa_processor_state *next;
    for (struct cfa_processor_state *s = registry_processors(); s; s = next) {
        next = s->all_next;
        restart |= processor_fork_child(s, s == self);
    }
    /* C5 */
    fallback_fork_child();
    io_pool_fork_child();
    deadlock_fork_child(self != NULL);
    atomic_store(&revive_lock, 0);
    atomic_store(&fork_revive_pending, restart || preemption_wanted());
}

__attribute__((constructor)) static void watch_fork(void) { pthread_atfork(prepare, parent, child); }

/* R. Under a lock: a kernel thread of the program's own may start a
 * thread while the survivor does. Nothing here waits for the processors
 * it starts (they report `up` to nobody), so no user thread parks while
 * holding it. */
void fork_revive_slow(void)
{
    spin_lock(&revive_lock);
    if (atomic_load(&fork_revive_pending)) {
        registry_lock_processors();
        for (struct cfa_processor_state *s = registry_processors(); s; s = s->all_next)
            if (s->restart)
                processor_restart(s);
        registry_unlock_processors();
        preemption_restart();
        atomic_store(&fork_revive_pending, false);
    }
    spin_unlock(&revive_lock);
}
