/* interpose_io.c: blocking system calls made by a user thread block only
 * that thread (LANGUAGE.md section 13).
 *
 * The runtime defines read, write, recv, send, accept, connect, their
 * variants, sleep, usleep, nanosleep and clock_nanosleep, so the program's
 * calls and those of the shared libraries it loads come here. A call made
 * by a user thread on a descriptor in blocking mode goes through the
 * runtime's I/O (cfa_read ..., cfa/io.h: io_uring or the fallback
 * engine), which parks the thread until the call completes, with the
 * system call's result and errno. That is a descriptor that can make a
 * call wait indefinitely: a pipe, a socket, a terminal or another
 * character device. Everything else is glibc's call, with glibc's
 * behaviour:
 *   - a descriptor in non-blocking mode (O_NONBLOCK): the call must still
 *     fail with EAGAIN rather than wait, so it is made directly (it never
 *     blocks);
 *   - a regular file, directory or block device: the call waits for the
 *     disk at worst, never for another thread, so it is made directly (a
 *     page-cache hit costs no more than the system call);
 *   - a kernel thread that is not running a user thread;
 *   - the runtime's own calls (the caller's address is in the runtime's
 *     text section): the runtime's I/O engine itself, its wake-ups.
 * The socket calls (recv, send, their msg and to/from forms) are first
 * made at once, whatever the descriptor (answered_at_once below); the
 * others ask for the descriptor's mode (fcntl) and, for a blocking one,
 * its kind (fstat) at every call.
 * Calls glibc makes inside itself (stdio's writes) do not come here.
 */
#include "interpose.h"

#include <cfa/io.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

PT_UNIT(io);

PT_INTERCEPTOR(ssize_t, read, int, void *, size_t);
PT_INTERCEPTOR(ssize_t, write, int, const void *, size_t);
PT_INTERCEPTOR(ssize_t, readv, int, const struct iovec *, int);
PT_INTERCEPTOR(ssize_t, writev, int, const struct iovec *, int);
PT_INTERCEPTOR(ssize_t, pread, int, void *, size_t, off_t);
PT_INTERCEPTOR(ssize_t, pwrite, int, const void *, size_t, off_t);
PT_INTERCEPTOR(ssize_t, pread64, int, void *, size_t, off_t);
PT_INTERCEPTOR(ssize_t, pwrite64, int, const void *, size_t, off_t);
PT_INTERCEPTOR(ssize_t, recv, int, void *, size_t, int);
PT_INTERCEPTOR(ssize_t, send, int, const void *, size_t, int);
PT_INTERCEPTOR(ssize_t, recvfrom, int, void *, size_t, int, struct sockaddr *, socklen_t *);
PT_INTERCEPTOR(ssize_t, sendto, int, const void *, size_t, int, const struct sockaddr *, socklen_t);
PT_INTERCEPTOR(ssize_t, recvmsg, int, struct msghdr *, int);
PT_INTERCEPTOR(ssize_t, sendmsg, int, const struct msghdr *, int);
PT_INTERCEPTOR(int, accept, int, struct sockaddr *, socklen_t *);
PT_INTERCEPTOR(int, accept4, int, struct sockaddr *, socklen_t *, int);
PT_INTERCEPTOR(int, connect, int, const struct sockaddr *, socklen_t);
PT_INTERCEPTOR(unsigned, sleep, unsigned);
PT_INTERCEPTOR(int, usleep, useconds_t);
PT_INTERCEPTOR(int, nanosleep, const struct timespec *, struct timespec *);
PT_INTERCEPTOR(int, clock_nanosleep, clockid_t, int, const struct timespec *, struct timespec *);

/* A descriptor whose calls may wait for another thread: a pipe, socket or
 * character device, in blocking mode. A bad descriptor is left to glibc's
 * call, which reports it. The mode first: a descriptor in non-blocking
 * mode, a server's usual socket, costs one fcntl, not also an fstat. */
static bool may_wait(int fd)
{
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || (flags & O_NONBLOCK))
        return false;
    struct stat st;
    return fstat(fd, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) && !S_ISBLK(st.st_mode);
}

#define BY_DESCRIPTOR(fd, runtime_call, name, ...) \
    return PARKS_CALLER() && may_wait(fd) ? runtime_call : pt_glibc_call(name, __VA_ARGS__)

