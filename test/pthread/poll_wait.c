// poll and epoll_wait made by user threads, on the only processor, on
// both I/O engines (docs/pthreads.md, "Blocking calls"):
//   park      epoll_wait, poll of one descriptor (POLLIN; POLLOUT on a
//             full pipe) and poll of two wait with no timeout while a
//             thread of the same processor counts to 1000 and only then
//             makes the descriptor ready: each returns after the count,
//             with exactly the ready descriptor's events;
//   timeouts  epoll_wait, poll of one, poll of two and poll of none
//             (a sleep) with 20 ms return 0, no earlier than 20 ms, while
//             a counting thread ran; timeout 0 returns at once;
//   herd      two threads wait in poll on one pipe and one in
//             epoll_wait on a set holding it; each byte written wakes
//             them all, one takes it, the others find nothing (stale
//             readiness) and wait again: each returns once, with a byte;
//   errors    glibc's results: EBADF (a bad epoll descriptor), EINVAL
//             (not an epoll descriptor; maxevents 0 and -1; too many
//             poll descriptors), POLLNVAL for a closed descriptor, EFAULT
//             for a bad event array;
//   threads   none of this started a kernel thread (the runtime's
//             engines already run; /proc/self/task, io_uring's own
//             workers aside).
//
// (Under a sanitizer the sanitizer's own poll and epoll_wait come first,
// and they block the processor: docs/pthreads.md.)
//
// UNSUPPORTED: sanitizer
// RUN: %cc %s -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// RUN: env CFA_IO=fallback %timeout %t %stress | FileCheck %s
// CHECK: park: epoll_wait, poll of one (in, out), poll of two returned after the count of 1000
// CHECK: timeouts: 0 after at least 20 ms with the counter running, timeout 0 at once
// CHECK: herd: 3 waiters woken by 3 bytes, one byte each
// CHECK: errors: EBADF, EINVAL x4, POLLNVAL, EFAULT as glibc
// CHECK: threads: no kernel thread started
#include "check.h"
#include "task.h"
#include <cfa/sleep.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

enum { MS = 1000000, COUNT = 1000 };

static _Atomic long counted;
static _Atomic int counting;

/* Kernel threads of the process, io_uring's workers aside (the kernel
 * starts those for some requests on its own). */
static int kernel_threads(void) {
    DIR *d = opendir("/proc/self/task");
    CHECK(d != NULL);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char path[64], comm[32] = {0};
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue; /* it ended meanwhile */
        if (!fgets(comm, sizeof comm, f))
            comm[0] = 0;
        fclose(f);
        if (strncmp(comm, "iou-", 4) != 0)
            n++;
    }
    closedir(d);
    return n;
}

/* ---- park ---- */
struct maker { int fd; bool drain; };

/* Counts to COUNT, yielding each time, then makes `fd` ready: writes a
 * byte, or (drain) reads the pipe empty. */
static void count_then_ready(void *arg) {
    struct maker *m = arg;
    for (int i = 0; i < COUNT; i++) {
        atomic_fetch_add(&counted, 1);
        cfa_yield();
    }
    if (m->drain) {
        char buf[4096];
        while (read(m->fd, buf, sizeof buf) > 0)
            ;
    } else {
        CHECK_EQ(write(m->fd, "x", 1), 1);
    }
}

static void start_maker(struct task *t, struct maker *m) {
    atomic_store(&counted, 0);
    task_start(t, count_then_ready, m, "maker");
}

static void take_byte(int fd) {
    char c;
    CHECK_EQ(read(fd, &c, 1), 1);
}

