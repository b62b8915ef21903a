/* io_internal.h: the seams between the I/O files.
 *
 *   io_calls.c      the public cfa_* and async_* calls: describe, start
 *   io_future.c     futures: completion, wait, poll
 *   io_uring.c      the per-processor ring: submit, backlog, reap, drain
 *   io_sendfile.c   sendfile without blocking, then a wait for room to write
 *   io_fallback.c   without io_uring: readiness (epoll) for sockets/pipes
 *   io_pool.c       without io_uring: kernel threads for blocking calls
 *   io_syscall.c    a request as the plain system call (or its nowait try)
 *   io_processor.c  per-processor state, engine choice, hooks, statistics
 *
 * A request (struct cfa_io_request, in the caller's future) describes the
 * operation completely, so any engine can start it, and start it again.
 */
#ifndef CFA_IO_INTERNAL_H
#define CFA_IO_INTERNAL_H

#include "io_processor.h"

enum io_opcode {
    IO_READ = 1, IO_WRITE, IO_READV, IO_WRITEV,
    IO_OPENAT, IO_CLOSE, IO_FSYNC, IO_ACCEPT, IO_CONNECT,
    IO_SEND, IO_RECV, IO_SENDMSG, IO_RECVMSG, IO_SPLICE,
    IO_POLL,   /* readiness: `flags` holds poll(2)'s events, the result revents */
    /* From here on, io_ring_precheck has work to do (io_uring.c). */
    IO_PREAD, IO_PWRITE, IO_SENDFILE,
    IO_FIRST_PRECHECKED = IO_PREAD,
};

/* The kernel caps one read or write at this many bytes (MAX_RW_COUNT);
 * io_uring's length fields are 32 bits, so lengths are clamped to it. */
#define IO_MAX_RW 0x7ffff000u

/* A timed request whose deadline has passed (one clock read; none for an
 * untimed request). */
bool io_deadline_passed(const struct cfa_io_request *r);

/* io_future.c */
void io_future_begin(io_future *f);            /* resets f: in progress */
void io_complete(io_future *f, int64_t res);   /* fulfils f, wakes its waiter */
/* The future whose `link` is l (NULL for NULL): the queues of futures. */
static inline io_future *io_future_of(struct cfa_qlink *l)
{
    return l ? cfa_queue_entry(l, io_future, link) : NULL;
}
ssize_t io_result(int64_t res);   /* as the system call: -1 and errno for -errno */
void io_count_unparked(void);   /* a call ended without a park: yields every so many */

/* io_calls.c: starts f->req on the calling processor's engine (or as the
 * plain system call when the caller is not on a processor). */
void io_start(io_future *f);

/* io_syscall.c: the request as a blocking system call; result or -errno. */
int64_t io_syscall(const struct cfa_io_request *r);
/* The same without blocking (RWF_NOWAIT, MSG_DONTWAIT); read, write,
 * readv, writev, send, recv, sendmsg and recvmsg only. -EAGAIN: would
 * block; -EOPNOTSUPP: the file cannot try without blocking. */
int64_t io_syscall_nowait(const struct cfa_io_request *r);

/* io_uring.c */
bool     io_ring_init(struct io_context *io, unsigned entries, char *why, size_t why_size);
void     io_ring_fini(struct io_context *io);   /* cancels, drains, hands leftovers on */
void     io_ring_forget(struct io_context *io); /* a fork()ed child's copy: unmapped, closed, nothing submitted */
bool     io_ring_precheck(io_future *f);    /* false: f ended there (completed or handed on) */
void     io_ring_start(struct io_context *io, io_future *f);
unsigned io_ring_poll(struct io_context *io);   /* flush + reap; CQEs handled */
bool     io_ring_stalled(struct io_context *io); /* requests the kernel refused */
void     io_ring_arm(struct io_context *io, int64_t deadline);
void     io_ring_sleep(struct io_context *io, int wake_fd); /* io_sleep with a ring */

/* io_deadlines.c: the heap of a ring's timed requests (no locks: the
 * ring's processor only). deadlines_reserve makes room for one more entry
 * and returns false if it had to allocate (a library call: the calling
 * thread may have moved to another processor); deadlines_insert needs
 * that room and never allocates. deadlines_remove ignores a request not in
 * the heap; deadlines_pop takes the earliest (the heap must not be empty). */
bool       deadlines_reserve(struct io_deadlines *h);
void       deadlines_insert(struct io_deadlines *h, io_future *f);
void       deadlines_remove(struct io_deadlines *h, io_future *f);
int64_t    deadlines_earliest(const struct io_deadlines *h); /* TIMER_NONE if empty */
io_future *deadlines_pop(struct io_deadlines *h);
void       deadlines_fini(struct io_deadlines *h);

/* io_sendfile.c */
int64_t sendfile_nowait(const struct cfa_io_request *r); /* -EAGAIN: the output is full */
bool sendfile_input_is_file(int in_fd);             /* else: the pool's blocking call */
bool sendfile_begin(io_future *f);                /* false: ended (done at once, or to the pool) */
void sendfile_prep(struct io_uring_sqe *sqe, const struct cfa_io_request *r); /* the POLLOUT wait */
enum sendfile_next { SENDFILE_DONE, SENDFILE_POLL };
enum sendfile_next sendfile_step(io_future *f, int res, int64_t *final); /* after the wait */

/* io_fallback.c */
void fallback_start(io_future *f);
void fallback_arm(int64_t deadline);
/* In a child made by fork(): the poller and its epoll instance and
 * timerfds were the parent's; the next request starts new ones. */
void fallback_fork_child(void);
extern _Atomic unsigned long fallback_waits;      /* statistics */

/* io_pool.c */
void pool_submit(io_future *f);
/* In a child made by fork(): no worker exists, no job is queued. */
void io_pool_fork_child(void);
extern _Atomic unsigned long pool_jobs;           /* statistics */

#endif