PT_WEAK ssize_t read(int fd, void *buf, size_t n) { BY_DESCRIPTOR(fd, cfa_read(fd, buf, n), read, fd, buf, n); }
PT_WEAK ssize_t write(int fd, const void *buf, size_t n) { BY_DESCRIPTOR(fd, cfa_write(fd, buf, n), write, fd, buf, n); }
PT_WEAK ssize_t readv(int fd, const struct iovec *iov, int n) { BY_DESCRIPTOR(fd, cfa_readv(fd, iov, n), readv, fd, iov, n); }
PT_WEAK ssize_t writev(int fd, const struct iovec *iov, int n) { BY_DESCRIPTOR(fd, cfa_writev(fd, iov, n), writev, fd, iov, n); }

PT_WEAK ssize_t pread(int fd, void *buf, size_t n, off_t at) { BY_DESCRIPTOR(fd, cfa_pread(fd, buf, n, at), pread, fd, buf, n, at); }
PT_WEAK ssize_t pwrite(int fd, const void *buf, size_t n, off_t at) { BY_DESCRIPTOR(fd, cfa_pwrite(fd, buf, n, at), pwrite, fd, buf, n, at); }
PT_WEAK ssize_t pread64(int fd, void *buf, size_t n, off_t at) { BY_DESCRIPTOR(fd, cfa_pread(fd, buf, n, at), pread64, fd, buf, n, at); }
PT_WEAK ssize_t pwrite64(int fd, const void *buf, size_t n, off_t at) { BY_DESCRIPTOR(fd, cfa_pwrite(fd, buf, n, at), pwrite64, fd, buf, n, at); }

/* recvfrom and sendto: recvmsg and sendmsg with the address in the header. */
static ssize_t recvfrom_by_msg(int fd, void *buf, size_t n, int flags, struct sockaddr *from, socklen_t *len)
{
    struct iovec iov = { buf, n };
    struct msghdr m = { .msg_name = from, .msg_namelen = from && len ? *len : 0, .msg_iov = &iov, .msg_iovlen = 1 };
    ssize_t r = cfa_recvmsg(fd, &m, flags);
    if (r >= 0 && from && len)
        *len = m.msg_namelen;
    return r;
}

static ssize_t sendto_by_msg(int fd, const void *buf, size_t n, int flags, const struct sockaddr *to, socklen_t len)
{
    struct iovec iov = { (void *)buf, n };
    struct msghdr m = { .msg_name = (void *)to, .msg_namelen = to ? len : 0, .msg_iov = &iov, .msg_iovlen = 1 };
    return cfa_sendmsg(fd, &m, flags);
}

/* The socket calls are first made at once (MSG_DONTWAIT): with data or
 * room there, that is the result the blocking call would give (a send may
 * be partial, as the runtime's own send is: docs/io.md), whatever the
 * descriptor's kind or mode, which are then never asked for. Only EAGAIN
 * leads to the mode: a non-blocking descriptor (or MSG_DONTWAIT from the
 * caller) has its answer; a blocking one waits in the runtime's call. A
 * receive with MSG_WAITALL is not tried: at once it could return part. */
static bool answered_at_once(int fd, ssize_t r, int flags)
{
    if (r >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK) || (flags & MSG_DONTWAIT))
        return true;
    int again = errno;
    bool wait = may_wait(fd);
    errno = again;
    return !wait;
}

#define AT_ONCE_FIRST(fd, flags, runtime_call, plain_call, at_once_call)                          \
    do {                                                                                           \
        if (!PARKS_CALLER())                                                                       \
            return plain_call;                                                                     \
        ssize_t r = at_once_call;                                                                  \
        return answered_at_once(fd, r, flags) ? r : runtime_call;                                  \
    } while (0)

/* A receive for the whole length waits by descriptor, untried. */
#define WHOLE_BY_DESCRIPTOR(fd, flags, runtime_call, name, ...)                                   \
    if ((flags) & MSG_WAITALL)                                                                     \
    BY_DESCRIPTOR(fd, runtime_call, name, __VA_ARGS__)

PT_WEAK ssize_t recv(int fd, void *buf, size_t n, int flags)
{
    WHOLE_BY_DESCRIPTOR(fd, flags, cfa_recv(fd, buf, n, flags), recv, fd, buf, n, flags);
    AT_ONCE_FIRST(fd, flags, cfa_recv(fd, buf, n, flags), pt_glibc_call(recv, fd, buf, n, flags),
                  pt_glibc_call(recv, fd, buf, n, flags | MSG_DONTWAIT));
}

PT_WEAK ssize_t send(int fd, const void *buf, size_t n, int flags)
{
    AT_ONCE_FIRST(fd, flags, cfa_send(fd, buf, n, flags), pt_glibc_call(send, fd, buf, n, flags),
                  pt_glibc_call(send, fd, buf, n, flags | MSG_DONTWAIT));
}

