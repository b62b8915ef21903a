// A thread's blocking read of an eventfd ends when another thread writes
// it while the reader's processor sleeps (docs/io.md, "Wake-ups and idle
// sleep"). Every write is made only once the reader's processor has
// committed to sleep (test hook CFA_STEP_SLEEPING), the moment at which a
// wake-up that the kernel fails to deliver leaves it asleep for good:
//  - the writer is a kernel thread the runtime did not create (plain
//    write system calls): 1,000 writes;
//  - the writer is a user thread on a processor of another cluster,
//    writing with cfa_write: 1,000 writes.
// The reader adds up what it reads (a read may take several writes at
// once) and must reach the number of writes on both engines.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress default | FileCheck %s
// RUN: env CFA_IO=fallback %timeout %t %stress fallback | FileCheck %s
// CHECK: kernel thread writer: 1000 writes read, each made while the reader's processor slept
// CHECK-NEXT: user thread writer on another cluster: 1000 writes read, each made while the reader's processor slept
#include "iotest.h"
#include <cfa/kernel_thread.h>
#include <cfa/test_hook.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { WRITES = 1000 };

static int efd;
static pid_t reader_kthread;  /* the main processor's kernel thread */
static _Atomic int asleep;     /* set when that processor commits to sleep */

void cfa_test_hook(enum cfa_test_step step) {
    if (step == CFA_STEP_SLEEPING && syscall(SYS_gettid) == reader_kthread)
        atomic_store(&asleep, 1);
}

/* Waits until the reader's processor has committed to sleep, then lets
 * the next commitment count afresh. */
static void wait_reader_asleep(void) {
    while (!atomic_exchange(&asleep, 0)) {
        if (cfa_active_thread())
            cfa_yield();
        else
            sched_yield();
    }
}

static void *kernel_writer(void *arg) {
    (void)arg;
    for (int i = 0; i < WRITES; i++) {
        wait_reader_asleep();
        uint64_t one = 1;
        CHECK(syscall(SYS_write, efd, &one, sizeof one) == sizeof one, "write: %s", strerror(errno));
    }
    return NULL;
}

static struct cfa_cluster other;
static void user_writer(void *arg) {
    (void)arg;
    cfa_migrate(&other);
    for (int i = 0; i < WRITES; i++) {
        wait_reader_asleep();
        uint64_t one = 1;
        CHECK(cfa_write(efd, &one, sizeof one) == sizeof one, "cfa_write: %s", strerror(errno));
    }
}

/* Reads until WRITES have been counted. */
static void read_all(void) {
    uint64_t total = 0;
    while (total < WRITES) {
        uint64_t v = 0;
        CHECK(cfa_read(efd, &v, sizeof v) == sizeof v, "cfa_read: %s", strerror(errno));
        CHECK(v >= 1 && total + v <= WRITES, "read %llu after %llu", (unsigned long long)v, (unsigned long long)total);
        total += v;
    }
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    check_engine(argc, argv);
    reader_kthread = (pid_t)syscall(SYS_gettid);
    cfa_cluster_init(&other);
    struct cfa_processor p = { .cluster = &other, .name = "Writer's" };
    cfa_processor_start(&p);
    for (long rep = 0; rep < reps; rep++) {
        efd = eventfd(0, EFD_CLOEXEC);
        CHECK(efd >= 0);
        atomic_store(&asleep, 0);
        pthread_t k;
        CHECK_EQ(cfa_kernel_thread_create(&k, NULL, kernel_writer, NULL), 0);
        read_all();
        CHECK_EQ(cfa_kernel_thread_join(k, NULL), 0);
        if (rep == 0)
            printf("kernel thread writer: %d writes read, each made while the reader's processor slept\n", WRITES);

        atomic_store(&asleep, 0);
        struct task w;
        task_start(&w, user_writer, NULL, "Writer");
        read_all();
        cfa_thread_join(&w.thread);
        if (rep == 0)
            printf("user thread writer on another cluster: %d writes read, each made while the reader's processor slept\n",
                   WRITES);
        CHECK_EQ(close(efd), 0);
    }
    cfa_processor_stop(&p);
    cfa_cluster_destroy(&other);
    return 0;
}
