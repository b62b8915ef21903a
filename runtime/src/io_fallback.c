/* io_fallback.c: I/O without io_uring (missing, disabled, or CFA_IO=
 * fallback). Two mechanisms, chosen per request:
 *
 *  - readiness, for read/write/readv/writev on pipes, sockets and other
 *    pollable files, send/recv/sendmsg/recvmsg, sendfile from a regular
 *    file (io_sendfile.c) and readiness waits (IO_POLL: the try is a
 *    poll with no timeout; one direction, in or out): try the call without
 *    blocking (io_syscall_nowait); if it would block, park the request on
 *    the descriptor's wait list and let the poller thread (one epoll
 *    instance, edge-triggered) try again when the descriptor becomes
 *    ready. The poller runs the retry itself and completes the future.
 *  - the pool (io_pool.c), kernel threads that make the blocking call, for
 *    everything epoll cannot wait for: regular files and block devices,
 *    open, fsync, splice, sendfile from a pipe or socket (which could say
 *    EAGAIN while the output is ready), readiness waits for both
 *    directions at once (a request is on one wait list), and
 *    accept/connect (which have no per-call non-blocking flag; on an
 *    O_NONBLOCK socket the pool thread waits for readiness itself,
 *    io_pool.c).
 * close is made directly: it does not wait for I/O.
 *
 * As on io_uring, O_NONBLOCK on a descriptor does not make a call return
 * EAGAIN: the call waits, blocking only its thread (io_uring retries such
 * descriptors when they become ready, on purpose). A socket call passing
 * MSG_DONTWAIT gets EAGAIN, on both engines.
 *
 * Timed requests (cfa_X_until): a request that would wait past its
 * deadline completes with ETIMEDOUT instead of joining a list. One that
 * joins arms the poller's second timerfd (`deadlines`) for its deadline
 * if that is the earliest armed; when it fires, the poller walks the wait
 * lists (the chunks in use), completes the expired requests with
 * ETIMEDOUT and arms for the earliest deadline left. Only the poller
 * retries listed requests, so the walk races with no retry.
 *
 * accept waits here too when its socket is O_NONBLOCK (accept4 then says
 * EAGAIN without blocking): a pool thread blocked in accept(2) would hold
 * a descriptor slot for the whole wait (the kernel reserves the new
 * descriptor first), and enough of them exhaust RLIMIT_NOFILE with no
 * client at all.
 *
 * The poller also owns a timerfd: processors in fallback mode arm it for
 * the earliest timer before sleeping (fallback_arm), and the poller
 * services the timer heap when it fires (timer.h).
 *
 * Lost wake-ups: each descriptor entry counts readiness events per
 * direction (`seq`, under the entry's lock). A request snapshots the count
 * before its try and joins the wait list only if no event came since;
 * otherwise it tries again. An event after it joined finds it on the list.
 * Registration is EPOLL_CTL_ADD on each first wait of a request (EEXIST:
 * already registered); ADD reports readiness at once if the descriptor is
 * ready, and a closed descriptor leaves the epoll set by itself, so a
 * reused descriptor number is registered afresh.
 */
#include "deadlock.h"
#include "kthread.h"
#include "io_internal.h"
#include "spinlock.h"
#include "timer.h"

#include <cfa/runtime.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

enum { DIR_IN = 0, DIR_OUT = 1 };
enum { CHUNK_BITS = 10, CHUNK = 1 << CHUNK_BITS, CHUNKS = 1 << 16 }; /* fds below 64 Mi */
#define TIMER_KEY UINT64_MAX
#define DEADLINE_KEY (UINT64_MAX - 1)

struct fd_waiters {
    _Atomic int lock;
    unsigned    seq[2];
    struct cfa_queue waiting[2];   /* of io_future, by direction, oldest first */
};

_Atomic unsigned long fallback_waits;

static _Atomic(struct fd_waiters *) chunks[CHUNKS];
static _Atomic int chunks_used;   /* chunks[0 .. chunks_used) may be allocated */
/* A timerfd of the poller and the deadline it is set for (TIMER_NONE:
 * not set), under its lock: `wakeup` for the timer heap, `deadlines` for
 * timed requests. */