static void test_park(void) {
    int a[2], b[2];
    CHECK_EQ(pipe(a), 0);
    CHECK_EQ(pipe(b), 0);
    struct task t;
    struct maker ma = { a[1], false }, mb = { b[1], false };

    int ep = epoll_create1(0);
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 77 };
    CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, a[0], &ev), 0);
    struct epoll_event got[4];
    start_maker(&t, &ma);
    CHECK_EQ(epoll_wait(ep, got, 4, -1), 1);
    CHECK_EQ(atomic_load(&counted), COUNT);
    CHECK(got[0].data.u64 == 77 && got[0].events == EPOLLIN, "%x", got[0].events);
    cfa_thread_join(&t.thread);
    take_byte(a[0]);
    close(ep);

    struct pollfd one = { .fd = a[0], .events = POLLIN };
    start_maker(&t, &ma);
    CHECK_EQ(poll(&one, 1, -1), 1);
    CHECK_EQ(atomic_load(&counted), COUNT);
    CHECK_EQ(one.revents, POLLIN);
    cfa_thread_join(&t.thread);
    take_byte(a[0]);

    /* POLLOUT: fill the pipe (its write end non-blocking for that), then
     * wait for room while the maker drains it. */
    int fl = fcntl(a[1], F_GETFL);
    CHECK_EQ(fcntl(a[1], F_SETFL, fl | O_NONBLOCK), 0);
    char block[4096] = {0};
    while (write(a[1], block, sizeof block) > 0)
        ;
    CHECK_EQ(errno, EAGAIN);
    CHECK_EQ(fcntl(a[1], F_SETFL, fl), 0);
    struct pollfd out = { .fd = a[1], .events = POLLOUT };
    CHECK_EQ(poll(&out, 1, 0), 0);
    struct maker drain = { a[0], true };
    CHECK_EQ(fcntl(a[0], F_SETFL, fcntl(a[0], F_GETFL) | O_NONBLOCK), 0);
    start_maker(&t, &drain);
    CHECK_EQ(poll(&out, 1, -1), 1);
    CHECK_EQ(atomic_load(&counted), COUNT);
    CHECK_EQ(out.revents, POLLOUT);
    cfa_thread_join(&t.thread);
    CHECK_EQ(fcntl(a[0], F_SETFL, fcntl(a[0], F_GETFL) & ~O_NONBLOCK), 0);

    struct pollfd two[2] = { { .fd = a[0], .events = POLLIN }, { .fd = b[0], .events = POLLIN } };
    start_maker(&t, &mb);
    CHECK_EQ(poll(two, 2, -1), 1);
    CHECK_EQ(atomic_load(&counted), COUNT);
    CHECK(two[0].revents == 0 && two[1].revents == POLLIN, "%x %x", two[0].revents, two[1].revents);
    cfa_thread_join(&t.thread);
    take_byte(b[0]);
    for (int i = 0; i < 2; i++) {
        close(a[i]);
        close(b[i]);
    }
    printf("park: epoll_wait, poll of one (in, out), poll of two returned after the count of %d\n", COUNT);
}

/* ---- timeouts ---- */
static void counter(void *arg) {
    (void)arg;
    while (atomic_load(&counting)) {
        atomic_fetch_add(&counted, 1);
        cfa_yield();
    }
}

/* r must be 0, no earlier than 20 ms after `start`, with the counter
 * having run since `before`. */
static void check_timed_out(int r, int64_t start, long before, const char *what) {
    CHECK(r == 0, "%s returned %d (%s)", what, r, strerror(errno));
    CHECK(cfa_clock_ns() - start >= 20 * MS, "%s returned before its timeout", what);
    CHECK(atomic_load(&counted) > before, "%s: the counter did not run", what);
}

static void test_timeouts(void) {
    int a[2], b[2];
    CHECK_EQ(pipe(a), 0);
    CHECK_EQ(pipe(b), 0);
    int ep = epoll_create1(0);
    struct epoll_event ev = { .events = EPOLLIN };
    CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, a[0], &ev), 0);
    struct pollfd two[2] = { { .fd = a[0], .events = POLLIN }, { .fd = b[0], .events = POLLIN } };
    struct epoll_event got;

    atomic_store(&counting, 1);
    struct task k;
    task_start(&k, counter, NULL, "counter");
    int64_t start = cfa_clock_ns();
    long before = atomic_load(&counted);
    check_timed_out(epoll_wait(ep, &got, 1, 20), start, before, "epoll_wait");
    start = cfa_clock_ns(), before = atomic_load(&counted);
    check_timed_out(poll(two, 1, 20), start, before, "poll of one");
    start = cfa_clock_ns(), before = atomic_load(&counted);
    check_timed_out(poll(two, 2, 20), start, before, "poll of two");
    start = cfa_clock_ns(), before = atomic_load(&counted);
    check_timed_out(poll(NULL, 0, 20), start, before, "poll of none");
    CHECK_EQ(epoll_wait(ep, &got, 1, 0), 0);
    CHECK_EQ(poll(two, 2, 0), 0);
    atomic_store(&counting, 0);
    cfa_thread_join(&k.thread);
    close(ep);
    for (int i = 0; i < 2; i++) {
        close(a[i]);
        close(b[i]);
    }
    printf("timeouts: 0 after at least 20 ms with the counter running, timeout 0 at once\n");
}

/* ---- herd ---- */
static int herd_pipe[2], herd_ep;
static _Atomic int herd_returned, herd_bytes;

/* The read end is non-blocking: the first waiter woken takes the byte
 * at once, the others find none and wait again. */
static void poll_waiter(void *arg) {
    (void)arg;
    struct pollfd p = { .fd = herd_pipe[0], .events = POLLIN };
    for (;;) {
        int r = poll(&p, 1, -1);
        CHECK(r == 1 && p.revents == POLLIN, "%d %x", r, p.revents);
        char c;
        if (read(herd_pipe[0], &c, 1) == 1)
            break; /* else another waiter took it: wait again */
    }
    atomic_fetch_add(&herd_bytes, 1);
    atomic_fetch_add(&herd_returned, 1);
}

