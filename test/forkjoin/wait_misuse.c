// A task group is waited on by the thread that first spawned into it: a
// wait from another thread is a fatal error naming the mistake (the other
// thread cannot see the spawner's own bookkeeping); the control run waits
// from the spawner.
//
// RUN: %cc %s -I%S/../runtime/include -o %t %cfa-link
// RUN: not --crash %timeout %t other 2>&1 | FileCheck %s --check-prefix=OTHER
// RUN: %timeout %t control | FileCheck %s --check-prefix=CONTROL
// OTHER: cfa: error: wait on a task group from a thread other than the one that spawned into it first
// OTHER-NOT: unreachable
// CONTROL: control: 1
#include "check.h"
#include "task.h"

#include <cfa/forkjoin.h>

static cfa_task_group group;
static _Atomic int    ran;

static void child(void *arg) { atomic_fetch_add(&ran, 1); }
static void waiter(void *arg) { cfa_task_group_wait(&group); }

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    cfa_task_group_init(&group);
    cfa_task_spawn(&group, child, NULL);
    if (strcmp(mode, "other") == 0) {
        struct task t;
        task_start(&t, waiter, NULL, "Waiter");
        cfa_thread_join(&t.thread);
        puts("unreachable");
        return 0;
    }
    cfa_task_group_wait(&group);
    printf("control: %d\n", atomic_load(&ran));
    return 0;
}