struct poller_timer {
    int             fd;
    pthread_mutex_t lock;
    int64_t         armed;
};
static struct poller_timer wakeup = { -1, PTHREAD_MUTEX_INITIALIZER, TIMER_NONE };
static struct poller_timer deadlines = { -1, PTHREAD_MUTEX_INITIALIZER, TIMER_NONE };
static int epfd = -1;
static pthread_once_t started = PTHREAD_ONCE_INIT;

static struct fd_waiters *entry(int fd)
{
    if (fd < 0 || fd >= CHUNK * CHUNKS)
        return NULL;
    _Atomic(struct fd_waiters *) *slot = &chunks[fd >> CHUNK_BITS];
    struct fd_waiters *chunk = atomic_load_explicit(slot, memory_order_acquire);
    if (!chunk) {
        struct fd_waiters *fresh = calloc(CHUNK, sizeof *fresh);
        if (!fresh)
            cfa_fatal("out of memory in the I/O fallback");
        if (atomic_compare_exchange_strong_explicit(slot, &chunk, fresh, memory_order_acq_rel,
                                                    memory_order_acquire))
            chunk = fresh;
        else
            free(fresh);
        int used = atomic_load_explicit(&chunks_used, memory_order_relaxed);
        while (used <= (fd >> CHUNK_BITS) &&
               !atomic_compare_exchange_weak_explicit(&chunks_used, &used, (fd >> CHUNK_BITS) + 1,
                                                      memory_order_release, memory_order_relaxed))
            ;
    }
    return &chunk[fd & (CHUNK - 1)];
}

/* poll(2)'s event bits by the wait list they wait on. */
enum {
    POLL_READ_BITS = POLLIN | POLLPRI | POLLRDNORM | POLLRDBAND | POLLRDHUP,
    POLL_WRITE_BITS = POLLOUT | POLLWRNORM | POLLWRBAND,
};

static int direction(const struct cfa_io_request *r)
{
    if (r->opcode == IO_POLL)
        return r->flags & POLL_WRITE_BITS ? DIR_OUT : DIR_IN; /* none: errors and hang-ups wake both */
    return r->opcode == IO_READ || r->opcode == IO_READV || r->opcode == IO_RECV || r->opcode == IO_RECVMSG ||
                   r->opcode == IO_ACCEPT
               ? DIR_IN
               : DIR_OUT;
}

/* Sets t to fire by `deadline`, if that is earlier than it is set for. */
static void poller_timer_arm(struct poller_timer *t, int64_t deadline)
{
    pthread_mutex_lock(&t->lock);
    if (deadline < t->armed) {
        struct itimerspec its = { .it_value = { .tv_sec = deadline / 1000000000, .tv_nsec = deadline % 1000000000 } };
        if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
            its.it_value.tv_nsec = 1; /* zero would disarm */
        if (timerfd_settime(t->fd, TFD_TIMER_ABSTIME, &its, NULL) != 0)
            cfa_fatal("cannot arm the I/O fallback's timer: %s", strerror(errno));
        t->armed = deadline;
    }
    pthread_mutex_unlock(&t->lock);
}

/* t fired: consumes its expiration count; it is set for nothing now. */
static void poller_timer_fired(struct poller_timer *t)
{
    uint64_t expirations;
    while (read(t->fd, &expirations, sizeof expirations) < 0 && errno == EINTR)
        ;
    pthread_mutex_lock(&t->lock);
    t->armed = TIMER_NONE;
    pthread_mutex_unlock(&t->lock);
}

static bool is_socket_call(uint8_t opcode)
{
    return opcode == IO_SEND || opcode == IO_RECV || opcode == IO_SENDMSG || opcode == IO_RECVMSG;
}

/* Tries f's request until it completes, needs the pool, or waits on its
 * descriptor's list (then the poller owns it). Runs on the caller of
 * fallback_start or on the poller. */
