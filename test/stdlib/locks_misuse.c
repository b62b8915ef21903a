// Lock misuse is fatal and names the thread and, where there is one, the
// holder: unlocking a lock that is free or held by another thread (both
// lock types), relocking a mutex_lock (it would wait for itself forever),
// waiting on a condition without holding its lock, a semaphore with a
// negative count, a barrier of 0 parties, never initialised, destroyed or
// destroyed while a thread waits on it. try_lock of
// a held lock is no error: it returns false (control).
//
// RUN: %std-cc %s -o %t %std-link
// RUN: not --crash %timeout %t mutex_unlock_free 2>&1 | FileCheck %s --check-prefix=MFREE
// RUN: not --crash %timeout %t mutex_unlock_other 2>&1 | FileCheck %s --check-prefix=MOTHER
// RUN: not --crash %timeout %t mutex_relock 2>&1 | FileCheck %s --check-prefix=RELOCK
// RUN: not --crash %timeout %t owner_unlock_free 2>&1 | FileCheck %s --check-prefix=OFREE
// RUN: not --crash %timeout %t owner_unlock_other 2>&1 | FileCheck %s --check-prefix=OOTHER
// RUN: not --crash %timeout %t cv_mutex 2>&1 | FileCheck %s --check-prefix=CVM
// RUN: not --crash %timeout %t cv_owner 2>&1 | FileCheck %s --check-prefix=CVO
// RUN: not --crash %timeout %t sem_negative 2>&1 | FileCheck %s --check-prefix=SEM
// RUN: not --crash %timeout %t barrier_zero 2>&1 | FileCheck %s --check-prefix=BZERO
// RUN: not --crash %timeout %t barrier_uninit 2>&1 | FileCheck %s --check-prefix=BUNINIT
// RUN: not --crash %timeout %t barrier_destroyed 2>&1 | FileCheck %s --check-prefix=BUNINIT
// RUN: not --crash %timeout %t barrier_destroy_busy 2>&1 | FileCheck %s --check-prefix=BBUSY
// RUN: %timeout %t control | FileCheck %s --check-prefix=CONTROL
//
// MFREE: cfa: error: unlock of a mutex_lock that is not locked
// MFREE-NEXT: cfa: in the program's main thread
// MFREE-NOT: unreachable
// MOTHER: cfa: error: unlock of a mutex_lock held by thread holder, not by this thread
// MOTHER-NEXT: cfa: in thread "intruder"
// RELOCK: cfa: error: lock of a mutex_lock that this thread already holds (not recursive: use owner_lock)
// OFREE: cfa: error: unlock of an owner_lock that is not locked
// OOTHER: cfa: error: unlock of an owner_lock held by thread holder, not by this thread
// OOTHER-NEXT: cfa: in thread "intruder"
// OOTHER-NOT: unreachable
// CVM: cfa: error: wait on a condition_variable without holding its mutex_lock
// CVO: cfa: error: wait on a condition_variable without holding its owner_lock
// SEM: cfa: error: semaphore init with a negative count (-1)
// BZERO: cfa: error: barrier init with 0 parties
// BUNINIT: cfa: error: wait on a barrier that was never initialised
// BBUSY: cfa: error: destroy of a barrier that 1 thread waits on
// BBUSY-NOT: unreachable
// CONTROL: try_lock of held locks: 0 0
#include "tasks.h"

#include <cfa/locks.hfa>

static mutex_lock         m;
static owner_lock         o;
static condition_variable cv;

static void unlock_m(void *unused) { unlock(&m); }
static void unlock_o(void *unused) { unlock(&o); }
static barrier           busy;
static void wait_busy(void *unused) { wait(&busy); }
static void try_both(void *p) { ((int *)p)[0] = try_lock(&m); ((int *)p)[1] = try_lock(&o); }

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "mutex_unlock_free") == 0) {
        unlock(&m);
    } else if (strcmp(mode, "mutex_unlock_other") == 0) {
        cfa_thread_set_name(cfa_active_thread(), "holder");
        lock(&m);
        task_join(task_spawn(unlock_m, NULL, "intruder"));
    } else if (strcmp(mode, "mutex_relock") == 0) {
        lock(&m);
        lock(&m);
    } else if (strcmp(mode, "owner_unlock_free") == 0) {
        unlock(&o);
    } else if (strcmp(mode, "owner_unlock_other") == 0) {
        cfa_thread_set_name(cfa_active_thread(), "holder");
        lock(&o);
        task_join(task_spawn(unlock_o, NULL, "intruder"));
    } else if (strcmp(mode, "cv_mutex") == 0) {
        wait(&cv, &m);
    } else if (strcmp(mode, "cv_owner") == 0) {
        wait(&cv, &o);
    } else if (strcmp(mode, "sem_negative") == 0) {
        semaphore s;
        init(&s, -1);
    } else if (strcmp(mode, "barrier_zero") == 0) {
        barrier b;
        init(&b, 0);
    } else if (strcmp(mode, "barrier_uninit") == 0) {
        barrier b = { 0 };
        wait(&b);
    } else if (strcmp(mode, "barrier_destroyed") == 0) {
        barrier b;
        init(&b, 1);
        wait(&b);
        cfa_barrier_destroy(&b);
        wait(&b);
    } else if (strcmp(mode, "barrier_destroy_busy") == 0) {
        init(&busy, 2);
        struct task *t = task_spawn(wait_busy, NULL, "waiter");
        while (atomic_load(&t->thread.state) != CFA_THREAD_BLOCKED) cfa_yield();
        cfa_barrier_destroy(&busy);
    } else if (strcmp(mode, "control") == 0) {
        int got[2] = { -1, -1 };
        lock(&m);
        lock(&o);
        task_join(task_spawn(try_both, got, "trier"));
        printf("try_lock of held locks: %d %d\n", got[0], got[1]);
        return 0;
    }
    puts("unreachable");
    return 0;
}
