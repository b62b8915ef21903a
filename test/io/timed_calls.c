// The timed calls (cfa_X_until) on both engines: a call that cannot
// complete by its deadline returns ETIMEDOUT, never before the deadline,
// and has had no effect (the byte a timed-out recv did not take is there
// for the next recv; a timed-out send or sendfile sent nothing; a
// timed-out accept left the connection for the next accept). A call that
// can complete at once does so even with a deadline already past. Then
// 200 threads race timed recvs against writers aimed at their deadlines:
// each gets its byte or ETIMEDOUT, and no byte is lost or read twice.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress default | FileCheck %s
// RUN: env CFA_IO=fallback %timeout %t %stress fallback | FileCheck %s
// CHECK: recv: timed out, byte kept
// CHECK: read: timed out, byte kept
// CHECK: past deadline: ready call completes
// CHECK: send: timed out, nothing sent
// CHECK: sendfile: timed out, nothing sent
// CHECK: accept: timed out (non-blocking and blocking listeners), connection kept
// CHECK: race: 200 timed recvs, {{[0-9]+}} bytes + {{[0-9]+}} timeouts, none lost
#include "iotest.h"
#include <cfa/sleep.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

enum { MS = 1000000, RACERS = 200 };

// Calls that give up return -1/ETIMEDOUT no earlier than their deadline.
static void check_timed_out(ssize_t r, int64_t deadline, const char *what) {
    CHECK(r == -1 && errno == ETIMEDOUT, "%s: %zd %s", what, r, strerror(errno));
    CHECK(cfa_clock_ns() >= deadline, "%s returned before its deadline", what);
}

static void recv_and_read(void) {
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
    char c;
    int64_t d = cfa_clock_ns() + 30 * MS;
    check_timed_out(cfa_recv_until(sv[0], &c, 1, 0, d), d, "recv_until");
    CHECK_EQ(write(sv[1], "x", 1), 1);
    CHECK_EQ(cfa_recv(sv[0], &c, 1, 0), 1);
    CHECK(c == 'x');
    printf("recv: timed out, byte kept\n");

    int p[2];
    CHECK(pipe2(p, O_CLOEXEC) == 0);
    d = cfa_clock_ns() + 30 * MS;
    check_timed_out(cfa_read_until(p[0], &c, 1, d), d, "read_until");
    CHECK_EQ(write(p[1], "y", 1), 1);
    CHECK_EQ(cfa_read(p[0], &c, 1), 1);
    CHECK(c == 'y');
    printf("read: timed out, byte kept\n");

    CHECK_EQ(write(sv[1], "z", 1), 1);
    CHECK_EQ(cfa_recv_until(sv[0], &c, 1, 0, 1), 1);
    CHECK(c == 'z');
    CHECK_EQ(cfa_write_until(p[1], "w", 1, cfa_clock_ns() - 1), 1);
    CHECK_EQ(cfa_read(p[0], &c, 1), 1);
    printf("past deadline: ready call completes\n");
    close(p[0]); close(p[1]); close(sv[0]); close(sv[1]);
}

// Fills sv[0]'s send path without blocking; returns the bytes it took.
static long fill_socket(int fd) {
    static char junk[65536];
    long total = 0;
    for (;;) {
        ssize_t w = send(fd, junk, sizeof junk, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (w < 0) {
            CHECK(errno == EAGAIN, "fill: %s", strerror(errno));
            return total;
        }
        total += w;
    }
}

static long drain_socket(int fd) {
    char buf[65536];
    long total = 0;
    ssize_t r;
    while ((r = recv(fd, buf, sizeof buf, MSG_DONTWAIT)) > 0) total += r;
    return total;
}

static void send_and_sendfile(void) {
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
    long sent = fill_socket(sv[0]);
    int64_t d = cfa_clock_ns() + 30 * MS;
    check_timed_out(cfa_send_until(sv[0], "abc", 3, MSG_NOSIGNAL, d), d, "send_until");
    CHECK_EQ(drain_socket(sv[1]), sent);
    printf("send: timed out, nothing sent\n");

    char path[] = "/tmp/cfa-timed-XXXXXX";
    int file = mkstemp(path);
    CHECK(file >= 0);
    unlink(path);
    static char data[4096];
    CHECK_EQ(write(file, data, sizeof data), (long)sizeof data);
    sent = fill_socket(sv[0]);
    off_t off = 0;
    d = cfa_clock_ns() + 30 * MS;
    check_timed_out(cfa_sendfile_until(sv[0], file, &off, sizeof data, d), d, "sendfile_until");
    CHECK_EQ(off, 0);
    CHECK_EQ(drain_socket(sv[1]), sent);
    printf("sendfile: timed out, nothing sent\n");
    close(file); close(sv[0]); close(sv[1]);
}

static int listener(int nonblocking, struct sockaddr_in *addr) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0), 0);
    CHECK(fd >= 0);
    *addr = (struct sockaddr_in){ .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof *addr;
    CHECK(bind(fd, (struct sockaddr *)addr, sizeof *addr) == 0 && listen(fd, 16) == 0);
    CHECK(getsockname(fd, (struct sockaddr *)addr, &len) == 0);
    return fd;
}

