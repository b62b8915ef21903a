// Errors come back as from the system call (-1 and its errno), nothing
// hangs: bad descriptors, closed descriptors, a bad pointer, the wrong
// kind of descriptor, a missing file, a refused connection, a socket
// whose peer closed (EOF, then EPIPE/ECONNRESET), MSG_DONTWAIT on an
// empty socket; futures report the same error on every wait. From a plain
// pthread (not a processor) the calls are the system calls themselves.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress default | FileCheck %s
// RUN: env CFA_IO=fallback %timeout %t %stress fallback | FileCheck %s
// CHECK: bad descriptors: EBADF from read write pread pwrite readv writev close fsync recv send accept connect splice sendfile
// CHECK-NEXT: wrong kinds: ENOTSOCK ESPIPE EINVAL EISDIR ENOENT EFAULT
// CHECK-NEXT: sockets: ECONNREFUSED, EOF after peer close, then EPIPE or ECONNRESET, EAGAIN with MSG_DONTWAIT
// CHECK-NEXT: future: same error on every wait
// CHECK-NEXT: pthread: engine syscall, pipe round trip ok, async completes at once
#include "iotest.h"
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXPECT_ERR(call, err)                                                        \
    do {                                                                             \
        errno = 0;                                                                   \
        long long _r = (long long)(call);                                            \
        int _e = errno;                                                              \
        CHECK(_r == -1 && _e == (err), "%s = %lld, errno %d (%s), wanted %s", #call, \
              _r, _e, strerror(_e), #err);                                           \
    } while (0)

static void bad_descriptors(void) {
    char b[8];
    struct iovec iov = { b, sizeof b };
    off_t off = 0;
    /* A closed descriptor far above the ones in use: the runtime opens
     * descriptors too (pipes for sendfile, the fallback's epoll), which
     * would take a low number again. */
    int closed = fcntl(1, F_DUPFD_CLOEXEC, 10000);
    CHECK(closed >= 10000);
    close(closed);
    int fds[] = { -1, closed, 1 << 20 };
    for (unsigned i = 0; i < sizeof fds / sizeof *fds; i++) {
        int fd = fds[i];
        EXPECT_ERR(cfa_read(fd, b, 8), EBADF);
        EXPECT_ERR(cfa_write(fd, b, 8), EBADF);
        EXPECT_ERR(cfa_pread(fd, b, 8, 0), EBADF);
        EXPECT_ERR(cfa_pwrite(fd, b, 8, 0), EBADF);
        EXPECT_ERR(cfa_readv(fd, &iov, 1), EBADF);
        EXPECT_ERR(cfa_writev(fd, &iov, 1), EBADF);
        EXPECT_ERR(cfa_close(fd), EBADF);
        EXPECT_ERR(cfa_fsync(fd), EBADF);
        EXPECT_ERR(cfa_recv(fd, b, 8, 0), EBADF);
        EXPECT_ERR(cfa_send(fd, b, 8, 0), EBADF);
        EXPECT_ERR(cfa_accept(fd, NULL, NULL), EBADF);
        struct sockaddr_in a = { .sin_family = AF_INET };
        EXPECT_ERR(cfa_connect(fd, (struct sockaddr *)&a, sizeof a), EBADF);
        EXPECT_ERR(cfa_splice(fd, NULL, 1, NULL, 8, 0), EBADF);
        EXPECT_ERR(cfa_sendfile(1, fd, &off, 8), EBADF);
    }
}

static void wrong_kinds(const char *dir) {
    int p[2];
    CHECK(pipe(p) == 0);
    char b[8];
    EXPECT_ERR(cfa_recv(p[0], b, 8, 0), ENOTSOCK);
    EXPECT_ERR(cfa_pread(p[0], b, 8, 0), ESPIPE);
    struct iovec iov = { b, 8 };
    EXPECT_ERR(cfa_readv(p[0], &iov, -1), EINVAL);
    int s = socket(AF_INET, SOCK_STREAM, 0);
    EXPECT_ERR(cfa_accept(s, NULL, NULL), EINVAL);        /* not listening */
    close(s);
    int d = open(dir, O_RDONLY | O_DIRECTORY);
    CHECK(d >= 0);
    EXPECT_ERR(cfa_read(d, b, 8), EISDIR);
    EXPECT_ERR(cfa_openat(d, "no-such-file", O_RDONLY), ENOENT);
    close(d);
    CHECK_EQ(cfa_write(p[1], "12345678", 8), 8);
    EXPECT_ERR(cfa_read(p[0], (void *)8, 8), EFAULT);      /* bad pointer */
    close(p[0]);
    close(p[1]);
}

static int listen_loopback(struct sockaddr_in *a) {
    int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    *a = (struct sockaddr_in){ .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    CHECK(bind(l, (struct sockaddr *)a, sizeof *a) == 0);
    CHECK(listen(l, 4) == 0);
    socklen_t len = sizeof *a;
    CHECK(getsockname(l, (struct sockaddr *)a, &len) == 0);
    return l;
}

static void sockets(void) {
    /* refused: a port that was listening and is closed now */
    struct sockaddr_in a;
    int l = listen_loopback(&a);
    close(l);
    int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    EXPECT_ERR(cfa_connect(c, (struct sockaddr *)&a, sizeof a), ECONNREFUSED);
    close(c);

    /* a connection whose peer closes */
    l = listen_loopback(&a);
    c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK_EQ(cfa_connect(c, (struct sockaddr *)&a, sizeof a), 0);
    int s = cfa_accept4(l, NULL, NULL, SOCK_CLOEXEC);
    CHECK(s >= 0, "accept4: %s", strerror(errno));
    char b[64];
    EXPECT_ERR(cfa_recv(c, b, sizeof b, MSG_DONTWAIT), EAGAIN);
    CHECK_EQ(cfa_send(s, "bye", 3, MSG_NOSIGNAL), 3);
    CHECK_EQ(cfa_close(s), 0);
    CHECK_EQ(cfa_recv(c, b, sizeof b, 0), 3);
    CHECK_EQ(cfa_recv(c, b, sizeof b, 0), 0);              /* EOF */
    CHECK_EQ(cfa_read(c, b, sizeof b), 0);
    /* writing to it: the first send may still succeed (the reset comes
     * back after it); within a few, EPIPE or ECONNRESET */
    int err = 0;
    for (int i = 0; i < 100 && !err; i++) {
        errno = 0;
        if (cfa_send(c, b, sizeof b, MSG_NOSIGNAL) < 0) err = errno;
        else cfa_sleep_ns(1000000);
    }
    CHECK(err == EPIPE || err == ECONNRESET, "send to a closed peer: %s", strerror(err));
    CHECK_EQ(cfa_close(c), 0);
    CHECK_EQ(cfa_close(l), 0);
}

static void futures(void) {
    io_future f;
    char b[8];
    async_read(&f, -1, b, sizeof b);
    for (int i = 0; i < 3; i++) {
        errno = 0;
        CHECK_EQ(cfa_io_wait(&f), -1);
        CHECK_EQ(errno, EBADF);
    }
    io_future never = {0};
    EXPECT_ERR(cfa_io_wait(&never), EINVAL);
    CHECK(!cfa_io_available(&never));
}

struct pthread_result { bool ok; const char *engine; };
static void *plain_thread(void *arg) {
    struct pthread_result *r = arg;
    r->engine = cfa_io_engine();
    int p[2];
    if (pipe(p) != 0) return NULL;
    char b[8] = {0};
    io_future f;
    async_write(&f, p[1], "pthread", 7);
    bool done_at_once = cfa_io_available(&f);
    r->ok = done_at_once && cfa_io_wait(&f) == 7 && cfa_read(p[0], b, 8) == 7 && memcmp(b, "pthread", 7) == 0 &&
            cfa_close(p[0]) == 0 && cfa_close(p[1]) == 0;
    errno = 0;
    r->ok = r->ok && cfa_read(-1, b, 1) == -1 && errno == EBADF;
    return NULL;
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    check_engine(argc, argv);
    signal(SIGPIPE, SIG_IGN);
    const char *tmp = getenv("TMPDIR");
    for (long rep = 0; rep < reps; rep++) {
        bad_descriptors();
        if (rep == 0)
            printf("bad descriptors: EBADF from read write pread pwrite readv writev close fsync recv send "
                   "accept connect splice sendfile\n");
        wrong_kinds(tmp && *tmp ? tmp : "/tmp");
        if (rep == 0) printf("wrong kinds: ENOTSOCK ESPIPE EINVAL EISDIR ENOENT EFAULT\n");
        sockets();
        if (rep == 0)
            printf("sockets: ECONNREFUSED, EOF after peer close, then EPIPE or ECONNRESET, EAGAIN with MSG_DONTWAIT\n");
        futures();
        if (rep == 0) printf("future: same error on every wait\n");
        struct pthread_result pr = { 0 };
        pthread_t pt;
        CHECK(cfa_kernel_thread_create(&pt, NULL, plain_thread, &pr) == 0);
        cfa_kernel_thread_join(pt, NULL);
        CHECK(strcmp(pr.engine, "syscall") == 0, "engine %s", pr.engine);
        CHECK(pr.ok);
        if (rep == 0) printf("pthread: engine syscall, pipe round trip ok, async completes at once\n");
    }
    return 0;
}
