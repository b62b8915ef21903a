// The deadlock report: when every processor has committed to sleep, no
// timer or I/O wake-up is pending and no ready queue holds a thread,
// nothing can ever run again, so the runtime lists the blocked threads on
// stderr and exits with status 1 instead of hanging (runtime/src/
// deadlock.c). Output written before is flushed first.
//
//   monitor  a thread waits on a monitor condition nobody will signal;
//            main joins it (1 processor);
//   parked   two named threads park forever; main joins them, on 4
//            processors (all four must be asleep for the report);
//   timer    not a deadlock: every thread is blocked, but main sleeps on
//            a timer, then unparks the parked thread: no report, exit 0.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: not %timeout %t 1 monitor 2>&1 | FileCheck %s --check-prefix=MONITOR
// RUN: not %timeout %t 1 parked 2>&1 | FileCheck %s --check-prefix=PARKED
// RUN: %timeout %t %stress timer 2>&1 | FileCheck %s --check-prefix=TIMER
// MONITOR: started: waiter waits on a condition nobody signals
// MONITOR: deadlock
// MONITOR-DAG: thread "waiter" (type Waiter, id {{[0-9]+}}): blocked in condition wait
// MONITOR-DAG: the program's main thread: blocked in join
// MONITOR-NOT: unreachable
// PARKED: started: alice and bob park forever on 4 processors
// PARKED: deadlock
// PARKED-DAG: thread "alice" (type Parker, id {{[0-9]+}}): blocked in park
// PARKED-DAG: thread "bob" (type Parker, id {{[0-9]+}}): blocked in park
// PARKED-DAG: the program's main thread: blocked in join
// PARKED-NOT: unreachable
// TIMER-NOT: deadlock
// TIMER: timer: all threads blocked while a timer is pending, no report ok
// TIMER-NOT: deadlock
#include "sched_test.h"

struct waiter {
    struct cfa_monitor   monitor;
    struct cfa_condition cond;
    struct cfa_thread    thread;
};

static void stuck(struct waiter *w) {
    struct cfa_monitor *m = &w->monitor;
    struct cfa_mutex_group g;
    cfa_mutex_enter(&g, &m, 1, (const void *)stuck);
    cfa_wait(&w->cond, 0);
    cfa_mutex_leave(&g);
}

static void waiter_main(void *object) { stuck(object); }

struct parker {
    _Atomic int       parked;
    struct cfa_thread thread;
};

static void parker_main(void *object) {
    struct parker *p = object;
    atomic_store(&p->parked, 1);
    cfa_park();
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    CHECK(argc > 2, "usage: deadlock REPEAT monitor|parked|timer");
    const char *mode = argv[2];
    if (!strcmp(mode, "monitor")) {
        static struct waiter w;
        cfa_thread_start(&w.thread, waiter_main, &w, "Waiter", 0);
        cfa_thread_set_name(&w.thread, "waiter");
        printf("started: waiter waits on a condition nobody signals\n");
        cfa_thread_join(&w.thread);
    } else if (!strcmp(mode, "parked")) {
        struct extra_procs extra;
        procs_start(&extra, 4);
        static struct parker p[2];
        static const char *names[2] = { "alice", "bob" };
        for (int i = 0; i < 2; i++) {
            cfa_thread_start(&p[i].thread, parker_main, &p[i], "Parker", 0);
            cfa_thread_set_name(&p[i].thread, names[i]);
        }
        printf("started: alice and bob park forever on 4 processors\n");
        for (int i = 0; i < 2; i++) cfa_thread_join(&p[i].thread);
    } else if (!strcmp(mode, "timer")) {
        for (rep_index = 0; rep_index < reps; rep_index++) {
            struct extra_procs extra;
            procs_start(&extra, 2);
            struct parker p;
            memset(&p, 0, sizeof p);
            cfa_thread_start(&p.thread, parker_main, &p, "Parker", 0);
            while (!atomic_load(&p.parked)) cfa_yield();
            cfa_sleep_ns(300000000); /* meanwhile every thread is blocked */
            cfa_unpark(&p.thread);
            cfa_thread_join(&p.thread);
            cfa_thread_destroy(&p.thread);
            procs_stop(&extra);
        }
        printf("timer: all threads blocked while a timer is pending, no report ok\n");
        return 0;
    } else {
        CHECK(0, "unknown mode %s", mode);
    }
    printf("unreachable: the join returned\n");
    return 0;
}
