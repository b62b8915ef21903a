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
// "bounded" overflows a 64 KiB stack by about 9 KiB, less than the guard
// area, returns, and yields: with guard pages the fault names the thread;
// with CFA_STACK_GUARD=canary (no guard page, as stacks get past the
// kernel's mapping budget) the canary check at the yield's context switch
// does, before the overflow could reach another stack.
// RUN: not --crash env CFA_STACK_SIZE=64k %timeout %t 1 diver-7 bounded > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefixes=TYPE,NAME < %t.err
// RUN: not --crash env CFA_STACK_SIZE=64k CFA_STACK_GUARD=canary %timeout %t 1 diver-7 bounded > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefixes=TYPE,NAME,CANARY < %t.err
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// RUN: env CFA_STACK_SIZE=64k CFA_STACK_GUARD=canary %timeout %t 1 shallow control | FileCheck %s --check-prefix=CONTROL
//
// The order of the three facts on the line(s) is free: check each.
// TYPE-DAG: {{[Ss]tack overflow}}
// TYPE-DAG: Deep
// NAME-DAG: diver-7
// OUT: thread started
// OUT-NOT: unreachable
// CANARY: found at its context switch
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

/* Frames of a little over 1 KiB, each written whole (nonzero), as a
 * sequential overflow writes past a stack's bottom. */
static int recurse_kib(long n) {
    volatile char pad[1024];
    for (unsigned i = 0; i < sizeof pad; i++)
        pad[i] = (char)0xa5;
    return n == 0 ? 0 : recurse_kib(n - 1) + pad[0] - pad[1];
}

static void deep_main(void *object) {
    struct deep *d = object;
    printf("thread started\n");
    fflush(stdout);
    if (d->depth < 0) {
        d->result = recurse_kib(-d->depth);
        cfa_yield();
        return;
    }
    d->result = recurse(d->depth);
}

int main(int argc, char **argv) {
    const char *name = argc > 2 && strcmp(argv[2], "shallow") != 0 ? argv[2] : NULL;
    int small = argc > 3 && strcmp(argv[3], "small") == 0;
    int control = argc > 3 && strcmp(argv[3], "control") == 0;
    int bounded = argc > 3 && strcmp(argv[3], "bounded") == 0;
    static struct deep d;
    d.depth = control ? 100 : bounded ? -(long)((cfa_default_stack_size() + 8192) / 1024) : 1L << 30;
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