static void attempt(io_future *f, bool registered)
{
    struct cfa_io_request *r = &f->req;
    struct fd_waiters *e = entry(r->fd);
    if (!e) {
        pool_submit(f); /* beyond the table: the syscall decides (EBADF, ...) */
        return;
    }
    int dir = direction(r);
    int64_t deadline = r->deadline; /* once f is listed, it may complete and go */
    for (;;) {
        spin_lock(&e->lock);
        unsigned seq = e->seq[dir];
        spin_unlock(&e->lock);
        int64_t res = io_syscall_nowait(r);
        if (res == -EOPNOTSUPP && !is_socket_call(r->opcode)) {
            pool_submit(f); /* this file cannot try without blocking */
            return;
        }
        if (res != -EAGAIN || (is_socket_call(r->opcode) && (r->flags & MSG_DONTWAIT))) {
            io_complete(f, res);
            return;
        }
        if (!registered) {
            struct epoll_event ev = { .events = EPOLLIN | EPOLLPRI | EPOLLOUT | EPOLLRDHUP | EPOLLET,
                                      .data.u64 = (uint64_t)r->fd };
            if (epoll_ctl(epfd, EPOLL_CTL_ADD, r->fd, &ev) != 0 && errno != EEXIST) {
                if (errno == EPERM)
                    pool_submit(f); /* not pollable after all */
                else
                    io_complete(f, -errno);
                return;
            }
            registered = true;
            continue; /* try once more: ready before the registration? */
        }
        if (io_deadline_passed(r)) {
            io_complete(f, -ETIMEDOUT);
            return;
        }
        spin_lock(&e->lock);
        if (e->seq[dir] != seq) {
            spin_unlock(&e->lock);
            continue; /* an event came since the snapshot */
        }
        cfa_queue_push_back(&e->waiting[dir], &f->link);
        spin_unlock(&e->lock);
        io_stat_add(&fallback_waits, 1);
        if (deadline)
            poller_timer_arm(&deadlines, deadline);
        return;
    }
}

static void on_timer(void)
{
    poller_timer_fired(&wakeup);
    timer_service(cfa_clock_ns());
    int64_t next = timer_earliest();
    if (next != TIMER_NONE)
        fallback_arm(next);
}

/* Moves the expired requests of list `dir` of e onto *expired; returns the
 * earliest deadline left there. Under e's lock. */
static int64_t take_expired(struct fd_waiters *e, int dir, int64_t now, struct cfa_queue *expired)
{
    int64_t next = TIMER_NONE;
    struct cfa_qlink *l = cfa_queue_take_all(&e->waiting[dir]);
    while (l) {
        io_future *f = io_future_of(l);
        struct cfa_qlink *after = cfa_qlink_take_next(l);
        if (f->req.deadline && f->req.deadline <= now) {
            cfa_queue_push_back(expired, l);
        } else {
            if (f->req.deadline && f->req.deadline < next)
                next = f->req.deadline;
            cfa_queue_push_back(&e->waiting[dir], l);
        }
        l = after;
    }
    return next;
}

/* The deadline timer fired: every listed request past its deadline ends
 * with ETIMEDOUT; the timer is armed again for the earliest one left. */
static void on_deadline(void)
{
    poller_timer_fired(&deadlines);
    int64_t now = cfa_clock_ns(), next = TIMER_NONE;
    struct cfa_queue expired = { 0 };
    int used = atomic_load_explicit(&chunks_used, memory_order_acquire);
    for (int c = 0; c < used; c++) {
        struct fd_waiters *chunk = atomic_load_explicit(&chunks[c], memory_order_acquire);
        for (int i = 0; chunk && i < CHUNK; i++) {
            struct fd_waiters *e = &chunk[i];
            spin_lock(&e->lock);
            for (int dir = DIR_IN; dir <= DIR_OUT; dir++) {
                int64_t d = take_expired(e, dir, now, &expired);
                if (d < next)
                    next = d;
            }
            spin_unlock(&e->lock);
        }
    }
    for (struct cfa_qlink *l; (l = cfa_queue_pop_front(&expired));)
        io_complete(io_future_of(l), -ETIMEDOUT);
    if (next != TIMER_NONE)
        poller_timer_arm(&deadlines, next);
}

static void on_ready(int fd, uint32_t events)
{
    struct fd_waiters *e = entry(fd);
    bool in = events & (EPOLLIN | EPOLLPRI | EPOLLRDHUP | EPOLLHUP | EPOLLERR);
    bool out = events & (EPOLLOUT | EPOLLHUP | EPOLLERR);
    struct cfa_queue woken = { 0 };
    spin_lock(&e->lock);
    for (int dir = DIR_IN; dir <= DIR_OUT; dir++) {
        if (!(dir == DIR_IN ? in : out))
            continue;
        e->seq[dir]++;
        cfa_queue_splice_back(&woken, &e->waiting[dir]);
    }
    spin_unlock(&e->lock);
    for (struct cfa_qlink *l; (l = cfa_queue_pop_front(&woken));)
        attempt(io_future_of(l), true);
}

