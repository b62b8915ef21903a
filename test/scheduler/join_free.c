// Join, destroy and free a thread the moment it halts, on 2 processors,
// 20,000 times. Once cfa_thread_join has returned (or cfa_thread_destroy,
// which joins), the program owns the thread object again and may free or
// reuse it: the processor that ran the halting thread must not touch the
// object after it has published HALTED. A processor still writing the
// thread's join list or unlocking its join lock after that is a data race
// with destroy (ThreadSanitizer) and, once the object is freed, a
// use-after-free (AddressSanitizer). The threads are heap objects, freed
// at once, so the sanitizers see any late access.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: join then free: 20000 threads on 2 processors ok
#include "sched_test.h"

enum { THREADS = 20000 };

struct quick {
    long              ran;
    struct cfa_thread thread;
};

static void quick_main(void *object) {
    struct quick *q = object;
    q->ran++;
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    struct extra_procs extra;
    procs_start(&extra, 2);
    for (rep_index = 0; rep_index < reps; rep_index++) {
        long ran = 0;
        for (int i = 0; i < THREADS; i++) {
            struct quick *q = calloc(1, sizeof *q);
            CHECK(q != NULL);
            cfa_thread_start(&q->thread, quick_main, q, "Quick", 0);
            if (i % 2) cfa_yield(); /* sometimes let it halt first, sometimes join while it runs */
            cfa_thread_destroy(&q->thread);
            CHECK_EQ(atomic_load(&q->thread.state), CFA_THREAD_INACTIVE);
            ran += q->ran;
            free(q);
        }
        CHECK_EQ(ran, THREADS);
        REPORT("join then free: %d threads on 2 processors ok\n", THREADS);
    }
    procs_stop(&extra);
    return 0;
}
