// Blocking system calls made by a user thread block only that thread
// (LANGUAGE.md section 13), on the only processor:
//   pipe      a reader blocks in read() on an empty pipe; a second thread
//             must run to write the byte it gets (with read blocking the
//             processor, the program hangs);
//   sleeps    sleep, usleep, nanosleep and clock_nanosleep (relative and
//             absolute) in one thread while another keeps counting;
//   sockets   accept/connect on loopback TCP, send/recv, sendto/recvfrom
//             and sendmsg/recvmsg on a datagram pair, readv/writev, with
//             the peer running on the same processor;
//   poll      poll and epoll_wait on an empty pipe, no timeout: the writer
//             on the same processor must run; with a 20 ms timeout they
//             return 0 after it while the counter ran; timeout 0 at once;
//   POSIX     a non-blocking pipe or socket still fails with EAGAIN (a
//             socket call with MSG_DONTWAIT too), a socket call on a pipe
//             with ENOTSOCK, a bad descriptor with EBADF; regular-file
//             pread/pwrite and read/write at the file position keep
//             their results.
//
// (Under a sanitizer the sanitizer's own read, poll ... come first, and
// they block the processor: docs/pthreads.md.)
//
// UNSUPPORTED: sanitizer
// RUN: %cc %s -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// RUN: env CFA_IO=fallback %timeout %t %stress | FileCheck %s
// CHECK: pipe: reader got 'x' after the writer counted 1000
// CHECK: sleeps: the other thread ran meanwhile
// CHECK: sockets: tcp, datagram, vectors ok
// CHECK: poll: poll and epoll_wait woken by a thread of their processor, timeouts ok
// CHECK: posix: EAGAIN, EBADF, ENOTSOCK, file results ok
#include "check.h"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

struct task { void (*body)(void *); void *arg; struct cfa_thread thread; };
static void task_main(void *object) { struct task *t = object; t->body(t->arg); }
static void start(struct task *t, void (*body)(void *), void *arg) {
    memset(t, 0, sizeof *t);
    t->body = body;
    t->arg = arg;
    cfa_thread_start(&t->thread, task_main, t, "task", 0);
}

/* ---- pipe ---- */
static int pipe_fds[2];
static _Atomic long counted;
static void pipe_writer(void *arg) {
    (void)arg;
    for (int i = 0; i < 1000; i++) {
        atomic_fetch_add(&counted, 1);
        cfa_yield();
    }
    CHECK_EQ(write(pipe_fds[1], "x", 1), 1);
}
static void test_pipe(void) {
    CHECK_EQ(pipe(pipe_fds), 0);
    atomic_store(&counted, 0);
    struct task w;
    start(&w, pipe_writer, NULL);
    char c = 0;
    CHECK_EQ(read(pipe_fds[0], &c, 1), 1); /* the main thread blocks here */
    long seen = atomic_load(&counted);
    cfa_thread_destroy(&w.thread);
    printf("pipe: reader got '%c' after the writer counted %ld\n", c, seen);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
}

/* ---- sleeps ---- */
static _Atomic int sleeping;
static void counter(void *arg) {
    (void)arg;
    while (atomic_load(&sleeping)) {
        atomic_fetch_add(&counted, 1);
        cfa_yield();
    }
}
static void test_sleeps(void) {
    atomic_store(&sleeping, 1);
    struct task c;
    start(&c, counter, NULL);
    long before = atomic_load(&counted);
    CHECK_EQ(sleep(0), 0);
    CHECK_EQ(usleep(5000), 0);
    long after_usleep = atomic_load(&counted);
    struct timespec d = { 0, 5000000 };
    CHECK_EQ(nanosleep(&d, NULL), 0);
    long after_nanosleep = atomic_load(&counted);
    CHECK_EQ(clock_nanosleep(CLOCK_MONOTONIC, 0, &d, NULL), 0);
    struct timespec at;
    clock_gettime(CLOCK_MONOTONIC, &at);
    at.tv_nsec += 5000000;
    if (at.tv_nsec >= 1000000000) { at.tv_sec++; at.tv_nsec -= 1000000000; }
    CHECK_EQ(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL), 0);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    CHECK(now.tv_sec > at.tv_sec || (now.tv_sec == at.tv_sec && now.tv_nsec >= at.tv_nsec));
    struct timespec bad = { 0, 1000000000 };
    errno = 0;
    CHECK_EQ(nanosleep(&bad, NULL), -1);
    CHECK_EQ(errno, EINVAL);
    CHECK(after_usleep > before && after_nanosleep > after_usleep,
          "%ld %ld %ld", before, after_usleep, after_nanosleep);
    atomic_store(&sleeping, 0);
    cfa_thread_destroy(&c.thread);
    printf("sleeps: the other thread ran meanwhile\n");
}