static void *poller(void *arg)
{
    (void)arg;
    struct epoll_event events[64];
    for (;;) {
        int n = epoll_wait(epfd, events, 64, -1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            cfa_fatal("the I/O fallback's epoll_wait failed: %s", strerror(errno));
        }
        for (int i = 0; i < n; i++) {
            if (events[i].data.u64 == TIMER_KEY)
                on_timer();
            else if (events[i].data.u64 == DEADLINE_KEY)
                on_deadline();
            else
                on_ready((int)events[i].data.u64, events[i].events);
        }
    }
    return NULL;
}

static void start(void)
{
    epfd = epoll_create1(EPOLL_CLOEXEC);
    wakeup.fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    deadlines.fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    if (epfd < 0 || wakeup.fd < 0 || deadlines.fd < 0)
        cfa_fatal("cannot set the I/O fallback up: %s", strerror(errno));
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = TIMER_KEY };
    struct epoll_event dev = { .events = EPOLLIN, .data.u64 = DEADLINE_KEY };
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, wakeup.fd, &ev) != 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, deadlines.fd, &dev) != 0)
        cfa_fatal("cannot set the I/O fallback up: %s", strerror(errno));
    pthread_t kt;
    runtime_kthread_enter(); /* the poller never leaves; counted before it exists */
    int err = kthread_create_helper(&kt, NULL, poller, NULL);
    if (err)
        cfa_fatal("cannot start the I/O fallback's poller: %s", strerror(err));
    pthread_detach(kt);
}

void fallback_fork_child(void)
{
    /* Only the chunks in use: the table's untouched pages stay unwritten. */
    int used = atomic_load(&chunks_used);
    for (int i = 0; i < used; i++)
        atomic_store(&chunks[i], NULL); /* waiters of the parent's threads: leaked */
    atomic_store(&chunks_used, 0);
    struct poller_timer *timers[] = { &wakeup, &deadlines };
    for (int i = 0; i < 2; i++) {
        if (timers[i]->fd >= 0)
            close(timers[i]->fd);
        *timers[i] = (struct poller_timer){ -1, PTHREAD_MUTEX_INITIALIZER, TIMER_NONE };
    }
    if (epfd >= 0)
        close(epfd);
    epfd = -1;
    started = (pthread_once_t)PTHREAD_ONCE_INIT;
}

void fallback_start(io_future *f)
{
    pthread_once(&started, start);
    struct cfa_io_request *r = &f->req;
    switch (r->opcode) {
    case IO_CLOSE:
        io_complete(f, io_syscall(r));
        return;
    case IO_READ:
    case IO_WRITE:
    case IO_READV:
    case IO_WRITEV: {
        /* Regular files never "would block": epoll refuses them and
         * RWF_NOWAIT may cut a read short. They go to the pool. */
        struct stat st;
        if (fstat(r->fd, &st) != 0) {
            io_complete(f, -errno);
            return;
        }
        if (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode) || S_ISDIR(st.st_mode)) {
            pool_submit(f);
            return;
        }
        attempt(f, false);
        return;
    }
    case IO_SENDFILE:
        if (sendfile_input_is_file(r->fd2))
            attempt(f, false);
        else
            pool_submit(f);
        return;
    case IO_SEND:
    case IO_RECV:
    case IO_SENDMSG:
    case IO_RECVMSG:
        attempt(f, false);
        return;
    case IO_POLL:
        /* A wait list is one direction: a wait for both is the pool's. */
        if ((r->flags & POLL_READ_BITS) && (r->flags & POLL_WRITE_BITS))
            pool_submit(f);
        else
            attempt(f, false);
        return;
    case IO_ACCEPT: {
        /* Only an O_NONBLOCK socket can be tried without blocking; on
         * another, the pool waits for a connection before it accepts. */
        int fl = fcntl(r->fd, F_GETFL);
        if (fl >= 0 && (fl & O_NONBLOCK))
            attempt(f, false);
        else
            pool_submit(f);
        return;
    }
    default:
        pool_submit(f);
        return;
    }
}

void fallback_arm(int64_t deadline)
{
    pthread_once(&started, start);
    poller_timer_arm(&wakeup, deadline);
}
