// join: several joiners on one thread (all wake, after it halts), join of
// a halted thread (returns at once, any number of times), join of a thread
// never started, and results read after join, on 1 and 2 processors.
// (Reuse of a destroyed descriptor: thread_reuse.c.)
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: %timeout %t %stress 1 | FileCheck %s
// RUN: %timeout %t %stress 2 | FileCheck %s
// CHECK: joiners: 16 joined one target after it halted
// CHECK-NEXT: halted: joined 3 more times at once
// CHECK-NEXT: never started: join returns at once
#include "check.h"

struct target {
    _Atomic int       release;
    _Atomic int       done;
    long              result;
    struct cfa_thread thread;
};

static void target_main(void *object) {
    struct target *t = object;
    while (!atomic_load(&t->release)) cfa_yield();
    t->result = 42;
    atomic_store(&t->done, 1);
}

enum { JOINERS = 16 };
struct joiner {
    struct target    *target;
    int               saw_done;
    long              saw_result;
    struct cfa_thread thread;
};
static _Atomic int joining;

static void joiner_main(void *object) {
    struct joiner *j = object;
    atomic_fetch_add(&joining, 1);
    cfa_thread_join(&j->target->thread);
    j->saw_done = atomic_load(&j->target->done);
    j->saw_result = j->target->result;
    CHECK_EQ(j->target->thread.state, CFA_THREAD_HALTED);
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    struct extra_procs procs;
    procs_start(&procs, (int)arg_long(argc, argv, 2, 1));
    for (long r = 0; r < reps; r++) {
        struct target t;
        memset(&t, 0, sizeof t);
        cfa_thread_start(&t.thread, target_main, &t, "Target", 0);
        struct joiner js[JOINERS];
        memset(js, 0, sizeof js);
        atomic_store(&joining, 0);
        for (int i = 0; i < JOINERS; i++) {
            js[i].target = &t;
            cfa_thread_start(&js[i].thread, joiner_main, &js[i], "Joiner", 0);
        }
        /* Let every joiner block in join first (best effort), then release. */
        while (atomic_load(&joining) < JOINERS) cfa_yield();
        for (int i = 0; i < 100; i++) cfa_yield();
        atomic_store(&t.release, 1);
        for (int i = 0; i < JOINERS; i++) cfa_thread_join(&js[i].thread);
        for (int i = 0; i < JOINERS; i++) {
            CHECK(js[i].saw_done == 1, "joiner %d returned before the target halted", i);
            CHECK_EQ(js[i].saw_result, 42);
            cfa_thread_destroy(&js[i].thread);
        }
        if (r == 0) printf("joiners: %d joined one target after it halted\n", JOINERS);

        /* halted: join again, from main, three times */
        for (int i = 0; i < 3; i++) {
            cfa_thread_join(&t.thread);
            CHECK_EQ(t.thread.state, CFA_THREAD_HALTED);
        }
        cfa_thread_destroy(&t.thread);
        if (r == 0) printf("halted: joined 3 more times at once\n");

        /* never started: all-zero descriptor */
        struct target idle;
        memset(&idle, 0, sizeof idle);
        cfa_thread_join(&idle.thread);
        cfa_thread_join(&idle.thread);
        CHECK_EQ(idle.thread.state, CFA_THREAD_INACTIVE);
        cfa_thread_destroy(&idle.thread);
        if (r == 0) printf("never started: join returns at once\n");

    }
    procs_stop(&procs);
    return 0;
}
