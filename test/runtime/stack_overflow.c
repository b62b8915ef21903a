// A stack overflow in a user thread is reported as "stack overflow",
// naming the thread: its type name (given to cfa_thread_start) and the
// name set with cfa_thread_set_name. A sanitizer intercepts the fault
// itself, so these runs are for the plain build.
//
// UNSUPPORTED: asan, tsan
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: not --crash %timeout %t 1 > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=TYPE < %t.err
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// RUN: not --crash %timeout %t 1 diver-7 > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefixes=TYPE,NAME < %t.err
// RUN: not --crash %timeout %t 1 diver-7 small > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefixes=TYPE,NAME < %t.err
// RUN: %timeout %t 1 shallow control | FileCheck %s --check-prefix=CONTROL
//
// The order of the three facts on the line(s) is free: check each.
// TYPE-DAG: {{[Ss]tack overflow}}
// TYPE-DAG: Deep
// NAME-DAG: diver-7
// OUT: thread started
// OUT-NOT: unreachable
// CONTROL: control: depth 100 returned 0
#include "check.h"

struct deep {
    long              depth, result;
    struct cfa_thread thread;
};

static int recurse(long n) {
    volatile char pad[256];
    pad[0] = (char)n;
    return n == 0 ? 0 : recurse(n - 1) + pad[0] - (char)n;
}

static void deep_main(void *object) {
    struct deep *d = object;
    printf("thread started\n");
    fflush(stdout);
    d->result = recurse(d->depth);
}

int main(int argc, char **argv) {
    const char *name = argc > 2 && strcmp(argv[2], "shallow") != 0 ? argv[2] : NULL;
    int small = argc > 3 && strcmp(argv[3], "small") == 0;
    int control = argc > 3 && strcmp(argv[3], "control") == 0;
    static struct deep d;
    d.depth = control ? 100 : 1L << 30;
    cfa_thread_start(&d.thread, deep_main, &d, "Deep", small ? 16384 : 0);
    if (name) cfa_thread_set_name(&d.thread, name);
    cfa_thread_join(&d.thread);
    if (control) {
        printf("control: depth %ld returned %ld\n", d.depth, d.result);
        return 0;
    }
    printf("unreachable\n");
    return 0;
}
