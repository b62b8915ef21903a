/* io_syscall.c: a request as the system call it describes.
 *
 * io_syscall blocks the calling kernel thread: it serves callers that are
 * not on a processor and the fallback pool's threads. io_syscall_nowait
 * tries without blocking, without touching the descriptor's flags (other
 * threads share them): RWF_NOWAIT for read/write, MSG_DONTWAIT for the
 * socket calls, a zero timeout for a readiness wait (IO_POLL); sendfile, which has no such flag, is the exception
 * (io_sendfile.c), and accept, which the fallback tries this way only on
 * an O_NONBLOCK socket. Both return the result or -errno.
 */
#include "io_internal.h"

#include <cfa/runtime.h>
#include <cfa/sleep.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/sendfile.h>
#include <unistd.h>

static int64_t result(long r)
{
    return r < 0 ? -(int64_t)errno : r;
}

/* IO_POLL as poll(2) on its descriptor: revents; -EBADF for a descriptor
 * poll calls invalid (POLLNVAL) or negative (poll would skip it and wait
 * for nothing), as io_uring's POLL_ADD says. Waiting: until readiness or
 * the request's deadline (-ETIMEDOUT); not waiting: one look (-EAGAIN if
 * nothing is ready). */
static int64_t poll_fd(const struct cfa_io_request *r, bool wait)
{
    struct pollfd pfd = { .fd = r->fd, .events = (short)r->flags };
    if (r->fd < 0)
        return -EBADF;
    for (;;) {
        int ms = 0;
        if (wait && r->deadline) {
            int64_t left = r->deadline - cfa_clock_ns();
            if (left <= 0)
                return -ETIMEDOUT;
            ms = left / 1000000 >= INT32_MAX ? INT32_MAX : (int)((left + 999999) / 1000000);
        } else if (wait) {
            ms = -1;
        }
        int n = poll(&pfd, 1, ms);
        if (n > 0)
            return pfd.revents & POLLNVAL ? -EBADF : pfd.revents;
        if (n == 0 && !wait)
            return -EAGAIN;
        if (n < 0 && errno != EINTR)
            return -errno;
    }
}

int64_t io_syscall(const struct cfa_io_request *r)
{
    switch (r->opcode) {
    case IO_READ:     return result(read(r->fd, r->addr, r->len));
    case IO_WRITE:    return result(write(r->fd, r->addr, r->len));
    case IO_PREAD:    return result(pread(r->fd, r->addr, r->len, r->off));
    case IO_PWRITE:   return result(pwrite(r->fd, r->addr, r->len, r->off));
    case IO_READV:    return result(readv(r->fd, r->addr, (int)r->len));
    case IO_WRITEV:   return result(writev(r->fd, r->addr, (int)r->len));
    case IO_OPENAT:   return result(openat(r->fd, r->addr, (int)r->flags, (mode_t)r->mode));
    case IO_CLOSE:    return result(close(r->fd));
    case IO_FSYNC:    return result(fsync(r->fd));
    case IO_ACCEPT:   return result(accept4(r->fd, r->addr, r->addr2, (int)r->flags));
    case IO_CONNECT:  return result(connect(r->fd, r->addr, (socklen_t)r->len));
    case IO_SEND:     return result(send(r->fd, r->addr, r->len, (int)r->flags));
    case IO_RECV:     return result(recv(r->fd, r->addr, r->len, (int)r->flags));
    case IO_SENDMSG:  return result(sendmsg(r->fd, r->addr, (int)r->flags));
    case IO_RECVMSG:  return result(recvmsg(r->fd, r->addr, (int)r->flags));
    case IO_SPLICE:   return result(splice(r->fd2, r->addr2, r->fd, r->addr3, r->len, r->flags));
    case IO_SENDFILE: return result(sendfile(r->fd, r->fd2, r->addr2, r->len));
    case IO_POLL:     return poll_fd(r, true);
    }
    cfa_fatal("io: unknown request opcode %d", r->opcode);
}

int64_t io_syscall_nowait(const struct cfa_io_request *r)
{
    struct iovec one = { r->addr, r->len };
    switch (r->opcode) {
    case IO_READ:    return result(preadv2(r->fd, &one, 1, -1, RWF_NOWAIT));
    case IO_WRITE:   return result(pwritev2(r->fd, &one, 1, -1, RWF_NOWAIT));
    case IO_READV:   return result(preadv2(r->fd, r->addr, (int)r->len, -1, RWF_NOWAIT));
    case IO_WRITEV:  return result(pwritev2(r->fd, r->addr, (int)r->len, -1, RWF_NOWAIT));
    case IO_SEND:    return result(send(r->fd, r->addr, r->len, (int)r->flags | MSG_DONTWAIT));
    case IO_RECV:    return result(recv(r->fd, r->addr, r->len, (int)r->flags | MSG_DONTWAIT));
    case IO_SENDMSG: return result(sendmsg(r->fd, r->addr, (int)r->flags | MSG_DONTWAIT));
    case IO_RECVMSG: return result(recvmsg(r->fd, r->addr, (int)r->flags | MSG_DONTWAIT));
    case IO_SENDFILE: return sendfile_nowait(r);
    case IO_ACCEPT:   return result(accept4(r->fd, r->addr, r->addr2, (int)r->flags)); /* O_NONBLOCK socket */
    case IO_POLL:     return poll_fd(r, false);
    }
    cfa_fatal("io: request opcode %d has no non-blocking form", r->opcode);
}
