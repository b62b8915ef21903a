// cfa_wait_ready, cfa_wait_ready_until and async_wait_ready on both
// engines, on the only processor: a wait for POLLIN, POLLOUT, both, and a
// hang-up returns after a thread of the same processor has counted to
// 1000 and only then made the descriptor ready, with poll's revents, and
// takes nothing (the byte is read next); a timed wait with nothing ready
// returns ETIMEDOUT no earlier than its deadline, one with the descriptor
// ready returns at once even past its deadline; a bad or closed descriptor
// gives EBADF; two futures complete independently, in the order their
// descriptors became ready.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress default | FileCheck %s
// RUN: env CFA_IO=fallback %timeout %t %stress fallback | FileCheck %s
// CHECK: in: POLLIN after the count, byte kept
// CHECK: out: POLLOUT after the count
// CHECK: both: POLLIN after the count
// CHECK: hang-up: POLLHUP after the count
// CHECK: timed: ETIMEDOUT not before the deadline, ready at once past it
// CHECK: errors: EBADF
// CHECK: async: second ready first, completed first
#include "iotest.h"
#include <cfa/sleep.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

enum { MS = 1000000, COUNT = 1000 };

static _Atomic long counted;

enum action { WRITE_BYTE, DRAIN, CLOSE };
struct maker { int fd; enum action action; };

static void drain(int fd) {
    char buf[65536];
    while (recv(fd, buf, sizeof buf, MSG_DONTWAIT) > 0)
        ;
}

static void count_then_ready(void *arg) {
    struct maker *m = arg;
    for (int i = 0; i < COUNT; i++) {
        atomic_fetch_add(&counted, 1);
        cfa_yield();
    }
    switch (m->action) {
    case WRITE_BYTE: CHECK_EQ(write(m->fd, "x", 1), 1); break;
    case DRAIN:      drain(m->fd); break;
    case CLOSE:      close(m->fd); break;
    }
}

/* Waits on fd for `events` while a maker counts, then does `action` on
 * `other`; returns the revents. */
static int wait_for_maker(int fd, short events, int other, enum action action) {
    struct maker m = { other, action };
    struct task t;
    atomic_store(&counted, 0);
    task_start(&t, count_then_ready, &m, "maker");
    int r = cfa_wait_ready(fd, events);
    CHECK_EQ(atomic_load(&counted), COUNT);
    cfa_thread_join(&t.thread);
    return r;
}

static void fill(int fd) {
    static char junk[65536];
    while (send(fd, junk, sizeof junk, MSG_DONTWAIT) > 0)
        ;
    CHECK_EQ(errno, EAGAIN);
}

static void directions(void) {
    int sv[2];
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    CHECK_EQ(wait_for_maker(sv[0], POLLIN, sv[1], WRITE_BYTE), POLLIN);
    char c;
    CHECK_EQ(cfa_read(sv[0], &c, 1), 1);
    CHECK(c == 'x');
    printf("in: POLLIN after the count, byte kept\n");

    fill(sv[0]);
    CHECK_EQ(wait_for_maker(sv[0], POLLOUT, sv[1], DRAIN), POLLOUT);
    printf("out: POLLOUT after the count\n");

    fill(sv[0]);
    int r = wait_for_maker(sv[0], POLLIN | POLLOUT, sv[1], WRITE_BYTE);
    CHECK(r & POLLIN, "%x", r);
    CHECK_EQ(cfa_read(sv[0], &c, 1), 1);
    printf("both: POLLIN after the count\n");

    r = wait_for_maker(sv[0], POLLIN, sv[1], CLOSE);
    CHECK(r & POLLHUP, "%x", r);
    close(sv[0]);
    printf("hang-up: POLLHUP after the count\n");
}

static void timed(void) {
    int p[2];
    CHECK_EQ(pipe2(p, O_CLOEXEC), 0);
    int64_t d = cfa_clock_ns() + 30 * MS;
    int r = cfa_wait_ready_until(p[0], POLLIN, d);
    CHECK(r == -1 && errno == ETIMEDOUT, "%d %s", r, strerror(errno));
    CHECK(cfa_clock_ns() >= d, "timed out before the deadline");
    CHECK_EQ(write(p[1], "x", 1), 1);
    CHECK_EQ(cfa_wait_ready_until(p[0], POLLIN, cfa_clock_ns() - MS), POLLIN);
    CHECK_EQ(cfa_wait_ready_until(p[1], POLLOUT, 1), POLLOUT);
    close(p[0]);
    close(p[1]);
    printf("timed: ETIMEDOUT not before the deadline, ready at once past it\n");
}

static void errors(void) {
    errno = 0;
    CHECK(cfa_wait_ready(-1, POLLIN) == -1 && errno == EBADF, "%s", strerror(errno));
    int p[2];
    CHECK_EQ(pipe(p), 0);
    close(p[0]);
    close(p[1]);
    errno = 0;
    CHECK(cfa_wait_ready(p[0], POLLIN) == -1 && errno == EBADF, "%s", strerror(errno));
    CHECK(cfa_wait_ready_until(p[1], POLLOUT, cfa_clock_ns() + 10 * MS) == -1 && errno == EBADF, "%s",
          strerror(errno));
    printf("errors: EBADF\n");
}

static void futures(void) {
    int a[2], b[2];
    CHECK_EQ(pipe2(a, O_CLOEXEC), 0);
    CHECK_EQ(pipe2(b, O_CLOEXEC), 0);
    io_future fa, fb;
    async_wait_ready(&fa, a[0], POLLIN);
    async_wait_ready(&fb, b[0], POLLIN);
    CHECK_EQ(write(b[1], "x", 1), 1);
    CHECK_EQ(cfa_io_wait(&fb), POLLIN);
    CHECK(!cfa_io_available(&fa), "the first wait completed with nothing ready");
    CHECK_EQ(write(a[1], "x", 1), 1);
    CHECK_EQ(cfa_io_wait(&fa), POLLIN);
    for (int i = 0; i < 2; i++) {
        close(a[i]);
        close(b[i]);
    }
    printf("async: second ready first, completed first\n");
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    check_engine(argc, argv);
    for (long rep = 0; rep < reps; rep++) {
        directions();
        timed();
        errors();
        futures();
    }
    return 0;
}
