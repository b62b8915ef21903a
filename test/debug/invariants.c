// The debug build's invariant checks fire (docs/architecture.md,
// "Invariants checked in the debug build"): for each family, this program
// breaks one invariant on purpose through a hook of cfa/debug.h, and the
// runtime stops with the invariant's name, the thread and the place. The
// program runs on the main processor alone, so what a hook breaks is seen
// by the next operation of that processor, whatever the schedule.
//
// REQUIRES: debug
// RUN: %cc %s -I%S/../runtime/include -o %t %cfa-link
// RUN: not --crash %timeout %t lane-holder 2>&1 | FileCheck %s --check-prefix=LANE-HOLDER
// RUN: not --crash %timeout %t lane-stamp 2>&1 | FileCheck %s --check-prefix=LANE-STAMP
// RUN: not --crash %timeout %t one-queue 2>&1 | FileCheck %s --check-prefix=ONE-QUEUE
// RUN: not --crash %timeout %t thread-state 2>&1 | FileCheck %s --check-prefix=THREAD-STATE
// RUN: not --crash %timeout %t resize-lock 2>&1 | FileCheck %s --check-prefix=RESIZE-LOCK
// RUN: not --crash %timeout %t idle-stack 2>&1 | FileCheck %s --check-prefix=IDLE-STACK
// RUN: not --crash %timeout %t idle-benaphore 2>&1 | FileCheck %s --check-prefix=IDLE-BENAPHORE
// RUN: not --crash %timeout %t monitor-owner 2>&1 | FileCheck %s --check-prefix=MONITOR-OWNER
// RUN: not --crash %timeout %t condition-queue 2>&1 | FileCheck %s --check-prefix=CONDITION-QUEUE
// RUN: not --crash %timeout %t entry-queue 2>&1 | FileCheck %s --check-prefix=ENTRY-QUEUE
// RUN: not --crash %timeout %t coroutine-chain 2>&1 | FileCheck %s --check-prefix=COROUTINE-CHAIN
// RUN: not --crash %timeout %t io-accounting 2>&1 | FileCheck %s --check-prefix=IO-ACCOUNTING
// RUN: not --crash %timeout %t timer-heap 2>&1 | FileCheck %s --check-prefix=TIMER-HEAP
// RUN: %timeout %t none 2>&1 | FileCheck %s --check-prefix=NONE
//
// LANE-HOLDER: cfa-lite: invariant 'lane lock held by the pusher' broken in thread 'main' (0x{{[0-9a-f]+}}) at ready_queue.c:{{[0-9]+}}
// LANE-STAMP: cfa-lite: invariant 'lane head_stamp is its head's ready stamp (0 when empty)' broken in thread 'scheduler' (0x{{[0-9a-f]+}}) at ready_queue.c:{{[0-9]+}}
// ONE-QUEUE: cfa-lite: invariant 'a thread is in at most one queue' broken in thread 'main' (0x{{[0-9a-f]+}}) at thread_internal.h:{{[0-9]+}}
// THREAD-STATE: cfa-lite: invariant 'thread state machine: HALTED -> READY is not a transition' broken in thread 'main' (0x{{[0-9a-f]+}}) at thread_internal.h:{{[0-9]+}}
// RESIZE-LOCK: cfa-lite: invariant 'resize lock: a reader section is left only after it was entered' broken in thread 'main' (0x{{[0-9a-f]+}}) at resize_lock.h:{{[0-9]+}}
// IDLE-STACK: cfa-lite: invariant 'a processor is on its cluster's idle stack at most once' broken in thread 'main' (0x{{[0-9a-f]+}}) at idle.c:{{[0-9]+}}
// IDLE-BENAPHORE: cfa-lite: invariant 'idle benaphore: a processor registers only while awake or searching' broken in thread 'main' (0x{{[0-9a-f]+}}) at idle.c:{{[0-9]+}}
// MONITOR-OWNER: cfa-lite: invariant 'a waiting thread owns every monitor of its mutex call' broken in thread 'main' (0x{{[0-9a-f]+}}) at monitor.c:{{[0-9]+}}
// CONDITION-QUEUE: cfa-lite: invariant 'queue: a head exactly when a tail, and the tail last' broken in thread 'main' (0x{{[0-9a-f]+}}) at queue.h:{{[0-9]+}}
// ENTRY-QUEUE: cfa-lite: invariant 'queue: a head exactly when a tail, and the tail last' broken in thread 'main' (0x{{[0-9a-f]+}}) at queue.h:{{[0-9]+}}
// COROUTINE-CHAIN: cfa-lite: invariant 'coroutine chain: a suspending coroutine's last resumer is active' broken in thread 'main' (0x{{[0-9a-f]+}}) at coroutine.c:{{[0-9]+}}
// IO-ACCOUNTING: cfa-lite: invariant 'io_uring: every reaped completion was counted in flight' broken in thread '{{main|scheduler|Reader}}' (0x{{[0-9a-f]+}}) at io_uring.c:{{[0-9]+}}
// TIMER-HEAP: cfa-lite: invariant 'timer heap order: no deadline earlier than its parent's' broken in thread 'main' (0x{{[0-9a-f]+}}) at timer.c:{{[0-9]+}}
// NONE: nothing broken: every check held
#include <cfa/debug.h>
#include <cfa/io.h>
#include <cfa/runtime.h>
#include <cfa/sleep.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void nothing(void *unused) { (void)unused; }

