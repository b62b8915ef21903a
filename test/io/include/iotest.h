/* Helpers of the I/O suite (test/io), on top of the runtime suite's
 * check.h: CHECK/CHECK_EQ, arguments, processors.
 *
 * Every I/O test runs twice from its RUN lines: on the default engine
 * (io_uring where the kernel allows it) and with CFA_IO=fallback. Its
 * second argument names the engine it must find itself on, so a run
 * that silently used the other engine fails. */
#ifndef CFA_IOTEST_H
#define CFA_IOTEST_H

#include "check.h"
#include "task.h"
#include <cfa/io.h>
#include <errno.h>
#include <liburing.h>
#include <signal.h>

static inline void check_engine(int argc, char **argv) {
    const char *want = argc > 2 ? argv[2] : "default";
    const char *got = cfa_io_engine();
    if (strcmp(want, "fallback") == 0) {
        CHECK(strcmp(got, "fallback") == 0, "engine %s, wanted the fallback", got);
        return;
    }
    /* Default: io_uring exactly when this kernel lets us set a ring up. */
    struct io_uring ring;
    int err = io_uring_queue_init(2, &ring, 0);
    if (err == 0) io_uring_queue_exit(&ring);
    const char *expect = err == 0 ? "io_uring" : "fallback";
    CHECK(strcmp(got, expect) == 0, "engine %s, expected %s", got, expect);
}

/* Writes all n bytes with cfa_write (short writes are legal on pipes). */
static inline void write_all(int fd, const void *buf, size_t n) {
    const char *p = buf;
    while (n > 0) {
        ssize_t w = cfa_write(fd, p, n);
        CHECK(w > 0, "cfa_write: %zd %s", w, strerror(errno));
        p += w;
        n -= (size_t)w;
    }
}

#endif
