// cfa_sendfile and cfa_splice, with sendfile(2)/splice(2)'s results and
// offsets: 3 MiB of a file sent to a TCP socket (more than a pipe holds:
// on io_uring the call is a chain of splices), checked byte for byte by a
// reader thread; with an offset pointer (advanced; the file position
// untouched) and without (the file position advances); past the end of
// the file (short count, then 0); async_sendfile; splice from a file into
// a pipe and from a pipe into a file, offsets advanced. The socket's send
// buffer is small, so most sendfile calls find it full and must wait for
// room while the reader, on the same single processor, drains it. Last,
// sendfile from a character device (/dev/zero, not a regular file: the
// blocking pool makes the call) into a pipe that a thread of the same
// processor drains: the call must block its thread only.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress default | FileCheck %s
// RUN: env CFA_IO=fallback %timeout %t %stress fallback | FileCheck %s
// CHECK: sendfile with offset: 3145728 bytes, offset advanced, position untouched
// CHECK-NEXT: sendfile at the position: 3145728 bytes, position advanced
// CHECK-NEXT: sendfile past the end: 1000 then 0
// CHECK-NEXT: async_sendfile: 1048576 bytes
// CHECK-NEXT: splice file -> pipe -> file: 65536 bytes, offsets advanced
// CHECK-NEXT: received 7341032 bytes, all checked
// CHECK-NEXT: sendfile /dev/zero -> pipe: 200000 bytes, all zero
#include "iotest.h"
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <unistd.h>

enum { FILE_SIZE = 3 << 20 };

static unsigned char byte_at(uint64_t off) { return (unsigned char)((off * 2654435761u) >> 13); }

struct reader { int fd; long expect; long got; };
/* Reads the stream the sender produces: the file from `starts[i]` for
 * `lens[i]` bytes, for each segment in turn. */
static const uint64_t starts[] = { 0, 0, FILE_SIZE - 1000, 1 << 20 };
static const uint64_t lens[] = { FILE_SIZE, FILE_SIZE, 1000, 1 << 20 };
static void reader_main(void *arg) {
    struct reader *r = arg;
    static unsigned char buf[1 << 16];
    uint64_t seg = 0, pos = 0;
    while (r->got < r->expect) {
        ssize_t n = cfa_recv(r->fd, buf, sizeof buf, 0);
        CHECK(n > 0, "recv: %zd %s", n, strerror(errno));
        for (ssize_t i = 0; i < n; i++) {
            while (pos == lens[seg]) { seg++; pos = 0; }
            CHECK(buf[i] == byte_at(starts[seg] + pos), "segment %llu byte %llu", (unsigned long long)seg,
                  (unsigned long long)pos);
            pos++;
        }
        r->got += n;
    }
}

enum { PIPE_BYTES = 200000 };
/* Drains the pipe, checking every byte: more than the pipe holds, so the
 * sender waits for it. */