/* ---- sockets ---- */
static int listener;
static struct sockaddr_in listen_addr;
static void tcp_client(void *arg) {
    (void)arg;
    int s = socket(AF_INET, SOCK_STREAM, 0);
    CHECK_EQ(connect(s, (struct sockaddr *)&listen_addr, sizeof listen_addr), 0);
    CHECK_EQ(send(s, "ping", 4, 0), 4);
    char buf[4];
    CHECK_EQ(recv(s, buf, 4, MSG_WAITALL), 4);
    CHECK(memcmp(buf, "pong", 4) == 0);
    close(s);
}
static int dgram[2];
static void dgram_peer(void *arg) {
    (void)arg;
    char buf[8];
    struct sockaddr_storage from;
    socklen_t len = sizeof from;
    CHECK_EQ(recvfrom(dgram[1], buf, sizeof buf, 0, (struct sockaddr *)&from, &len), 3);
    CHECK(memcmp(buf, "abc", 3) == 0);
    struct iovec iov[2] = { { "de", 2 }, { "fgh", 3 } };
    struct msghdr m = { .msg_iov = iov, .msg_iovlen = 2 };
    CHECK_EQ(sendmsg(dgram[1], &m, 0), 5);
}
static void test_sockets(void) {
    listener = socket(AF_INET, SOCK_STREAM, 0);
    listen_addr.sin_family = AF_INET;
    listen_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK_EQ(bind(listener, (struct sockaddr *)&listen_addr, sizeof listen_addr), 0);
    socklen_t len = sizeof listen_addr;
    getsockname(listener, (struct sockaddr *)&listen_addr, &len);
    CHECK_EQ(listen(listener, 4), 0);
    struct task c;
    start(&c, tcp_client, NULL);
    int s = accept(listener, NULL, NULL); /* blocks until the client runs */
    CHECK(s >= 0);
    char buf[8];
    CHECK_EQ(recv(s, buf, 4, MSG_WAITALL), 4);
    CHECK(memcmp(buf, "ping", 4) == 0);
    CHECK_EQ(send(s, "pong", 4, 0), 4);
    cfa_thread_destroy(&c.thread);
    close(s);
    close(listener);

    CHECK_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, dgram), 0);
    struct task p;
    start(&p, dgram_peer, NULL);
    CHECK_EQ(sendto(dgram[0], "abc", 3, 0, NULL, 0), 3);
    char in[8] = {0};
    struct iovec iov = { in, sizeof in };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
    CHECK_EQ(recvmsg(dgram[0], &m, 0), 5);
    CHECK(memcmp(in, "defgh", 5) == 0);
    cfa_thread_destroy(&p.thread);
    close(dgram[0]);
    close(dgram[1]);

    int v[2];
    CHECK_EQ(pipe(v), 0);
    struct iovec out[2] = { { "12", 2 }, { "345", 3 } };
    CHECK_EQ(writev(v[1], out, 2), 5);
    char a[3] = {0}, b[2] = {0};
    struct iovec back[2] = { { a, 3 }, { b, 2 } };
    CHECK_EQ(readv(v[0], back, 2), 5);
    CHECK(memcmp(a, "123", 3) == 0 && memcmp(b, "45", 2) == 0);
    close(v[0]);
    close(v[1]);
    printf("sockets: tcp, datagram, vectors ok\n");
}

