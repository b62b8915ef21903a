/* deadlock.c: the report when every thread is blocked for good.
 *
 * A processor about to block in idle sleep calls deadlock_check. The
 * program is deadlocked when, at once: every processor of every cluster
 * has committed to sleep (benaphore state SLEEP, so no notification is in
 * flight to any of them), no timer or I/O completion is pending, and no
 * ready queue holds a thread. Nothing inside the runtime can then make a
 * thread ready again, so the blocked threads are listed and the program
 * exits with status 1.
 *
 * A kernel thread the runtime did not create (the program's own pthreads)
 * could still call cfa_unpark later, so while one exists the check stays
 * silent: every runtime kernel thread counts itself (runtime_kthreads) and
 * the check compares with the tasks in /proc/self/task, less io_uring's
 * in-kernel workers. This costs a directory read, only when every
 * processor has just fallen asleep.
 * CFA_DEADLOCK_DETECTION=0 turns the check off.
 */
#include "cluster.h"
#include "deadlock.h"
#include "idle.h"
#include "processor.h"
#include "ready_queue.h"
#include "registry.h"
#include "environment.h"
#include "context.h"

#include <cfa/runtime.h>
#include <dirent.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Atomic long runtime_pending_wakeups;
static _Atomic int runtime_kthreads = 1; /* the main kernel thread */
/* ThreadSanitizer's background thread exists in a child of fork() only
 * if the parent had one kernel thread (TSan restarts it then), which the
 * child cannot tell. */
static bool tsan_thread_unknown;

void runtime_kthread_enter(void) { atomic_fetch_add(&runtime_kthreads, 1); }
void runtime_kthread_leave(void) { atomic_fetch_sub(&runtime_kthreads, 1); }

void deadlock_fork_child(bool forking_processor)
{
    atomic_store(&runtime_pending_wakeups, 0);
    atomic_store(&runtime_kthreads, forking_processor ? 1 : 0);
#ifdef CFA_TSAN
    tsan_thread_unknown = true;
#endif
}

/* Whether task `tid` of this process is one of io_uring's own workers
 * (iou-wrk-*, iou-sqp-*): the kernel starts them inside the process for
 * requests it cannot complete inline (a file read, an openat), and they
 * never call into the runtime. Anything unreadable counts as foreign. */
static bool io_uring_worker(const char *tid)
{
    char path[64], comm[32] = {0};
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", tid);
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    bool worker = fgets(comm, sizeof comm, f) && strncmp(comm, "iou-", 4) == 0;
    fclose(f);
    return worker;
}

/* Whether a kernel thread the runtime did not create exists. */
static bool foreign_kthreads(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return true; /* cannot tell: do not claim a deadlock */
    if (tsan_thread_unknown)
        return true;
    int tasks = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.' && !io_uring_worker(e->d_name))
            tasks++;
    closedir(d);
    int ours = atomic_load(&runtime_kthreads);
#ifdef CFA_TSAN
    if (ours > 1)
        ours++; /* ThreadSanitizer's background thread, started with the second thread */
#endif
    return tasks > ours;
}

static bool detection = true;

void deadlock_configure(void)
{
    detection = env_flag(ENV_CFA_DEADLOCK_DETECTION);
}

static bool all_processors_asleep(void)
{
    for (struct cfa_processor_state *p = registry_processors(); p; p = p->all_next)
        if (atomic_load(&p->sleeper.state) != IDLE_SLEEP)
            return false;
    return true;
}

static bool any_thread_ready(void)
{
    for (struct cfa_processor_state *p = registry_processors(); p; p = p->all_next)
        if (ready_queue_any(&p->cluster->state->ready))
            return true;
    return false;
}

static void report(void)
{
    fflush(stdout);
    fprintf(stderr, "cfa: deadlock: every thread is blocked and nothing can wake one\n");
    registry_lock_threads();
    for (struct cfa_thread *t = registry_threads(); t; t = t->all_next) {
        int state = atomic_load(&t->state);
        const char *what = state == CFA_THREAD_BLOCKED ? (t->wait_reason ? t->wait_reason : "park")
                         : state == CFA_THREAD_READY   ? "ready, on a cluster with no processor"
                                                       : "running";
        if (t->id == 0)
            fprintf(stderr, "cfa:   the program's main thread: blocked in %s\n", what);
        else if (t->self.name)
            fprintf(stderr, "cfa:   thread \"%s\" (type %s, id %llu): blocked in %s\n", t->self.name,
                    t->self.type_name, (unsigned long long)t->id, what);
        else
            fprintf(stderr, "cfa:   thread of type %s (id %llu): blocked in %s\n", t->self.type_name,
                    (unsigned long long)t->id, what);
    }
    registry_unlock_threads();
    _exit(1);
}

void deadlock_check(void *processor)
{
    (void)processor;
    if (!detection || atomic_load(&runtime_pending_wakeups) != 0)
        return;
    registry_lock_processors();
    bool dead = all_processors_asleep() && atomic_load(&runtime_pending_wakeups) == 0 &&
                !any_thread_ready() && all_processors_asleep();
    registry_unlock_processors();
    if (dead && foreign_kthreads())
        return;
    if (dead)
        report();
}
