// A shared library's own pthread calls bind to the runtime's (symbol
// interposition): a library serialises a callback with its private
// pthread mutex; three user threads call it on two processors with 1 ms
// time slices, and the callback (the program's code, so preemptible) is
// never entered twice at once, and every call completes. With glibc's
// mutex the library's lock belongs to a kernel thread: a preempted holder
// and a waiter on its processor hang the program.
//
// RUN: %cc -shared -fPIC %S/Inputs/locking_library.c -o %t.so
// RUN: %cc %s -I%S/../runtime/include %t.so -Wl,-rpath,%T -o %t %cfa-link
// RUN: env CFA_PREEMPTION_MS=1 %timeout %t %stress | FileCheck %s
// CHECK: library calls 15000, overlaps 0
#include "check.h"

void library_locked_call(void (*work)(void *), void *arg);

enum { THREADS = 3, CALLS = 5000 };
static int inside;
static long calls, overlaps;

static void work(void *arg) {
    (void)arg;
    if (++inside != 1)
        overlaps++;
    for (volatile int i = 0; i < 2000; i++)
        ;
    calls++;
    inside--;
}

struct worker { struct cfa_thread thread; };
static void worker_main(void *object) {
    (void)object;
    for (int i = 0; i < CALLS; i++)
        library_locked_call(work, NULL);
}

int main(int argc, char **argv) {
    long repeat = arg_long(argc, argv, 1, 1);
    struct cfa_processor extra = {0};
    cfa_processor_start(&extra);
    for (long r = 0; r < repeat; r++) {
        calls = 0;
        struct worker w[THREADS];
        memset(w, 0, sizeof w);
        for (int i = 0; i < THREADS; i++)
            cfa_thread_start(&w[i].thread, worker_main, &w[i], "worker", 0);
        for (int i = 0; i < THREADS; i++)
            cfa_thread_destroy(&w[i].thread);
        CHECK_EQ(calls, THREADS * CALLS);
        CHECK_EQ(overlaps, 0);
    }
    cfa_processor_stop(&extra);
    printf("library calls %ld, overlaps %ld\n", calls, overlaps);
    return 0;
}