static void accepts(void) {
    for (int nonblocking = 1; nonblocking >= 0; nonblocking--) {
        struct sockaddr_in a;
        int l = listener(nonblocking, &a);
        int64_t d = cfa_clock_ns() + 30 * MS;
        check_timed_out(cfa_accept4_until(l, NULL, NULL, SOCK_CLOEXEC, d), d, "accept4_until");
        int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        CHECK(connect(c, (struct sockaddr *)&a, sizeof a) == 0);
        int s = cfa_accept4_until(l, NULL, NULL, SOCK_CLOEXEC, cfa_clock_ns() + 10000 * (int64_t)MS);
        CHECK(s >= 0, "accept4_until after connect: %s", strerror(errno));
        close(s); close(c); close(l);
    }
    printf("accept: timed out (non-blocking and blocking listeners), connection kept\n");
}

// The race: racer i waits on pair i until its deadline (pairs share one
// every 3 ms); the writer writes one byte to every other pair, 2 ms before
// or 1 ms after its deadline, so both outcomes occur.
static int pairs[RACERS][2];
static int64_t deadlines[RACERS];
static _Atomic long got_bytes, timeouts;
static _Atomic int written[RACERS];

static void racer(void *arg) {
    int i = (int)(intptr_t)arg;
    char c;
    ssize_t r = cfa_recv_until(pairs[i][0], &c, 1, 0, deadlines[i]);
    if (r == 1) {
        atomic_fetch_add(&got_bytes, 1);
        return;
    }
    check_timed_out(r, deadlines[i], "racing recv_until");
    atomic_fetch_add(&timeouts, 1);
}

static void writer(void *arg) {
    (void)arg;
    for (int i = 0; i < RACERS; i += 2) {
        int64_t wait = deadlines[i] - cfa_clock_ns() + (i % 4 ? MS : -2 * MS);
        cfa_sleep_ns(wait);
        CHECK_EQ(write(pairs[i][1], "r", 1), 1);
        atomic_store(&written[i], 1);
    }
}

static void race(void) {
    atomic_store(&got_bytes, 0);
    atomic_store(&timeouts, 0);
    int64_t base = cfa_clock_ns() + 20 * MS;
    for (int i = 0; i < RACERS; i++) {
        CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pairs[i]) == 0);
        deadlines[i] = base + (i / 2) * 3 * MS;
        atomic_store(&written[i], 0);
    }
    static struct task racers[RACERS];
    struct task w;
    for (int i = 0; i < RACERS; i++) task_start(&racers[i], racer, (void *)(intptr_t)i, "Racer");
    task_start(&w, writer, NULL, "Writer");
    for (int i = 0; i < RACERS; i++) cfa_thread_join(&racers[i].thread);
    cfa_thread_join(&w.thread);
    // Bytes a racer did not take are still in their socket.
    long left = 0;
    for (int i = 0; i < RACERS; i++) {
        left += drain_socket(pairs[i][0]);
        close(pairs[i][0]);
        close(pairs[i][1]);
    }
    CHECK_EQ(atomic_load(&got_bytes) + atomic_load(&timeouts), RACERS);
    CHECK_EQ(atomic_load(&got_bytes) + left, RACERS / 2);
    printf("race: %d timed recvs, %ld bytes + %ld timeouts, none lost\n", RACERS, atomic_load(&got_bytes),
           atomic_load(&timeouts));
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    check_engine(argc, argv);
    for (long rep = 0; rep < reps; rep++) {
        recv_and_read();
        send_and_sendfile();
        accepts();
        race();
    }
    return 0;
}
