// Pipes on one processor: a writer thread and the main thread reading
// share a pipe (the reader blocks, the writer runs); a future on an empty
// pipe is not available until a write, then waits return the same value
// every time; readv/writev; EOF after close; on an O_NONBLOCK pipe a
// read still waits for data (blocking only the thread, as io_uring does on
// both engines); many pipe pairs blocked at once.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress default | FileCheck %s
// RUN: env CFA_IO=fallback %timeout %t %stress fallback | FileCheck %s
// RUN: env CFA_IO=fallback CFA_VERBOSE=1 %timeout %t 1 fallback 2>&1 >/dev/null | FileCheck --check-prefix=WARN %s
// WARN: cfa: io: CFA_IO=fallback; using the fallback engine (epoll and a thread pool)
// WARN-NOT: cfa: io:
// CHECK: lines 1000 bytes 8890
// CHECK-NEXT: future: available 0, read 5 hello, again 5
// CHECK-NEXT: readv/writev 3 buffers ok
// CHECK-NEXT: O_NONBLOCK empty pipe: waited for 4 bytes
// CHECK-NEXT: 20 pipe pairs ping-pong ok
#include "iotest.h"
#include <fcntl.h>
#include <unistd.h>

static void writer(void *arg) {
    int fd = *(int *)arg;
    char msg[64];
    for (int i = 0; i < 1000; i++) {
        int n = snprintf(msg, sizeof msg, "line %d\n", i);
        write_all(fd, msg, (size_t)n);
    }
    CHECK_EQ(cfa_close(fd), 0);
}

struct late_write { int fd; struct cfa_thread *reader; };
static void late_writer(void *arg) {
    struct late_write *w = arg;
    wait_until_blocked(w->reader);               /* it waits on the empty pipe */
    CHECK_EQ(cfa_write(w->fd, "late", 4), 4);
}

/* ---- ping-pong: pairs of threads bounce a counter through two pipes ---- */
enum { PAIRS = 20, BOUNCES = 500 };
struct pair { int ab[2], ba[2]; };
static void ping(void *arg) {
    struct pair *p = arg;
    for (int i = 0; i < BOUNCES; i++) {
        CHECK_EQ(cfa_write(p->ab[1], &i, sizeof i), sizeof i);
        int back = -1;
        CHECK_EQ(cfa_read(p->ba[0], &back, sizeof back), sizeof back);
        CHECK_EQ(back, i + 1);
    }
}
static void pong(void *arg) {
    struct pair *p = arg;
    for (int i = 0; i < BOUNCES; i++) {
        int v = -1;
        CHECK_EQ(cfa_read(p->ab[0], &v, sizeof v), sizeof v);
        CHECK_EQ(v, i);
        v++;
        CHECK_EQ(cfa_write(p->ba[1], &v, sizeof v), sizeof v);
    }
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    check_engine(argc, argv);
    for (long r = 0; r < reps; r++) {
        int fds[2];
        CHECK(pipe(fds) == 0);
        long bytes = 0, lines = 0;
        struct task w;
        task_start(&w, writer, &fds[1], "Writer");
        char buf[256];
        for (;;) {
            ssize_t n = cfa_read(fds[0], buf, sizeof buf);
            CHECK(n >= 0, "cfa_read: %s", strerror(errno));
            if (n == 0) break;
            bytes += n;
            for (ssize_t i = 0; i < n; i++) lines += buf[i] == '\n';
        }
        cfa_thread_join(&w.thread);
        CHECK_EQ(cfa_close(fds[0]), 0);
        if (r == 0) printf("lines %ld bytes %ld\n", lines, bytes);
        CHECK_EQ(lines, 1000);
        CHECK_EQ(bytes, 8890);

        /* a future on an empty pipe */
        CHECK(pipe(fds) == 0);
        char b2[16] = {0};
        io_future f;
        async_read(&f, fds[0], b2, 5);
        for (int i = 0; i < 100; i++) cfa_yield();
        int avail = cfa_io_available(&f);
        CHECK_EQ(avail, 0);
        CHECK_EQ(cfa_write(fds[1], "hello", 5), 5);
        ssize_t got = cfa_io_wait(&f);
        ssize_t again = cfa_io_wait(&f);
        CHECK(cfa_io_available(&f));
        if (r == 0) printf("future: available %d, read %zd %s, again %zd\n", avail, got, b2, again);
        CHECK_EQ(got, 5);
        CHECK_EQ(again, 5);

        /* readv / writev */
        char a[3] = "abc", b[4] = "defg", c[5] = "hijkl";
        struct iovec out[3] = { { a, 3 }, { b, 4 }, { c, 5 } };
        CHECK_EQ(cfa_writev(fds[1], out, 3), 12);
        char x[5], y[3], z[4];
        struct iovec in[3] = { { x, 5 }, { y, 3 }, { z, 4 } };
        CHECK_EQ(cfa_readv(fds[0], in, 3), 12);
        CHECK(memcmp(x, "abcde", 5) == 0 && memcmp(y, "fgh", 3) == 0 && memcmp(z, "ijkl", 4) == 0);
        if (r == 0) printf("readv/writev 3 buffers ok\n");
        CHECK_EQ(cfa_close(fds[1]), 0);
        CHECK_EQ(cfa_read(fds[0], x, 5), 0);            /* EOF */
        CHECK_EQ(cfa_close(fds[0]), 0);

        /* O_NONBLOCK: the read waits for the late writer */
        CHECK(pipe2(fds, O_NONBLOCK) == 0);
        struct task late;
        struct late_write lw = { fds[1], cfa_active_thread() };
        task_start(&late, late_writer, &lw, "LateWriter");
        CHECK_EQ(cfa_read(fds[0], x, 5), 4);
        CHECK(memcmp(x, "late", 4) == 0);
        cfa_thread_join(&late.thread);
        if (r == 0) printf("O_NONBLOCK empty pipe: waited for 4 bytes\n");
        close(fds[0]);
        close(fds[1]);

        /* many pairs blocked at once */
        static struct pair pairs[PAIRS];
        static struct task tasks[2 * PAIRS];
        for (int i = 0; i < PAIRS; i++) {
            CHECK(pipe(pairs[i].ab) == 0 && pipe(pairs[i].ba) == 0);
            task_start(&tasks[2 * i], ping, &pairs[i], "Ping");
            task_start(&tasks[2 * i + 1], pong, &pairs[i], "Pong");
        }
        for (int i = 0; i < 2 * PAIRS; i++) cfa_thread_join(&tasks[i].thread);
        for (int i = 0; i < PAIRS; i++)
            for (int j = 0; j < 2; j++) { close(pairs[i].ab[j]); close(pairs[i].ba[j]); }
        if (r == 0) printf("%d pipe pairs ping-pong ok\n", PAIRS);
    }
    return 0;
}
