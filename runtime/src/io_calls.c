/* io_calls.c: the public calls of cfa/io.h.
 *
 * Each async_X describes X in the caller's future and starts it; each
 * cfa_X is async_X on a future of its own frame followed by cfa_io_wait.
 * io_start picks the engine: the calling processor's ring, the fallback
 * engine, or the plain system call off a processor. (The cfa_X are
 * defined by the SYNC macro below: grep "SYNC(" to find one.)
 */
#include "processor.h"
#include "io_internal.h"

#include <cfa/runtime.h>
#include <cfa/sleep.h>
#include <stdbool.h>
#include <stdint.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/socket.h>

/* The no-migration window: from reading this_processor() until the SQE
 * is in that processor's ring (io_ring_start), the thread must not move
 * to another processor, whose ring it would then corrupt (the thesis's
 * serially-reusable problem). Nothing in it parks or yields or makes a
 * system call, and all of it is runtime code, which the preemption handler
 * never interrupts (it yields only in the program's own code:
 * preemption.c). The checks that need system calls (io_ring_precheck) come
 * first, and the window starts after them with a fresh this_processor(). */
void io_start(io_future *f)
{
    struct cfa_processor_state *p = this_processor();
    if (__builtin_expect(!p || !p->current || !p->io, 0)) {
        io_complete(f, io_deadline_passed(&f->req) ? -ETIMEDOUT : io_syscall(&f->req));
        return;
    }
    if (__builtin_expect(!p->io->uring, 0)) {
        fallback_start(f);
        return;
    }
    if (f->req.opcode >= IO_FIRST_PRECHECKED) {
        if (!io_ring_precheck(f))
            return;
        p = this_processor();
        if (!p->io->uring) { /* moved to a processor without a ring */
            fallback_start(f);
            return;
        }
    }
    /* A timed request enters its ring's deadline heap inside the window,
     * which cannot allocate: room first. */
    while (f->req.deadline && !deadlines_reserve(&p->io->deadlines)) {
        p = this_processor(); /* it allocated: we may have moved */
        if (!p->io->uring) {
            fallback_start(f);
            return;
        }
    }
    io_ring_start(p->io, f);
}

bool io_deadline_passed(const struct cfa_io_request *r)
{
    return r->deadline && cfa_clock_ns() >= r->deadline;
}

static void start(io_future *f, struct cfa_io_request req)
{
    io_future_begin(f);
    f->req = req;
    io_start(f);
}

static mode_t open_mode(int flags, va_list ap)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

/* ---- asynchronous ----------------------------------------------------------- */

static struct cfa_io_request read_request(int fd, void *buf, size_t count)
{
    return (struct cfa_io_request){ .opcode = IO_READ, .fd = fd, .addr = buf, .len = count, .off = -1 };
}

void async_read(io_future *f, int fd, void *buf, size_t count)
{
    start(f, read_request(fd, buf, count));
}

static struct cfa_io_request write_request(int fd, const void *buf, size_t count)
{
    return (struct cfa_io_request){ .opcode = IO_WRITE, .fd = fd, .addr = (void *)buf, .len = count, .off = -1 };
}

void async_write(io_future *f, int fd, const void *buf, size_t count)
{
    start(f, write_request(fd, buf, count));
}

void async_pread(io_future *f, int fd, void *buf, size_t count, off_t offset)
{
    start(f, (struct cfa_io_request){ .opcode = IO_PREAD, .fd = fd, .addr = buf, .len = count, .off = offset });
}

void async_pwrite(io_future *f, int fd, const void *buf, size_t count, off_t offset)
{
    start(f, (struct cfa_io_request){ .opcode = IO_PWRITE, .fd = fd, .addr = (void *)buf, .len = count,
                                      .off = offset });
}

void async_readv(io_future *f, int fd, const struct iovec *iov, int iovcnt)
{
    start(f, (struct cfa_io_request){ .opcode = IO_READV, .fd = fd, .addr = (void *)iov,
                                      .len = (uint64_t)(int64_t)iovcnt, .off = -1 });
}

void async_writev(io_future *f, int fd, const struct iovec *iov, int iovcnt)
{
    start(f, (struct cfa_io_request){ .opcode = IO_WRITEV, .fd = fd, .addr = (void *)iov,
                                      .len = (uint64_t)(int64_t)iovcnt, .off = -1 });
}

static void openat_start(io_future *f, int dirfd, const char *path, int flags, mode_t mode)
{
    start(f, (struct cfa_io_request){ .opcode = IO_OPENAT, .fd = dirfd, .addr = (void *)path,
                                      .flags = (uint32_t)flags, .mode = mode });
}

void async_openat(io_future *f, int dirfd, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = open_mode(flags, ap);
    va_end(ap);
    openat_start(f, dirfd, path, flags, mode);
}

void async_close(io_future *f, int fd)
{
    start(f, (struct cfa_io_request){ .opcode = IO_CLOSE, .fd = fd });
}

void async_fsync(io_future *f, int fd)
{
    start(f, (struct cfa_io_request){ .opcode = IO_FSYNC, .fd = fd });
}

