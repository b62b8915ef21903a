/* cfa/io.h: I/O that blocks the calling user thread, not its processor
 * (docs/language.md section 9; the design is docs/io.md).
 *
 * Synchronous calls: cfa_read ... cfa_sendfile have the signature, the
 * result and the errno of the system call they are named after. While one
 * is in progress only the calling user thread is blocked; its processor
 * runs other threads.
 *
 * Asynchronous calls: async_X(&f, args of X) starts X and returns at once;
 * the caller owns the future f (an io_future, zero-initialisable) and
 * everything the call points to (buffers, iovecs, msghdr, sockaddr and
 * its length, path, offsets) until f completes:
 *
 *     io_future f = {0};
 *     async_read(&f, fd, buf, n);
 *     ...
 *     ssize_t r = cfa_io_wait(&f);      // blocks the thread; r as read()
 *
 * cfa_io_wait returns what X returns (-1 with errno set on failure), the
 * same value each time it is called again; cfa_io_available polls. One
 * thread at a time may wait on a future. A future may be reused for a new
 * operation once it has completed.
 *
 * From a kernel thread that is not a processor every call is the plain
 * system call (async_ forms complete before they return).
 *
 * The language's overloadable `wait(&f)` and `available(&f)` are these
 * two functions (the compiler's prelude maps them).
 */
#ifndef CFA_IO_H
#define CFA_IO_H

/* Only the types of the system calls' signatures, not the headers that
 * declare the calls: the compiler's prelude includes this file in every
 * program, where <sys/socket.h> would claim names such as listen and
 * accept, and <sys/types.h> select. The typedefs follow glibc's own guards
 * (the runtime is x86-64 Linux with glibc), so a later <sys/types.h> or
 * <sys/socket.h> agrees with them. */
#include <cfa/internal/queue.h>
#include <stdbool.h>
#include <bits/types.h>
#include <stddef.h>
#include <stdint.h>
#ifndef __ssize_t_defined
typedef __ssize_t ssize_t;
#  define __ssize_t_defined
#endif
#ifndef __off_t_defined
#  ifndef __USE_FILE_OFFSET64
typedef __off_t off_t;
#  else
typedef __off64_t off_t;
#  endif
#  define __off_t_defined
#endif
#ifndef __socklen_t_defined
typedef __socklen_t socklen_t;
#  define __socklen_t_defined
#endif
struct iovec;
struct msghdr;
struct sockaddr;

