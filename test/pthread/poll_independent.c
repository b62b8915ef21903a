// Two polls with no timeout, made by two user threads on empty pipes, wait
// independently (runtime/src/interpose_poll.c): the pipe of the one that
// started second is written first, and its poll returns while the first
// still waits; then the first's. A design that served waits one at a time
// (a single helper, a shared queue) would hang here.
//
// UNSUPPORTED: sanitizer
// RUN: %cc %s -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// RUN: env CFA_IO=fallback %timeout %t %stress | FileCheck %s
// CHECK: two polls with no timeout: B returned while A waited, then A; poll results 1 and 1
#include "check.h"
#include <poll.h>
#include <unistd.h>

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
    int a[2], b[2];
    CHECK(pipe(a) == 0 && pipe(b) == 0);
    struct poller pa = { .fd = a[0] }, pb = { .fd = b[0] };
    cfa_thread_start(&pa.thread, poll_main, &pa, "A", 0);
    wait_until_blocked(&pa.thread);
    cfa_thread_start(&pb.thread, poll_main, &pb, "B", 0);
    wait_until_blocked(&pb.thread);
    CHECK(write(b[1], "b", 1) == 1);
    cfa_thread_join(&pb.thread);
    CHECK(!atomic_load(&pa.done), "A returned with its pipe empty");
    CHECK(write(a[1], "a", 1) == 1);
    cfa_thread_join(&pa.thread);
    if (report)
        printf("two polls with no timeout: B returned while A waited, then A; poll results %d and %d\n",
               pb.result, pa.result);
    for (int i = 0; i < 2; i++) {
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