/* ---- poll ---- */
static void test_poll(void) {
    CHECK_EQ(pipe(pipe_fds), 0);
    struct pollfd pf = { .fd = pipe_fds[0], .events = POLLIN };
    CHECK_EQ(poll(&pf, 1, 0), 0);
    atomic_store(&counted, 0);
    struct task w;
    start(&w, pipe_writer, NULL);
    CHECK_EQ(poll(&pf, 1, -1), 1);
    CHECK(pf.revents & POLLIN);
    CHECK_EQ(atomic_load(&counted), 1000);
    cfa_thread_destroy(&w.thread);
    char c;
    CHECK_EQ(read(pipe_fds[0], &c, 1), 1);

    int ep = epoll_create1(0);
    struct epoll_event ev = { .events = EPOLLIN, .data.fd = pipe_fds[0] };
    CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, pipe_fds[0], &ev), 0);
    atomic_store(&counted, 0);
    start(&w, pipe_writer, NULL);
    struct epoll_event got;
    CHECK_EQ(epoll_wait(ep, &got, 1, -1), 1);
    CHECK_EQ(got.data.fd, pipe_fds[0]);
    CHECK_EQ(atomic_load(&counted), 1000);
    cfa_thread_destroy(&w.thread);
    CHECK_EQ(read(pipe_fds[0], &c, 1), 1);

    atomic_store(&sleeping, 1);
    struct task k;
    start(&k, counter, NULL);
    long before = atomic_load(&counted);
    CHECK_EQ(poll(&pf, 1, 20), 0);
    CHECK_EQ(epoll_wait(ep, &got, 1, 20), 0);
    CHECK(atomic_load(&counted) > before);
    atomic_store(&sleeping, 0);
    cfa_thread_destroy(&k.thread);
    close(ep);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    printf("poll: poll and epoll_wait woken by a thread of their processor, timeouts ok\n");
}

/* ---- POSIX results ---- */
static void test_posix(void) {
    int p[2];
    CHECK_EQ(pipe2(p, O_NONBLOCK), 0);
    char c;
    errno = 0;
    CHECK_EQ(read(p[0], &c, 1), -1);
    CHECK_EQ(errno, EAGAIN);
    close(p[0]);
    close(p[1]);
    errno = 0;
    CHECK_EQ(read(-1, &c, 1), -1);
    CHECK_EQ(errno, EBADF);
    errno = 0;
    CHECK_EQ(write(12345, "x", 1), -1);
    CHECK_EQ(errno, EBADF);

    /* The socket calls, tried at once first: a non-blocking socket and
     * MSG_DONTWAIT on a blocking one still fail with EAGAIN, a pipe with
     * ENOTSOCK, a bad descriptor with EBADF; with data or room the result
     * is the whole call's. */
    int sv[2];
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    errno = 0;
    CHECK_EQ(recv(sv[0], &c, 1, 0), -1);
    CHECK_EQ(errno, EAGAIN);
    close(sv[0]);
    close(sv[1]);
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    errno = 0;
    CHECK_EQ(recv(sv[0], &c, 1, MSG_DONTWAIT), -1);
    CHECK_EQ(errno, EAGAIN);
    CHECK_EQ(send(sv[1], "abc", 3, 0), 3);
    char three[3];
    CHECK_EQ(recv(sv[0], three, 3, MSG_WAITALL), 3);
    close(sv[0]);
    close(sv[1]);
    CHECK_EQ(pipe(p), 0);
    errno = 0;
    CHECK_EQ(send(p[1], "x", 1, 0), -1);
    CHECK_EQ(errno, ENOTSOCK);
    close(p[0]);
    close(p[1]);
    errno = 0;
    CHECK_EQ(recv(-1, &c, 1, 0), -1);
    CHECK_EQ(errno, EBADF);

    const char *dir = getenv("TMPDIR");
    char full[512];
    snprintf(full, sizeof full, "%s/cfa-blocking-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(full);
    CHECK(fd >= 0);
    unlink(full);
    CHECK_EQ(write(fd, "hello", 5), 5);
    CHECK_EQ(write(fd, " world", 6), 6); /* at the file position */
    CHECK_EQ(pwrite(fd, "W", 1, 6), 1);
    char buf[16] = {0};
    CHECK_EQ(pread(fd, buf, sizeof buf, 0), 11);
    CHECK(memcmp(buf, "hello World", 11) == 0);
    CHECK_EQ(lseek(fd, 6, SEEK_SET), 6);
    memset(buf, 0, sizeof buf);
    CHECK_EQ(read(fd, buf, sizeof buf), 5);
    CHECK(memcmp(buf, "World", 5) == 0);
    CHECK_EQ(read(fd, buf, sizeof buf), 0); /* end of file */
    close(fd);
    printf("posix: EAGAIN, EBADF, ENOTSOCK, file results ok\n");
}

int main(int argc, char **argv) {
    long repeat = arg_long(argc, argv, 1, 1);
    for (long r = 0; r < repeat; r++) {
        test_pipe();
        test_sleeps();
        test_sockets();
        test_poll();
        test_posix();
    }
    return 0;
}