#ifdef __cplusplus
extern "C" {
#endif

struct cfa_thread;

/* Private to the runtime: the operation, kept in the future so that it can
 * be submitted later (ring full) or again (its processor stopped). */
struct cfa_io_request {
    void    *addr;     /* buffer, iovec, msghdr, path, sockaddr */
    void    *addr2;    /* accept: socklen_t *; splice: off_in *; sendfile: offset * */
    void    *addr3;    /* splice: off_out * */
    uint64_t len;      /* byte count, iovec count, connect's addrlen */
    int64_t  off;      /* file offset or -1; splice: *off_out or -1 */
    int64_t  off2;     /* splice: *off_in or -1 */
    int32_t  fd;       /* the descriptor (splice, sendfile: the output; openat: dirfd) */
    int32_t  fd2;      /* splice, sendfile: the input */
    uint32_t flags;    /* open, msg, accept or splice flags */
    uint32_t mode;     /* openat's mode */
    uint8_t  opcode;   /* enum io_opcode (runtime/src/io_request.h) */
    uint8_t  spare[3];
    int64_t  deadline; /* timed calls: CLOCK_MONOTONIC ns; 0: none */
    int64_t  slot;     /* io_uring, timed calls: 1 + place in the ring's deadline heap; 0: none */
    int64_t  spare2;
};

typedef struct io_future {
    _Atomic int           state;   /* private: see runtime/src/io_future.c */
    int                   spare;
    int64_t               result;  /* private: the result, or -errno */
    struct cfa_thread    *waiter;  /* private */
    struct cfa_qlink      link;    /* private: backlog, fd waiters, pool queue */
    struct cfa_io_request req;     /* private */
} io_future;

/* Blocks the calling user thread until f completes; returns the result as
 * the system call would (-1 with errno set). Waiting on a future that was
 * never started returns -1 with errno EINVAL. */
ssize_t cfa_io_wait(io_future *f);

/* Whether f has completed (cfa_io_wait would return at once). It also lets
 * the processor submit pending requests, so a polling loop progresses. */
bool cfa_io_available(io_future *f);

/* --- synchronous calls ------------------------------------------------- */
ssize_t cfa_read(int fd, void *buf, size_t count);
ssize_t cfa_write(int fd, const void *buf, size_t count);
ssize_t cfa_pread(int fd, void *buf, size_t count, off_t offset);
ssize_t cfa_pwrite(int fd, const void *buf, size_t count, off_t offset);
ssize_t cfa_readv(int fd, const struct iovec *iov, int iovcnt);
ssize_t cfa_writev(int fd, const struct iovec *iov, int iovcnt);
int     cfa_openat(int dirfd, const char *path, int flags, ... /* mode_t mode */);
int     cfa_close(int fd);
int     cfa_fsync(int fd);
int     cfa_accept(int fd, struct sockaddr *addr, socklen_t *addrlen);
int     cfa_accept4(int fd, struct sockaddr *addr, socklen_t *addrlen, int flags);
int     cfa_connect(int fd, const struct sockaddr *addr, socklen_t addrlen);
ssize_t cfa_send(int fd, const void *buf, size_t len, int flags);
ssize_t cfa_recv(int fd, void *buf, size_t len, int flags);
ssize_t cfa_sendmsg(int fd, const struct msghdr *msg, int flags);
ssize_t cfa_recvmsg(int fd, struct msghdr *msg, int flags);
ssize_t cfa_splice(int fd_in, off_t *off_in, int fd_out, off_t *off_out, size_t len,
                   unsigned int flags);
ssize_t cfa_sendfile(int out_fd, int in_fd, off_t *offset, size_t count);

/* --- timed calls: X that gives up at a deadline -------------------------
 *
 * cfa_X_until(arguments of X, deadline_ns) is cfa_X, except that if the
 * call has not completed by deadline_ns (CLOCK_MONOTONIC nanoseconds, the
 * clock of cfa_clock_ns) it is cancelled and returns -1 with errno
 * ETIMEDOUT. A cancelled call had no effect: nothing was read, written,
 * sent or accepted. A call that completes as the deadline passes returns
 * its result. A deadline already past still lets a call that can complete
 * at once do so.
 *
 * Limits: the fallback engine's pool (regular files; accept on a socket
 * without O_NONBLOCK once a connection is ready) cannot interrupt a
 * system call in progress, and off a processor the call is the plain
 * system call; there the deadline is checked before the call starts. */
ssize_t cfa_read_until(int fd, void *buf, size_t count, int64_t deadline_ns);
ssize_t cfa_write_until(int fd, const void *buf, size_t count, int64_t deadline_ns);
int     cfa_accept4_until(int fd, struct sockaddr *addr, socklen_t *addrlen, int flags,
                          int64_t deadline_ns);
ssize_t cfa_send_until(int fd, const void *buf, size_t len, int flags, int64_t deadline_ns);
ssize_t cfa_recv_until(int fd, void *buf, size_t len, int flags, int64_t deadline_ns);
ssize_t cfa_sendfile_until(int out_fd, int in_fd, off_t *offset, size_t count, int64_t deadline_ns);

/* --- readiness: poll(2) on one descriptor -------------------------------
 *
 * cfa_wait_ready(fd, events) blocks the calling thread until fd has one of
 * `events` (poll(2)'s bits: POLLIN, POLLOUT, POLLPRI ...) or an error or
 * hang-up, and returns poll's revents for it (> 0); it reads and writes
 * nothing. -1 with errno on failure (EBADF). cfa_wait_ready_until gives up
 * at deadline_ns with ETIMEDOUT. On io_uring it is one IORING_OP_POLL_ADD;
 * on the fallback engine a wait on the descriptor's epoll list, or a pool
 * thread's poll(2) for a descriptor epoll refuses or for both directions
 * at once. The runtime's poll and epoll_wait for user threads wait here
 * (docs/pthreads.md). */
int cfa_wait_ready(int fd, short events);
int cfa_wait_ready_until(int fd, short events, int64_t deadline_ns);

/* --- asynchronous calls: the future first, then the call's arguments ---- */
void async_read(io_future *f, int fd, void *buf, size_t count);
void async_write(io_future *f, int fd, const void *buf, size_t count);
void async_pread(io_future *f, int fd, void *buf, size_t count, off_t offset);
void async_pwrite(io_future *f, int fd, const void *buf, size_t count, off_t offset);
void async_readv(io_future *f, int fd, const struct iovec *iov, int iovcnt);
void async_writev(io_future *f, int fd, const struct iovec *iov, int iovcnt);
void async_openat(io_future *f, int dirfd, const char *path, int flags, ... /* mode_t mode */);
void async_close(io_future *f, int fd);
void async_fsync(io_future *f, int fd);
void async_accept(io_future *f, int fd, struct sockaddr *addr, socklen_t *addrlen);
void async_accept4(io_future *f, int fd, struct sockaddr *addr, socklen_t *addrlen, int flags);
void async_connect(io_future *f, int fd, const struct sockaddr *addr, socklen_t addrlen);
void async_send(io_future *f, int fd, const void *buf, size_t len, int flags);
void async_recv(io_future *f, int fd, void *buf, size_t len, int flags);
void async_sendmsg(io_future *f, int fd, const struct msghdr *msg, int flags);
void async_recvmsg(io_future *f, int fd, struct msghdr *msg, int flags);
void async_splice(io_future *f, int fd_in, off_t *off_in, int fd_out, off_t *off_out,
                  size_t len, unsigned int flags);
void async_sendfile(io_future *f, int out_fd, int in_fd, off_t *offset, size_t count);
void async_wait_ready(io_future *f, int fd, short events);

/* Which engine serves the calling processor: "io_uring", or "fallback"
 * (epoll and a thread pool: io_uring missing, disabled, or CFA_IO=fallback),
 * or "syscall" on a kernel thread that is not a processor. */
const char *cfa_io_engine(void);

#ifdef __cplusplus
}
#endif
#endif
