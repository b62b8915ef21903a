/* registry.c: every live thread, every started coroutine and every
 * processor, across clusters.
 *
 * Read only off the hot paths: the deadlock report lists blocked threads,
 * the preemption ticker visits processors, the debugger (tools/gdb) lists
 * threads and coroutines, a child of fork() visits clusters and
 * processors (fork.c). Each list is under its own spinlock; a thread is
 * registered from its start to its halt, a coroutine from its first resume
 * to its halt or its destruction. A processor
 * is registered from the moment it is started until its kernel thread has
 * been joined, so the deadlock check never misses one that is still
 * coming or going; it accepts signals only while its kernel thread runs
 * (`signalable`).
 */
#include "all_list.h"
#include "cluster.h"
#include "kthread.h"
#include "one_processor.h"
#include "processor.h"
#include "registry.h"
#include "spinlock.h"
#include <cfa/runtime.h>
#include <stdatomic.h>
#include <stdbool.h>

static _Atomic int threads_lock;
static struct cfa_thread *threads;
static _Atomic int coroutines_lock;
static struct cfa_coroutine *coroutines;
static _Atomic int processors_lock;
static struct cfa_processor_state *processors;
static unsigned nprocessors;
static _Atomic int clusters_lock;
static struct cfa_cluster_state *clusters;

void registry_add_thread(struct cfa_thread *t)
{
    spin_lock(&threads_lock);
    ALL_LIST_PUSH(threads, t);
    spin_unlock(&threads_lock);
}

void registry_remove_thread(struct cfa_thread *t)
{
    spin_lock(&threads_lock);
    ALL_LIST_REMOVE(threads, t);
    spin_unlock(&threads_lock);
}

void registry_add_coroutine(struct cfa_coroutine *c)
{
    spin_lock(&coroutines_lock);
    ALL_LIST_PUSH(coroutines, c);
    spin_unlock(&coroutines_lock);
}

void registry_remove_coroutine(struct cfa_coroutine *c)
{
    spin_lock(&coroutines_lock);
    ALL_LIST_REMOVE(coroutines, c);
    spin_unlock(&coroutines_lock);
}

struct cfa_processor_state *registry_add_processor(struct cfa_processor_state *p)
{
    spin_lock(&processors_lock);
    struct cfa_processor_state *sole = nprocessors == 1 ? processors : NULL;
    ALL_LIST_PUSH(processors, p);
    one_processor_count_changed(++nprocessors);
    spin_unlock(&processors_lock);
    return sole;
}

void registry_remove_processor(struct cfa_processor_state *p)
{
    spin_lock(&processors_lock);
    ALL_LIST_REMOVE(processors, p);
    one_processor_count_changed(--nprocessors);
    spin_unlock(&processors_lock);
}

void registry_processor_signalable(struct cfa_processor_state *p, bool yes)
{
    spin_lock(&processors_lock);
    if (yes)
        p->self_kthread = pthread_self();
    p->signalable = yes;
    spin_unlock(&processors_lock);
}

void registry_lock_processors(void) { spin_lock(&processors_lock); }
void registry_unlock_processors(void) { spin_unlock(&processors_lock); }
struct cfa_processor_state *registry_processors(void) { return processors; }

void registry_lock_threads(void) { spin_lock(&threads_lock); }
void registry_unlock_threads(void) { spin_unlock(&threads_lock); }
struct cfa_thread *registry_threads(void) { return threads; }

void registry_add_cluster(struct cfa_cluster_state *cs)
{
    spin_lock(&clusters_lock);
    ALL_LIST_PUSH(clusters, cs);
    spin_unlock(&clusters_lock);
}

void registry_remove_cluster(struct cfa_cluster_state *cs)
{
    spin_lock(&clusters_lock);
    ALL_LIST_REMOVE(clusters, cs);
    spin_unlock(&clusters_lock);
}

struct cfa_cluster_state *registry_clusters(void) { return clusters; }

/* fork.c, steps P1/P2: always in this order. */
void registry_lock_for_fork(void)
{
    spin_lock(&clusters_lock);
    spin_lock(&processors_lock);
    spin_lock(&coroutines_lock);
}

void registry_unlock_after_fork(void)
{
    spin_unlock(&coroutines_lock);
    spin_unlock(&processors_lock);
    spin_unlock(&clusters_lock);
}

/* fork.c, step C1: the thread list may have been half-way through a
 * change by a kernel thread that is gone, so it is rebuilt, not kept. */
void registry_fork_child(struct cfa_thread *survivor)
{
    threads = NULL;
    if (survivor)
        ALL_LIST_PUSH(threads, survivor);
    atomic_store(&threads_lock, 0);
    registry_unlock_after_fork();
}
