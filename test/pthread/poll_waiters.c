// poll and epoll_wait that must wait are handed to the runtime's poll
// waiter threads (runtime/src/interpose_poll.c). Two calls queued while
// the one idle waiter has not yet woken must not share it: the second
// would wait behind the first for as long as the first waits, here for
// ever. Forced with the test hook: the only waiter is held just as it
// goes idle (CFA_STEP_COND_RELEASED, on a kernel thread that runs no user
// thread), threads A and B then each poll an empty pipe with no timeout,
// and the waiter is let go. B's pipe is written first: B's poll must
// return while A's still waits; then A's.
//
// UNSUPPORTED: sanitizer
// RUN: %cc %s -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: two polls queued on one idle waiter: B returned while A waited, then A; poll results 1 and 1
#include "check.h"
#include <cfa/test_hook.h>
#include <poll.h>
#include <unistd.h>

static _Atomic int armed, held, released;

/* Holds the first kernel thread that goes idle in a condition wait once
 * armed: the poll waiter, between letting the queue's mutex go and
 * blocking. */
void cfa_test_hook(enum cfa_test_step step) {
    int one = 1;
    if (step != CFA_STEP_COND_RELEASED || cfa_active_thread() != NULL ||
        !atomic_compare_exchange_strong(&armed, &one, 0))
        return;
    atomic_store(&held, 1);
    while (!atomic_load(&released))
        sched_yield();
}

struct poller {
    struct cfa_thread thread;
    int               fd;
    int               result;
    _Atomic int       done;
};

static void poll_main(void *arg) {
    struct poller *p = arg;
    struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
    p->result = poll(&pfd, 1, -1);
    CHECK(p->result == 1 && (pfd.revents & POLLIN), "poll: %d revents %#x", p->result, pfd.revents);
    atomic_store(&p->done, 1);
}

static void one_round(bool report) {
    int warm[2], a[2], b[2];
    CHECK(pipe(warm) == 0 && pipe(a) == 0 && pipe(b) == 0);
    atomic_store(&held, 0);
    atomic_store(&released, 0);
    atomic_store(&armed, 1);
    /* A wait with a timeout: a waiter serves it (started if none is
     * idle), then goes idle and is held there. */
    struct pollfd pfd = { .fd = warm[0], .events = POLLIN };
    CHECK_EQ(poll(&pfd, 1, 1), 0);
    while (!atomic_load(&held))
        cfa_yield();
    struct poller pa = { .fd = a[0] }, pb = { .fd = b[0] };
    cfa_thread_start(&pa.thread, poll_main, &pa, "A", 0);
    wait_until_blocked(&pa.thread);
    cfa_thread_start(&pb.thread, poll_main, &pb, "B", 0);
    wait_until_blocked(&pb.thread);
    atomic_store(&released, 1);
    CHECK(write(b[1], "b", 1) == 1);
    cfa_thread_join(&pb.thread);
    CHECK(!atomic_load(&pa.done), "A returned with its pipe empty");
    CHECK(write(a[1], "a", 1) == 1);
    cfa_thread_join(&pa.thread);
    if (report)
        printf("two polls queued on one idle waiter: B returned while A waited, then A; poll results %d and %d\n",
               pb.result, pa.result);
    for (int i = 0; i < 2; i++) {
        close(warm[i]);
        close(a[i]);
        close(b[i]);
    }
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    for (long rep = 0; rep < reps; rep++)
        one_round(rep == 0);
    return 0;
}
