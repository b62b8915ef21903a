// mutex_lock, functional: all-zero is unlocked; try_lock and holds; a
// locker blocks (parks) while another thread holds the lock and gets it
// after the unlock; threads that yield inside their critical sections still
// exclude each other.
//
// RUN: %std-cc %s -o %t %std-link
// RUN: %timeout %t | FileCheck %s
// CHECK: try_lock, holds ok
// CHECK-NEXT: blocked locker ok
// CHECK-NEXT: 4 threads yielding inside: exclusion ok
#include "tasks.h"

#include <cfa/locks.hfa>

static mutex_lock m;
static _Atomic int got_it;
static void locker(void *unused) {
    lock(&m);
    atomic_store(&got_it, 1);
    unlock(&m);
}

static int inside, counter;
static void yielder(void *unused) {
    for (int i = 0; i < 1000; i++) {
        lock(&m);
        CHECK_EQ(inside++, 0);
        cfa_yield();
        counter++;
        inside--;
        unlock(&m);
    }
}

int main(void) {
    CHECK(!holds(&m), "holds an all-zero lock");
    CHECK(try_lock(&m), "try_lock of a free lock");
    CHECK(holds(&m), "holds after try_lock");
    CHECK(!try_lock(&m), "try_lock of a held lock (even by its holder) fails");
    unlock(&m);
    CHECK(!holds(&m), "holds after unlock");
    printf("try_lock, holds ok\n");

    lock(&m);
    struct task *t = task_spawn(locker, NULL, "locker");
    YIELD_UNTIL(atomic_load(&t->thread.state) == CFA_THREAD_BLOCKED);
    CHECK_EQ(atomic_load(&got_it), 0);
    unlock(&m);
    task_join(t);
    CHECK_EQ(atomic_load(&got_it), 1);
    CHECK(try_lock(&m), "free again");
    unlock(&m);
    printf("blocked locker ok\n");

    struct task *ts[4];
    for (int i = 0; i < 4; i++) ts[i] = task_spawn(yielder, NULL, "yielder");
    for (int i = 0; i < 4; i++) task_join(ts[i]);
    CHECK_EQ(counter, 4000);
    printf("4 threads yielding inside: exclusion ok\n");
    return 0;
}