PT_WEAK ssize_t recvmsg(int fd, struct msghdr *m, int flags)
{
    WHOLE_BY_DESCRIPTOR(fd, flags, cfa_recvmsg(fd, m, flags), recvmsg, fd, m, flags);
    AT_ONCE_FIRST(fd, flags, cfa_recvmsg(fd, m, flags), pt_glibc_call(recvmsg, fd, m, flags),
                  pt_glibc_call(recvmsg, fd, m, flags | MSG_DONTWAIT));
}

PT_WEAK ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
    AT_ONCE_FIRST(fd, flags, cfa_sendmsg(fd, m, flags), pt_glibc_call(sendmsg, fd, m, flags),
                  pt_glibc_call(sendmsg, fd, m, flags | MSG_DONTWAIT));
}

PT_WEAK ssize_t recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *from, socklen_t *len)
{
    WHOLE_BY_DESCRIPTOR(fd, flags, recvfrom_by_msg(fd, buf, n, flags, from, len), recvfrom, fd, buf, n, flags,
                        from, len);
    AT_ONCE_FIRST(fd, flags, recvfrom_by_msg(fd, buf, n, flags, from, len),
                  pt_glibc_call(recvfrom, fd, buf, n, flags, from, len),
                  pt_glibc_call(recvfrom, fd, buf, n, flags | MSG_DONTWAIT, from, len));
}

PT_WEAK ssize_t sendto(int fd, const void *buf, size_t n, int flags, const struct sockaddr *to, socklen_t len)
{
    AT_ONCE_FIRST(fd, flags, sendto_by_msg(fd, buf, n, flags, to, len), pt_glibc_call(sendto, fd, buf, n, flags, to, len),
                  pt_glibc_call(sendto, fd, buf, n, flags | MSG_DONTWAIT, to, len));
}

PT_WEAK int accept(int fd, struct sockaddr *a, socklen_t *len) { BY_DESCRIPTOR(fd, cfa_accept(fd, a, len), accept, fd, a, len); }
PT_WEAK int accept4(int fd, struct sockaddr *a, socklen_t *len, int flags) { BY_DESCRIPTOR(fd, cfa_accept4(fd, a, len, flags), accept4, fd, a, len, flags); }
PT_WEAK int connect(int fd, const struct sockaddr *a, socklen_t len) { BY_DESCRIPTOR(fd, cfa_connect(fd, a, len), connect, fd, a, len); }

/* ---- sleeping ------------------------------------------------------------ */

PT_WEAK unsigned sleep(unsigned seconds)
{
    if (!PARKS_CALLER())
        return pt_glibc_call(sleep, seconds);
    cfa_sleep_ns((int64_t)seconds * 1000000000);
    return 0;
}

PT_WEAK int usleep(useconds_t us)
{
    if (!PARKS_CALLER())
        return pt_glibc_call(usleep, us);
    cfa_sleep_ns((int64_t)us * 1000);
    return 0;
}

static bool valid_timespec(const struct timespec *t)
{
    return t->tv_sec >= 0 && t->tv_nsec >= 0 && t->tv_nsec < 1000000000;
}

static int64_t timespec_ns(const struct timespec *t)
{
    return t->tv_sec > INT64_MAX / 1000000000 - 1 ? INT64_MAX : (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

PT_WEAK int nanosleep(const struct timespec *req, struct timespec *rem)
{
    if (!PARKS_CALLER())
        return pt_glibc_call(nanosleep, req, rem);
    if (!valid_timespec(req)) {
        errno = EINVAL;
        return -1;
    }
    cfa_sleep_ns(timespec_ns(req));
    return 0;
}

PT_WEAK int clock_nanosleep(clockid_t clock, int flags, const struct timespec *req, struct timespec *rem)
{
    if (!PARKS_CALLER())
        return pt_glibc_call(clock_nanosleep, clock, flags, req, rem);
    if (req->tv_nsec < 0 || req->tv_nsec >= 1000000000)
        return EINVAL;
    struct timespec now;
    if (clock_gettime(clock, &now) != 0 || clock == CLOCK_THREAD_CPUTIME_ID)
        return EINVAL;
    int64_t ns = timespec_ns(req);
    if (flags & TIMER_ABSTIME)
        ns = (int64_t)(req->tv_sec - now.tv_sec) * 1000000000 + (req->tv_nsec - now.tv_nsec);
    else if (req->tv_sec < 0)
        return EINVAL;
    cfa_sleep_ns(ns);
    return 0;
}
