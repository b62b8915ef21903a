// errno belongs to the user thread (POSIX: per thread): three threads on
// two processors each set errno to their own value, yield, and check it
// survived, 800,000 checks in all; the main thread's errno survives too.
// Without the runtime saving it at every switch, the threads on one
// processor share the kernel thread's errno and see each other's values.
//
// RUN: %cc %s -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: errno survived 800000 yields, main's too
#include "check.h"
#include <errno.h>

enum { THREADS = 3, CHECKS = 800000 };

struct worker { int value; long bad; struct cfa_thread thread; };

static void worker_main(void *object) {
    struct worker *w = object;
    for (int i = 0; i < CHECKS / THREADS + (w->value <= CHECKS % THREADS); i++) {
        errno = w->value * 1000 + i % 1000;
        cfa_yield();
        if (errno != w->value * 1000 + i % 1000)
            w->bad++;
    }
}

int main(int argc, char **argv) {
    long repeat = arg_long(argc, argv, 1, 1);
    struct cfa_processor extra = {0};
    cfa_processor_start(&extra);
    for (long r = 0; r < repeat; r++) {
        struct worker w[THREADS];
        memset(w, 0, sizeof w);
        errno = 4242;
        for (int i = 0; i < THREADS; i++) {
            w[i].value = i + 1;
            cfa_thread_start(&w[i].thread, worker_main, &w[i], "worker", 0);
        }
        for (int i = 0; i < THREADS; i++)
            cfa_thread_destroy(&w[i].thread);
        CHECK_EQ(errno, 4242);
        for (int i = 0; i < THREADS; i++)
            CHECK_EQ(w[i].bad, 0);
    }
    cfa_processor_stop(&extra);
    printf("errno survived %d yields, main's too\n", CHECKS);
    return 0;
}