static void epoll_waiter(void *arg) {
    (void)arg;
    struct epoll_event got;
    for (;;) {
        CHECK_EQ(epoll_wait(herd_ep, &got, 1, -1), 1);
        char c;
        if (read(herd_pipe[0], &c, 1) == 1)
            break;
    }
    atomic_fetch_add(&herd_bytes, 1);
    atomic_fetch_add(&herd_returned, 1);
}

static void test_herd(void) {
    CHECK_EQ(pipe2(herd_pipe, O_NONBLOCK), 0);
    herd_ep = epoll_create1(0);
    struct epoll_event ev = { .events = EPOLLIN };
    CHECK_EQ(epoll_ctl(herd_ep, EPOLL_CTL_ADD, herd_pipe[0], &ev), 0);
    atomic_store(&herd_returned, 0);
    atomic_store(&herd_bytes, 0);
    struct task w[3];
    task_start(&w[0], poll_waiter, NULL, "poll_waiter");
    task_start(&w[1], poll_waiter, NULL, "poll_waiter");
    task_start(&w[2], epoll_waiter, NULL, "epoll_waiter");
    for (int sent = 0; sent < 3; sent++) {
        /* Let every waiter that has not returned park again. */
        for (int i = 0; i < 50; i++)
            cfa_yield();
        CHECK_EQ(atomic_load(&herd_bytes), sent);
        CHECK_EQ(write(herd_pipe[1], "x", 1), 1);
        while (atomic_load(&herd_bytes) == sent)
            cfa_yield();
    }
    for (int i = 0; i < 3; i++)
        cfa_thread_join(&w[i].thread);
    CHECK_EQ(atomic_load(&herd_returned), 3);
    CHECK_EQ(atomic_load(&herd_bytes), 3);
    close(herd_ep);
    close(herd_pipe[0]);
    close(herd_pipe[1]);
    printf("herd: 3 waiters woken by 3 bytes, one byte each\n");
}

/* ---- errors ---- */
static void check_fails(int r, int err, const char *what) {
    CHECK(r == -1 && errno == err, "%s: %d %s", what, r, strerror(errno));
}

static void test_errors(void) {
    struct epoll_event got[2];
    int p[2];
    CHECK_EQ(pipe(p), 0);
    int ep = epoll_create1(0);
    errno = 0;
    check_fails(epoll_wait(-1, got, 2, -1), EBADF, "bad descriptor");
    check_fails(epoll_wait(p[0], got, 2, -1), EINVAL, "not an epoll set");
    check_fails(epoll_wait(ep, got, 0, -1), EINVAL, "maxevents 0");
    check_fails(epoll_wait(ep, got, -1, 10), EINVAL, "maxevents -1");
    struct rlimit lim;
    CHECK_EQ(getrlimit(RLIMIT_NOFILE, &lim), 0);
    struct pollfd one = { .fd = p[0], .events = POLLIN };
    check_fails(poll(&one, (nfds_t)lim.rlim_cur + 1, -1), EINVAL, "too many descriptors");
    int closed = dup(p[0]);
    close(closed);
    struct pollfd gone[2] = { { .fd = closed, .events = POLLIN }, { .fd = p[0], .events = POLLIN } };
    CHECK_EQ(poll(gone, 2, -1), 1);
    CHECK(gone[0].revents == POLLNVAL && gone[1].revents == 0, "%x %x", gone[0].revents, gone[1].revents);
    /* A bad event array: the kernel says EFAULT once an event is there. */
    struct epoll_event ev = { .events = EPOLLIN };
    CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev), 0);
    CHECK_EQ(write(p[1], "x", 1), 1);
    check_fails(epoll_wait(ep, (struct epoll_event *)8, 2, -1), EFAULT, "bad event array");
    close(ep);
    close(p[0]);
    close(p[1]);
    printf("errors: EBADF, EINVAL x4, POLLNVAL, EFAULT as glibc\n");
}

/* Starts whatever the engine runs on its first wait (the fallback's
 * poller thread): a read that waits for a thread of this processor. */
static void warm_up(void) {
    int p[2];
    CHECK_EQ(pipe(p), 0);
    struct maker m = { p[1], false };
    struct task t;
    start_maker(&t, &m);
    take_byte(p[0]);
    cfa_thread_join(&t.thread);
    close(p[0]);
    close(p[1]);
}

int main(int argc, char **argv) {
    long repeat = arg_long(argc, argv, 1, 1);
    warm_up();
    int threads = kernel_threads();
    for (long r = 0; r < repeat; r++) {
        test_park();
        test_timeouts();
        test_herd();
        test_errors();
    }
    int after = kernel_threads();
    CHECK(after == threads, "%d kernel threads before, %d after", threads, after);
    printf("threads: no kernel thread started\n");
    return 0;
}
