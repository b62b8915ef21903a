// cfa_thread_destroy releases everything the thread holds: the descriptor
// may then be reused. One descriptor is started, joined and destroyed 100
// times without being zeroed again; each start is a new thread (new id)
// whose main runs exactly once.
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: reuse: one descriptor started 100 times ok
#include "check.h"

struct counter {
    long              n;
    struct cfa_thread thread;
};
static void counter_main(void *object) { ((struct counter *)object)->n++; }

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    for (long r = 0; r < reps; r++) {
        struct counter c;
        memset(&c, 0, sizeof c);
        uint64_t last_id = 0;
        for (int i = 0; i < 100; i++) {
            cfa_thread_start(&c.thread, counter_main, &c, "Counter", 0);
            cfa_thread_join(&c.thread);
            CHECK_EQ(c.n, i + 1);
            CHECK(i == 0 || c.thread.id != last_id, "reused descriptor kept id %llu",
                  (unsigned long long)last_id);
            last_id = c.thread.id;
            cfa_thread_destroy(&c.thread);
        }
    }
    printf("reuse: one descriptor started 100 times ok\n");
    return 0;
}