static struct cfa_io_request accept4_request(int fd, struct sockaddr *addr, socklen_t *addrlen, int flags)
{
    return (struct cfa_io_request){ .opcode = IO_ACCEPT, .fd = fd, .addr = addr, .addr2 = addrlen,
                                    .flags = (uint32_t)flags };
}

void async_accept4(io_future *f, int fd, struct sockaddr *addr, socklen_t *addrlen, int flags)
{
    start(f, accept4_request(fd, addr, addrlen, flags));
}

void async_accept(io_future *f, int fd, struct sockaddr *addr, socklen_t *addrlen)
{
    async_accept4(f, fd, addr, addrlen, 0);
}

void async_connect(io_future *f, int fd, const struct sockaddr *addr, socklen_t addrlen)
{
    start(f, (struct cfa_io_request){ .opcode = IO_CONNECT, .fd = fd, .addr = (void *)addr, .len = addrlen });
}

static struct cfa_io_request send_request(int fd, const void *buf, size_t len, int flags)
{
    return (struct cfa_io_request){ .opcode = IO_SEND, .fd = fd, .addr = (void *)buf, .len = len,
                                    .flags = (uint32_t)flags };
}

void async_send(io_future *f, int fd, const void *buf, size_t len, int flags)
{
    start(f, send_request(fd, buf, len, flags));
}

static struct cfa_io_request recv_request(int fd, void *buf, size_t len, int flags)
{
    return (struct cfa_io_request){ .opcode = IO_RECV, .fd = fd, .addr = buf, .len = len,
                                    .flags = (uint32_t)flags };
}

void async_recv(io_future *f, int fd, void *buf, size_t len, int flags)
{
    start(f, recv_request(fd, buf, len, flags));
}

static struct cfa_io_request sendmsg_request(int fd, const struct msghdr *msg, int flags)
{
    return (struct cfa_io_request){ .opcode = IO_SENDMSG, .fd = fd, .addr = (void *)msg,
                                    .flags = (uint32_t)flags };
}

void async_sendmsg(io_future *f, int fd, const struct msghdr *msg, int flags)
{
    start(f, sendmsg_request(fd, msg, flags));
}

void async_recvmsg(io_future *f, int fd, struct msghdr *msg, int flags)
{
    start(f, (struct cfa_io_request){ .opcode = IO_RECVMSG, .fd = fd, .addr = msg, .flags = (uint32_t)flags });
}

/* splice(2) reads and advances *off_in / *off_out; the request carries
 * their values (io_uring takes offsets by value) and the pointers, which
 * the ring engine advances on completion. */
void async_splice(io_future *f, int fd_in, off_t *off_in, int fd_out, off_t *off_out, size_t len,
                  unsigned int flags)
{
    start(f, (struct cfa_io_request){ .opcode = IO_SPLICE, .fd = fd_out, .fd2 = fd_in, .addr2 = off_in,
                                      .addr3 = off_out, .off2 = off_in ? *off_in : -1,
                                      .off = off_out ? *off_out : -1, .len = len, .flags = flags });
}

static struct cfa_io_request sendfile_request(int out_fd, int in_fd, off_t *offset, size_t count)
{
    return (struct cfa_io_request){ .opcode = IO_SENDFILE, .fd = out_fd, .fd2 = in_fd, .addr2 = offset,
                                    .len = count, .off = -1 };
}

void async_sendfile(io_future *f, int out_fd, int in_fd, off_t *offset, size_t count)
{
    start(f, sendfile_request(out_fd, in_fd, offset, count));
}

static struct cfa_io_request wait_ready_request(int fd, short events)
{
    return (struct cfa_io_request){ .opcode = IO_POLL, .fd = fd, .flags = (uint16_t)events };
}

void async_wait_ready(io_future *f, int fd, short events)
{
    start(f, wait_ready_request(fd, events));
}

/* ---- synchronous ------------------------------------------------------------------ */

/* At once: a synchronous send or sendmsg on a processor with a ring is
 * first made as the system call with MSG_DONTWAIT. When the socket has
 * room, as it nearly always has for a request-response server, the call
 * ends there: no SQE, no park, no thread switch, no linked timeout. Only
 * EAGAIN (no room) goes to the ring, where the thread waits as before.
 * Receives are not tried first: in request-response traffic the next
 * request has usually not arrived when the thread asks for it, and the try
 * would be a system call for nothing. The fallback engine tries every
 * socket call at once itself (io_fallback.c); off a processor the call is
 * the plain system call anyway. Fairness: io_count_unparked. */
static bool tried_at_once(const struct cfa_io_request *req)
{
    if (req->opcode != IO_SEND && req->opcode != IO_SENDMSG)
        return false;
    struct cfa_processor_state *p = this_processor();
    return p && p->current && p->io && p->io->uring;
}