/* Yields until t has blocked (parked): it then sits in the queue or the
 * I/O request or the timer it blocked on. */
static void until_blocked(struct cfa_thread *t)
{
    while (atomic_load(&t->state) != CFA_THREAD_BLOCKED)
        cfa_yield();
}

static struct cfa_monitor m;
static struct cfa_condition c;
static const char some_function[] = "f";

static void waiter(void *unused)
{
    (void)unused;
    struct cfa_monitor *ms[] = { &m };
    struct cfa_mutex_group g;
    cfa_mutex_enter(&g, ms, 1, some_function);
    cfa_wait(&c, 0);
    cfa_mutex_leave(&g);
}

static void caller(void *unused)
{
    (void)unused;
    struct cfa_monitor *ms[] = { &m };
    struct cfa_mutex_group g;
    cfa_mutex_enter(&g, ms, 1, some_function);
    cfa_mutex_leave(&g);
}

static void breaks_chain(void *unused)
{
    (void)unused;
    cfa_debug_coroutine_break_chain();
    cfa_coroutine_suspend();
}

static int pipe_fds[2];
static void reader(void *unused)
{
    (void)unused;
    char byte;
    cfa_read(pipe_fds[0], &byte, 1);
}

static void sleeper(void *seconds) { cfa_sleep_ns((long)(intptr_t)seconds * 1000000000L); }

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "none";
    static struct cfa_thread t, u;
    if (!strcmp(what, "lane-holder")) {
        cfa_debug_inject("lane-holder");
        cfa_thread_start(&t, nothing, NULL, "Worker", 0);
    } else if (!strcmp(what, "lane-stamp")) {
        cfa_debug_inject("lane-stamp");
        cfa_thread_start(&t, nothing, NULL, "Worker", 0);
        cfa_thread_join(&t);
    } else if (!strcmp(what, "one-queue")) {
        cfa_thread_start(&t, nothing, NULL, "Worker", 0); /* ready, in a lane */
        cfa_debug_make_ready(&t);
    } else if (!strcmp(what, "thread-state")) {
        cfa_thread_start(&t, nothing, NULL, "Worker", 0);
        cfa_thread_join(&t);                              /* halted */
        cfa_debug_make_ready(&t);
    } else if (!strcmp(what, "resize-lock")) {
        cfa_debug_ready_leave();
    } else if (!strcmp(what, "idle-stack")) {
        cfa_debug_idle_register_twice();
    } else if (!strcmp(what, "idle-benaphore")) {
        cfa_debug_idle_register_asleep();
    } else if (!strcmp(what, "monitor-owner")) {
        struct cfa_monitor *ms[] = { &m };
        struct cfa_mutex_group g;
        cfa_mutex_enter(&g, ms, 1, some_function);
        cfa_debug_monitor_set_owner(&m, &t);
        cfa_wait(&c, 0);
    } else if (!strcmp(what, "condition-queue")) {
        cfa_thread_start(&t, waiter, NULL, "Waiter", 0);
        until_blocked(&t);                                /* in c's queue */
        struct cfa_monitor *ms[] = { &m };
        struct cfa_mutex_group g;
        cfa_mutex_enter(&g, ms, 1, some_function);
        cfa_debug_condition_cut(&c);
        cfa_signal(&c);
    } else if (!strcmp(what, "entry-queue")) {
        struct cfa_monitor *ms[] = { &m };
        struct cfa_mutex_group g;
        cfa_mutex_enter(&g, ms, 1, some_function);
        cfa_thread_start(&t, caller, NULL, "Caller", 0);
        until_blocked(&t);                                /* in m's entry queue */
        cfa_debug_monitor_cut_entry_queue(&m);
        cfa_mutex_leave(&g);
    } else if (!strcmp(what, "coroutine-chain")) {
        static struct cfa_coroutine co;
        cfa_coroutine_setup(&co, breaks_chain, NULL, "Chain");
        cfa_coroutine_resume(&co);
    } else if (!strcmp(what, "io-accounting")) {
        if (strcmp(cfa_io_engine(), "io_uring")) {
            printf("no io_uring here: %s\n", cfa_io_engine());
            return 1;
        }
        if (pipe(pipe_fds)) return 1;
        cfa_thread_start(&t, reader, NULL, "Reader", 0);
        until_blocked(&t);                                /* its read is in flight */
        cfa_debug_io_forget_inflight();
        if (write(pipe_fds[1], "x", 1) != 1) return 1;
        cfa_thread_join(&t);
    } else if (!strcmp(what, "timer-heap")) {
        cfa_thread_start(&t, sleeper, (void *)(intptr_t)100, "Sleeper", 0);
        cfa_thread_start(&u, sleeper, (void *)(intptr_t)200, "Sleeper", 0);
        until_blocked(&t);
        until_blocked(&u);                                /* both in the heap */
        cfa_debug_timer_disorder();
    } else if (!strcmp(what, "none")) {
        printf("nothing broken: every check held\n");
        return 0;
    } else {
        fprintf(stderr, "unknown invariant family %s\n", what);
        return 2;
    }
    printf("%s: the broken invariant went unnoticed\n", what);
    return 0;
}