static void pipe_checker(void *arg) {
    int fd = *(int *)arg;
    static unsigned char buf[1 << 14];
    for (long got = 0; got < PIPE_BYTES;) {
        ssize_t n = cfa_read(fd, buf, sizeof buf);
        CHECK(n > 0, "read: %zd", n);
        for (ssize_t i = 0; i < n; i++) CHECK(buf[i] == 0, "byte %ld", got + i);
        got += n;
    }
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    check_engine(argc, argv);
    signal(SIGPIPE, SIG_IGN);
    const char *tmp = getenv("TMPDIR");
    char dir[512], path[600], path2[600];
    snprintf(dir, sizeof dir, "%s/cfa-io-sendfile-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/src", dir);
    snprintf(path2, sizeof path2, "%s/dst", dir);
    unsigned char *data = malloc(FILE_SIZE);
    for (uint64_t i = 0; i < FILE_SIZE; i++) data[i] = byte_at(i);

    for (long rep = 0; rep < reps; rep++) {
        int in = cfa_openat(AT_FDCWD, path, O_CREAT | O_RDWR | O_TRUNC | O_CLOEXEC, 0600);
        CHECK(in >= 0);
        for (size_t off = 0; off < FILE_SIZE;) {
            ssize_t w = cfa_pwrite(in, data + off, FILE_SIZE - off, (off_t)off);
            CHECK(w > 0);
            off += (size_t)w;
        }
        /* a connected TCP pair on loopback */
        int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        CHECK(bind(l, (struct sockaddr *)&a, sizeof a) == 0 && listen(l, 1) == 0);
        socklen_t alen = sizeof a;
        CHECK(getsockname(l, (struct sockaddr *)&a, &alen) == 0);
        int out = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        CHECK(setsockopt(out, SOL_SOCKET, SO_SNDBUF, &(int){65536}, sizeof(int)) == 0);
        CHECK_EQ(cfa_connect(out, (struct sockaddr *)&a, sizeof a), 0);
        int peer = cfa_accept(l, NULL, NULL);
        CHECK(peer >= 0);
        struct reader rd = { .fd = peer, .expect = 2L * FILE_SIZE + 1000 + (1 << 20) };
        struct task rt;
        task_start(&rt, reader_main, &rd, "Reader");

        /* 1: with an offset pointer */
        CHECK_EQ(lseek(in, 12345, SEEK_SET), 12345);
        off_t off = 0;
        long sent = 0;
        while (sent < FILE_SIZE) {
            ssize_t n = cfa_sendfile(out, in, &off, FILE_SIZE - (size_t)sent);
            CHECK(n > 0, "sendfile: %s", strerror(errno));
            sent += n;
            CHECK_EQ(off, sent);
        }
        CHECK_EQ(lseek(in, 0, SEEK_CUR), 12345);
        if (rep == 0) printf("sendfile with offset: %ld bytes, offset advanced, position untouched\n", sent);

        /* 2: at the file position */
        CHECK_EQ(lseek(in, 0, SEEK_SET), 0);
        sent = 0;
        while (sent < FILE_SIZE) {
            ssize_t n = cfa_sendfile(out, in, NULL, FILE_SIZE - (size_t)sent);
            CHECK(n > 0, "sendfile: %s", strerror(errno));
            sent += n;
            CHECK_EQ(lseek(in, 0, SEEK_CUR), sent);
        }
        if (rep == 0) printf("sendfile at the position: %ld bytes, position advanced\n", sent);

        /* 3: past the end */
        off = FILE_SIZE - 1000;
        CHECK_EQ(cfa_sendfile(out, in, &off, 5000), 1000);
        CHECK_EQ(off, FILE_SIZE);
        CHECK_EQ(cfa_sendfile(out, in, &off, 5000), 0);
        if (rep == 0) printf("sendfile past the end: 1000 then 0\n");

        /* 4: async */
        io_future f;
        off = 1 << 20;
        long async_sent = 0;
        while (async_sent < (1 << 20)) {
            async_sendfile(&f, out, in, &off, (size_t)((1 << 20) - async_sent));
            ssize_t n = cfa_io_wait(&f);
            CHECK(n > 0, "async_sendfile: %s", strerror(errno));
            async_sent += n;
        }
        CHECK_EQ(off, 2 << 20);
        if (rep == 0) printf("async_sendfile: %ld bytes\n", async_sent);

        /* 5: splice file -> pipe -> file */
        int p[2];
        CHECK(pipe(p) == 0);
        int dst = cfa_openat(AT_FDCWD, path2, O_CREAT | O_RDWR | O_TRUNC | O_CLOEXEC, 0600);
        CHECK(dst >= 0);
        off_t in_off = 4096, out_off = 100;
        long moved = 0;
        while (moved < 65536) {
            ssize_t n = cfa_splice(in, &in_off, p[1], NULL, (size_t)(65536 - moved), 0);
            CHECK(n > 0, "splice in: %s", strerror(errno));
            for (ssize_t left = n; left > 0;) {
                ssize_t m = cfa_splice(p[0], NULL, dst, &out_off, (size_t)left, 0);
                CHECK(m > 0, "splice out: %s", strerror(errno));
                left -= m;
            }
            moved += n;
        }
        CHECK_EQ(in_off, 4096 + 65536);
        CHECK_EQ(out_off, 100 + 65536);
        static unsigned char back[65536];
        CHECK_EQ(cfa_pread(dst, back, sizeof back, 100), 65536);
        CHECK(memcmp(back, data + 4096, 65536) == 0);
        if (rep == 0) printf("splice file -> pipe -> file: %ld bytes, offsets advanced\n", moved);
        close(p[0]);
        close(p[1]);
        CHECK_EQ(cfa_close(dst), 0);

        cfa_thread_join(&rt.thread);
        CHECK_EQ(rd.got, rd.expect);
        if (rep == 0) printf("received %ld bytes, all checked\n", rd.got);
        cfa_close(out);
        cfa_close(peer);
        cfa_close(l);
        cfa_close(in);
        unlink(path);
        unlink(path2);

        /* 6: from a character device, into a pipe */
        int zero = open("/dev/zero", O_RDONLY | O_CLOEXEC), q[2];
        CHECK(zero >= 0 && pipe(q) == 0);
        struct task ct;
        task_start(&ct, pipe_checker, &q[0], "PipeChecker");
        long moved6 = 0;
        while (moved6 < PIPE_BYTES) {
            ssize_t n = cfa_sendfile(q[1], zero, NULL, (size_t)(PIPE_BYTES - moved6));
            CHECK(n > 0, "sendfile from /dev/zero: %zd %s", n, strerror(errno));
            moved6 += n;
        }
        cfa_thread_join(&ct.thread);
        if (rep == 0) printf("sendfile /dev/zero -> pipe: %ld bytes, all zero\n", moved6);
        close(zero); close(q[0]); close(q[1]);
    }
    rmdir(dir);
    free(data);
    return 0;
}