/* A synchronous call: at once if it can be, else started and waited for. */
static ssize_t sync_call(struct cfa_io_request req)
{
    if (tried_at_once(&req)) {
        int64_t r = io_syscall_nowait(&req);
        /* EAGAIN is the answer when the caller itself asked MSG_DONTWAIT. */
        if ((r != -EAGAIN && r != -EINTR) || (req.flags & MSG_DONTWAIT)) {
            struct cfa_processor_state *p = this_processor(); /* the call may have moved us */
            io_stat_add(&p->io->stats.count[IO_AT_ONCE], 1);
            io_count_unparked();
            return io_result(r);
        }
    }
    io_future f;
    start(&f, req);
    return cfa_io_wait(&f);
}

/* cfa_X(params) is async_X on a future of its own frame, then the wait.
 * SYNC(result type, X, (params), args) defines it. */
#define SYNC(type, name, params, ...)                                                              \
    type cfa_##name params                                                                         \
    {                                                                                              \
        io_future f;                                                                               \
        async_##name(&f, __VA_ARGS__);                                                             \
        return (type)cfa_io_wait(&f);                                                              \
    }

SYNC(ssize_t, read, (int fd, void *buf, size_t count), fd, buf, count)
SYNC(ssize_t, write, (int fd, const void *buf, size_t count), fd, buf, count)
SYNC(ssize_t, pread, (int fd, void *buf, size_t count, off_t offset), fd, buf, count, offset)
SYNC(ssize_t, pwrite, (int fd, const void *buf, size_t count, off_t offset), fd, buf, count, offset)
SYNC(ssize_t, readv, (int fd, const struct iovec *iov, int iovcnt), fd, iov, iovcnt)
SYNC(ssize_t, writev, (int fd, const struct iovec *iov, int iovcnt), fd, iov, iovcnt)
SYNC(int, close, (int fd), fd)
SYNC(int, fsync, (int fd), fd)
SYNC(int, accept4, (int fd, struct sockaddr *addr, socklen_t *addrlen, int flags), fd, addr, addrlen, flags)
SYNC(int, connect, (int fd, const struct sockaddr *addr, socklen_t addrlen), fd, addr, addrlen)
SYNC(ssize_t, recv, (int fd, void *buf, size_t len, int flags), fd, buf, len, flags)
SYNC(ssize_t, recvmsg, (int fd, struct msghdr *msg, int flags), fd, msg, flags)
SYNC(ssize_t, splice, (int fd_in, off_t *off_in, int fd_out, off_t *off_out, size_t len, unsigned int flags),
     fd_in, off_in, fd_out, off_out, len, flags)
SYNC(ssize_t, sendfile, (int out_fd, int in_fd, off_t *offset, size_t count), out_fd, in_fd, offset, count)
SYNC(int, wait_ready, (int fd, short events), fd, events)

/* cfa_X_until(params, deadline) starts X's request with the deadline in
 * it, then waits. SYNC_UNTIL(result type, X, (params), args) defines it.
 * A deadline <= 0 is already past: 1 keeps 0 meaning "none". */
#define SYNC_UNTIL(type, name, params, ...)                                                        \
    type cfa_##name##_until params                                                                 \
    {                                                                                              \
        struct cfa_io_request req = name##_request(__VA_ARGS__);                                   \
        req.deadline = deadline_ns > 0 ? deadline_ns : 1;                                          \
        return (type)sync_call(req);                                                               \
    }

SYNC_UNTIL(ssize_t, read, (int fd, void *buf, size_t count, int64_t deadline_ns), fd, buf, count)
SYNC_UNTIL(ssize_t, write, (int fd, const void *buf, size_t count, int64_t deadline_ns), fd, buf, count)
SYNC_UNTIL(int, accept4, (int fd, struct sockaddr *addr, socklen_t *addrlen, int flags, int64_t deadline_ns),
           fd, addr, addrlen, flags)
SYNC_UNTIL(ssize_t, send, (int fd, const void *buf, size_t len, int flags, int64_t deadline_ns), fd, buf, len,
           flags)
SYNC_UNTIL(ssize_t, recv, (int fd, void *buf, size_t len, int flags, int64_t deadline_ns), fd, buf, len, flags)
SYNC_UNTIL(ssize_t, sendfile, (int out_fd, int in_fd, off_t *offset, size_t count, int64_t deadline_ns), out_fd,
           in_fd, offset, count)
SYNC_UNTIL(int, wait_ready, (int fd, short events, int64_t deadline_ns), fd, events)

ssize_t cfa_send(int fd, const void *buf, size_t len, int flags)
{
    return sync_call(send_request(fd, buf, len, flags));
}

ssize_t cfa_sendmsg(int fd, const struct msghdr *msg, int flags)
{
    return sync_call(sendmsg_request(fd, msg, flags));
}

int cfa_openat(int dirfd, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = open_mode(flags, ap);
    va_end(ap);
    io_future f;
    openat_start(&f, dirfd, path, flags, mode);
    return (int)cfa_io_wait(&f);
}

int cfa_accept(int fd, struct sockaddr *addr, socklen_t *addrlen)
{
    return cfa_accept4(fd, addr, addrlen, 0);
}

const char *cfa_io_engine(void)
{
    struct cfa_processor_state *p = this_processor();
    if (!p || !p->io)
        return "syscall";
    return p->io->uring ? "io_uring" : "fallback";
}
