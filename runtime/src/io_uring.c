/* io_uring.c: one processor's ring (private instances, thesis 5.2.2).
 *
 * Submission is the partitioned ring of thesis Figure 5.2: a user thread
 * takes an SQE from its processor's ring and fills it (liburing's sqe_tail
 * advances: allocated, not yet submitted); the processor later flushes
 * every filled SQE with one io_uring_enter (the kernel's tail advances).
 * Flushes happen when the processor runs out of work (io_idle), every few
 * scheduling decisions (io_tick), and on the slow paths below.
 *
 * Timed requests (cfa_X_until) carry their deadline. Each is submitted
 * alone and waits in the ring's deadline heap (io_deadlines.c) while in
 * flight; the processor's polls cancel (IORING_OP_ASYNC_CANCEL) those
 * whose deadline has passed, and the cancelled request's -ECANCELED is
 * reported as ETIMEDOUT. A request that completes first just leaves the
 * heap: no kernel timer, no second SQE or CQE. Before it sleeps, the
 * processor arms its wake-up for the earliest deadline of the heap too.
 *
 * Completion: the processor reaps CQEs in batches; user_data is the
 * request's future, or a tagged internal operation (wake-up timeouts and
 * their removals, the cancellation at fini). A future may need more than
 * one SQE (sendfile's wait for room, then another try): its completion
 * sets the next step up and it goes back on the backlog.
 *
 * Idle sleep (io_ring_sleep): the processor waits inside io_uring_enter
 * for any completion, with a read of its eventfd in flight, so that a
 * notifier's write is one more completion. It never sleeps on the eventfd
 * with the ring registered to write it: under DEFER_TASKRUN the kernel
 * writes that eventfd only when its deferred-work list goes from empty to
 * non-empty, and not at all when the completion is caused by a write to
 * another eventfd (the signal is deferred and has been seen lost: a
 * thread's read of an eventfd then never completed), whereas a task
 * waiting in io_uring_enter is woken by the work itself.
 *
 * Ring full (no free SQE) or the kernel refusing more (EBUSY/EAGAIN):
 * the request goes on the backlog, in order, and the ring is flushed and
 * reaped at once; whatever still does not fit is submitted by the
 * processor's next poll. Requests are never dropped and nothing spins.
 */
#include "context.h"
#include "invariant.h"
#include "processor.h"
#include "io_internal.h"
#include "timer.h"

#include <cfa/runtime.h>
#include <cfa/sleep.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* user_data of internal operations: bit 63 set (futures are user-space
 * pointers); wake-up timeouts also set bit 62 and carry their deadline;
 * the idle sleep's eventfd read is UD_WAKE. */
#define UD_INTERNAL (UINT64_C(1) << 63)
#define UD_ARM      (UINT64_C(1) << 62)
#define UD_DEADLINE (UD_ARM - 1)
#define UD_IGNORE   UD_INTERNAL
#define UD_WAKE     (UD_INTERNAL | 1)

/* The io_uring features cfa-lite needs: no dropped CQE (5.5), reads at
 * the file position with offset -1 (5.6), and these operations. */
static const unsigned char needed_ops[] = {
    IORING_OP_READ, IORING_OP_WRITE, IORING_OP_READV, IORING_OP_WRITEV, IORING_OP_OPENAT,
    IORING_OP_CLOSE, IORING_OP_FSYNC, IORING_OP_ACCEPT, IORING_OP_CONNECT, IORING_OP_SEND,
    IORING_OP_RECV, IORING_OP_SENDMSG, IORING_OP_RECVMSG, IORING_OP_SPLICE, IORING_OP_POLL_ADD, IORING_OP_TIMEOUT,
    IORING_OP_TIMEOUT_REMOVE, IORING_OP_ASYNC_CANCEL,
};

/* Set-up flags, best first; EINVAL moves on to the next (older kernel).
 * DEFER_TASKRUN: completion work runs only when the processor enters the
 * ring (in its polls), never interrupting a running thread; it needs
 * SINGLE_ISSUER, which holds since only the owning kernel thread submits.
 * TASKRUN_FLAG: the kernel says when entering is needed to reap. */
static const unsigned setup_flags[] = {
    IORING_SETUP_SUBMIT_ALL | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
        IORING_SETUP_TASKRUN_FLAG,
    IORING_SETUP_SUBMIT_ALL | IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG,
    0,
};

/* ThreadSanitizer does not see liburing map and unmap the rings (raw
 * system calls, not the libc calls it intercepts), so a new ring at the
 * address of an unmapped one inherits the old ring's access history, and
 * the new processor's first look at its completion queue is reported as a
 * race with the old processor's last. Each ring's end releases, and each
 * ring's start acquires, one object: the order from every old ring to every
 * later one that munmap then mmap give. Accesses to one live ring by two
 * kernel threads are still reported. */
#ifdef CFA_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
static char ring_reuse_order;
static void ring_mapped(void) { __tsan_acquire(&ring_reuse_order); }
static void ring_unmapping(void) { __tsan_release(&ring_reuse_order); }
#else
static void ring_mapped(void) {}
static void ring_unmapping(void) {}
#endif

bool io_ring_init(struct io_context *io, unsigned entries, char *why, size_t why_size)
{
    int err = -EINVAL;
    for (size_t i = 0; i < sizeof setup_flags / sizeof *setup_flags && err == -EINVAL; i++) {
        struct io_uring_params params;
        memset(&params, 0, sizeof params);
        /* CQEs outnumber SQEs: many requests wait in the kernel at once. */
        params.flags = setup_flags[i] | IORING_SETUP_CQSIZE;
        params.cq_entries = entries * 4;
        err = io_uring_queue_init_params(entries, &io->ring, &params);
    }
    if (err < 0) {
        snprintf(why, why_size, "io_uring_queue_init: %s", strerror(-err));
        return false;
    }
    ring_mapped();
    const char *missing = NULL;
    if (!(io->ring.features & IORING_FEAT_NODROP))
        missing = "IORING_FEAT_NODROP";
    else if (!(io->ring.features & IORING_FEAT_RW_CUR_POS))
        missing = "IORING_FEAT_RW_CUR_POS";
    struct io_uring_probe *probe = missing ? NULL : io_uring_get_probe_ring(&io->ring);
    if (!missing && !probe)
        missing = "IORING_REGISTER_PROBE";
    for (size_t i = 0; probe && !missing && i < sizeof needed_ops; i++)
        if (!io_uring_opcode_supported(probe, needed_ops[i]))
            missing = "an operation (kernel too old)";
    if (probe)
        io_uring_free_probe(probe);
    if (missing) {
        snprintf(why, why_size, "io_uring lacks %s", missing);
        ring_unmapping();
        io_uring_queue_exit(&io->ring);
        return false;
    }
    io->inflight = 0;
    io->armed = TIMER_NONE;
    io->wake_armed = false;
    return true;
}

/* ---- filling SQEs --------------------------------------------------------------- */

static unsigned clamp_len(uint64_t len)
{
    return len > IO_MAX_RW ? IO_MAX_RW : (unsigned)len;
}

static void prep(struct io_uring_sqe *sqe, io_future *f)
{
    const struct cfa_io_request *r = &f->req;
    switch (r->opcode) {
    case IO_READ:
    case IO_PREAD:    io_uring_prep_read(sqe, r->fd, r->addr, clamp_len(r->len), (uint64_t)r->off); break;
    case IO_WRITE:
    case IO_PWRITE:   io_uring_prep_write(sqe, r->fd, r->addr, clamp_len(r->len), (uint64_t)r->off); break;
    case IO_READV:    io_uring_prep_readv(sqe, r->fd, r->addr, (unsigned)r->len, (uint64_t)r->off); break;
    case IO_WRITEV:   io_uring_prep_writev(sqe, r->fd, r->addr, (unsigned)r->len, (uint64_t)r->off); break;
    case IO_OPENAT:   io_uring_prep_openat(sqe, r->fd, r->addr, (int)r->flags, r->mode); break;
    case IO_CLOSE:    io_uring_prep_close(sqe, r->fd); break;
    case IO_FSYNC:    io_uring_prep_fsync(sqe, r->fd, 0); break;
    case IO_ACCEPT:   io_uring_prep_accept(sqe, r->fd, r->addr, r->addr2, (int)r->flags); break;
    case IO_CONNECT:  io_uring_prep_connect(sqe, r->fd, r->addr, (socklen_t)r->len); break;
    case IO_SEND:     io_uring_prep_send(sqe, r->fd, r->addr, clamp_len(r->len), (int)r->flags); break;
    case IO_RECV:     io_uring_prep_recv(sqe, r->fd, r->addr, clamp_len(r->len), (int)r->flags); break;
    case IO_SENDMSG:  io_uring_prep_sendmsg(sqe, r->fd, r->addr, r->flags); break;
    case IO_RECVMSG:  io_uring_prep_recvmsg(sqe, r->fd, r->addr, r->flags); break;
    case IO_SPLICE:
        io_uring_prep_splice(sqe, r->fd2, r->off2, r->fd, r->off, clamp_len(r->len), r->flags);
        break;
    case IO_SENDFILE: sendfile_prep(sqe, r); break;
    case IO_POLL:     io_uring_prep_poll_add(sqe, r->fd, r->flags); break;
    default:          cfa_fatal("io: unknown request opcode %d", r->opcode);
    }
    io_uring_sqe_set_data(sqe, f);
}

/* Fills f's SQE (the ring has one free) and, for a timed request, puts it
 * in the deadline heap (which has room: deadlines_reserve). */
static void prep_request(struct io_context *io, io_future *f)
{
    prep(io_uring_get_sqe(&io->ring), f);
    if (f->req.deadline)
        deadlines_insert(&io->deadlines, f);
    io->inflight++;
    io_stat_add(&io->stats.count[IO_SUBMITTED], 1);
}

static void backlog_push(struct io_context *io, io_future *f)
{
    cfa_queue_push_back(&io->backlog, &f->link);
}

/* Moves backlogged requests into free SQEs, oldest first. The
 * processor's scheduler runs this, so it may allocate heap room. */
static void backlog_drain(struct io_context *io)
{
    while (!cfa_queue_empty(&io->backlog) && io_uring_sq_space_left(&io->ring) > 0) {
        io_future *f = io_future_of(cfa_queue_pop_front(&io->backlog));
        if (f->req.deadline)
            deadlines_reserve(&io->deadlines);
        prep_request(io, f);
    }
}

/* ---- the system call and reaping ------------------------------------------------ */

/* Submits the filled SQEs and runs the kernel's pending completion work.
 * EBUSY/EAGAIN (the kernel holds too many requests or completions) leave
 * the SQEs in the ring: the caller reaps, which makes room, and a later
 * call submits them. */
static int ring_enter_once(struct io_context *io, unsigned wait_nr)
{
    io_stat_add(&io->stats.count[IO_ENTERS], 1);
    int r = wait_nr ? io_uring_submit_and_wait(&io->ring, wait_nr) : io_uring_submit_and_get_events(&io->ring);
    if (r < 0 && r != -EINTR && r != -EBUSY && r != -EAGAIN)
        cfa_fatal("io_uring_enter failed: %s", strerror(-r));
    return r;
}

static void ring_enter(struct io_context *io, unsigned wait_nr)
{
    while (ring_enter_once(io, wait_nr) == -EINTR)
        ;
}

static void handle_internal(struct io_context *io, uint64_t ud, int res)
{
    if ((ud & UD_ARM) && (int64_t)(ud & UD_DEADLINE) == io->armed)
        io->armed = TIMER_NONE; /* our live wake-up fired or was cancelled */
    if (ud == UD_WAKE) {
        /* A notifier wrote the eventfd (the read took its count), or the
         * processor leaves (cancelled). Anything else would have the
         * processor re-arm a failing read at every sleep, and spin. */
        if (res < 0 && res != -ECANCELED)
            cfa_fatal("io_uring: a processor's read of its eventfd failed: %s", strerror(-res));
        io->wake_armed = false;
    }
}

static void handle(struct io_context *io, uint64_t ud, int res)
{
    if (ud & UD_INTERNAL) {
        handle_internal(io, ud, res);
        return;
    }
    io_future *f = (io_future *)(uintptr_t)ud;
    deadlines_remove(&io->deadlines, f);
    if (io->leaving && (res == -ECANCELED || res == -EINTR)) {
        /* Cancelled because this processor leaves, not by the program:
         * io_ring_fini starts the request again elsewhere. */
        backlog_push(io, f);
        return;
    }
    if (res == -ECANCELED && f->req.deadline)
        res = -ETIMEDOUT; /* expire() cancelled it at its deadline */
    int64_t final = res;
    switch (f->req.opcode) {
    case IO_SPLICE:
        /* splice(2) advances the offsets it was given; io_uring does not. */
        if (res > 0) {
            if (f->req.addr2)
                *(off_t *)f->req.addr2 += res;
            if (f->req.addr3)
                *(off_t *)f->req.addr3 += res;
        }
        break;
    case IO_SENDFILE:
        switch (sendfile_step(f, res, &final)) {
        case SENDFILE_DONE: break;
        case SENDFILE_POLL: backlog_push(io, f); return; /* wait for room again */
        }
        break;
    }
    io_complete(f, final);
}

/* Reaps every CQE available now. The batch is copied out and the CQ
 * advanced before handling, so a handler may submit (backlog) freely. */
static unsigned reap(struct io_context *io)
{
    unsigned total = 0;
    for (;;) {
        struct io_uring_cqe *cqes[64];
        unsigned n = io_uring_peek_batch_cqe(&io->ring, cqes, 64);
        if (n == 0)
            return total;
        uint64_t ud[64];
        int res[64];
        for (unsigned i = 0; i < n; i++) {
            ud[i] = cqes[i]->user_data;
            res[i] = cqes[i]->res;
            /* The future lies in its waiter's parked frame, cold: start
             * the loads of the whole batch before handling the first. */
            if (!(ud[i] & UD_INTERNAL))
                __builtin_prefetch((const void *)(uintptr_t)ud[i], 1);
        }
        io_uring_cq_advance(&io->ring, n);
        cfa_assert("io_uring: an io_context is touched only on its processor", io->proc == this_processor());
        cfa_assert("io_uring: every reaped completion was counted in flight", n <= io->inflight);
        cfa_assert("io_uring: in flight = submitted - completed",
                   io->inflight == atomic_load(&io->stats.count[IO_SUBMITTED]) -
                                       atomic_load(&io->stats.count[IO_COMPLETED]));
        io->inflight -= n;
        io_stat_add(&io->stats.count[IO_COMPLETED], n);
        for (unsigned i = 0; i < n; i++)
            handle(io, ud[i], res[i]);
        total += n;
    }
}

static struct io_uring_sqe *internal_sqe(struct io_context *io, uint64_t ud)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&io->ring);
    if (sqe) {
        io_uring_sqe_set_data64(sqe, ud);
        io->inflight++;
        io_stat_add(&io->stats.count[IO_SUBMITTED], 1);
    }
    return sqe;
}

/* Cancels the timed requests whose deadline has passed: each leaves the
 * heap and gets an ASYNC_CANCEL. Its own CQE follows as any other:
 * -ECANCELED (ETIMEDOUT to the caller), or its result if it completed
 * first (the cancel then finds nothing). Returns how many it cancelled;
 * with no free SQE it stops, and the next poll goes on. One clock read,
 * and none when no timed request is in flight. */
static unsigned expire(struct io_context *io)
{
    int64_t first = deadlines_earliest(&io->deadlines);
    if (first == TIMER_NONE)
        return 0;
    int64_t now = cfa_clock_ns();
    unsigned n = 0;
    for (; first <= now && io_uring_sq_space_left(&io->ring) > 0; first = deadlines_earliest(&io->deadlines)) {
        io_future *f = deadlines_pop(&io->deadlines);
        struct io_uring_sqe *sqe = internal_sqe(io, UD_IGNORE);
        io_uring_prep_cancel64(sqe, (uint64_t)(uintptr_t)f, 0);
        io_uring_sqe_set_data64(sqe, UD_IGNORE); /* prep_cancel64 set it to 0 */
        n++;
    }
    if (first <= now)
        io->countdown = 1;
    return n;
}

static bool must_enter(struct io_context *io)
{
    return io_uring_sq_ready(&io->ring) ||
           (IO_URING_READ_ONCE(*io->ring.sq.kflags) & (IORING_SQ_TASKRUN | IORING_SQ_CQ_OVERFLOW));
}

unsigned io_ring_poll(struct io_context *io)
{
    unsigned n = 0;
    for (;;) {
        if (!cfa_queue_empty(&io->backlog))
            backlog_drain(io);
        if (must_enter(io))
            ring_enter(io, 0);
        unsigned reaped = reap(io);
        n += reaped;
        if (expire(io))
            continue; /* submit the cancels, reap what they end */
        /* Again while requests wait for SQEs and the kernel takes them;
         * if it refuses (EBUSY) and nothing completed, the next poll. */
        if (cfa_queue_empty(&io->backlog) || (io_uring_sq_space_left(&io->ring) == 0 && reaped == 0))
            return n;
    }
}

/* Requests the kernel did not take (they are still in the SQ or on the
 * backlog after a poll): the processor must not sleep on them, since no
 * completion is bound to come for them. */
bool io_ring_stalled(struct io_context *io)
{
    return !cfa_queue_empty(&io->backlog) || io_uring_sq_ready(&io->ring);
}

/* ---- submission from a user thread ---------------------------------------------- */

/* No SQE free: the request waits on the backlog, and the processor polls
 * at its next scheduling decision. The thread does not flush the ring
 * itself: that would make system calls inside the no-migration window. */
static void ring_start_slow(struct io_context *io, io_future *f)
{
    io_stat_add(&io->stats.count[IO_BACKLOGGED], 1);
    backlog_push(io, f);
    io->countdown = 1;
}

/* Where io_uring and the system call part ways; runs before the
 * no-migration window (io_start). False: f was ended here (completed, or
 * handed to the fallback engine). */
bool io_ring_precheck(io_future *f)
{
    struct cfa_io_request *r = &f->req;
    switch (r->opcode) {
    case IO_PREAD:
    case IO_PWRITE:
        /* pread(2) fails on a pipe or socket (ESPIPE) and on a negative
         * offset (EINVAL); io_uring would read the stream, or at the file
         * position for -1. */
        if (r->off < 0) {
            io_complete(f, -EINVAL);
            return false;
        }
        if (lseek(r->fd, 0, SEEK_CUR) < 0 && errno == ESPIPE) {
            io_complete(f, -ESPIPE);
            return false;
        }
        return true;
    case IO_SENDFILE:
        return sendfile_begin(f);
    }
    return true;
}

void io_ring_start(struct io_context *io, io_future *f)
{
    /* Inside the no-migration window (see io_start): no system call, no
     * call through the PLT, until the SQE is filled. */
    if (__builtin_expect(!cfa_queue_empty(&io->backlog), 0) || io_uring_sq_space_left(&io->ring) == 0) {
        ring_start_slow(io, f);
        return;
    }
    prep_request(io, f);
}

/* ---- the wake-up timeout ----------------------------------------------------------- */

/* Before sleeping: make sure a CQE arrives on this ring (and so ends the
 * processor's sleep) by `deadline`. With no SQE free, the ring has
 * requests in flight whose completions wake the processor, which then
 * arms again. */
void io_ring_arm(struct io_context *io, int64_t deadline)
{
    if (deadline >= io->armed)
        return;
    if (io_uring_sq_space_left(&io->ring) < 2)
        return;
    if (io->armed != TIMER_NONE) {
        struct io_uring_sqe *rm = internal_sqe(io, UD_IGNORE);
        io_uring_prep_timeout_remove(rm, UD_INTERNAL | UD_ARM | (uint64_t)io->armed, 0);
        io_uring_sqe_set_data64(rm, UD_IGNORE); /* prep_timeout_remove reset it */
    }
    io->arm_ts.tv_sec = deadline / 1000000000;
    io->arm_ts.tv_nsec = deadline % 1000000000;
    struct io_uring_sqe *sqe = internal_sqe(io, 0);
    io_uring_prep_timeout(sqe, &io->arm_ts, 0, IORING_TIMEOUT_ABS);
    io_uring_sqe_set_data64(sqe, UD_INTERNAL | UD_ARM | (uint64_t)deadline);
    io->armed = deadline;
    io_stat_add(&io->stats.count[IO_ARMS], 1);
    ring_enter(io, 0); /* the kernel reads arm_ts now */
}

/* ---- idle sleep ------------------------------------------------------------------ */

/* The processor has committed to sleep (idle.c, I3): it waits in the
 * ring for one completion, with its eventfd read in flight so that a
 * notifier's write completes it. A completion already waiting, or one the
 * kernel posts at any later moment, ends the wait; the caller reaps. An
 * interrupted wait (a signal) returns too: the processor looks again. */
void io_ring_sleep(struct io_context *io, int wake_fd)
{
    if (!io->wake_armed) {
        struct io_uring_sqe *sqe = internal_sqe(io, UD_WAKE);
        if (!sqe)
            return; /* the SQ is full of requests the kernel refused: poll again */
        io_uring_prep_read(sqe, wake_fd, &io->wake_value, sizeof io->wake_value, (uint64_t)-1);
        io_uring_sqe_set_data64(sqe, UD_WAKE); /* prep_read may reset it */
        io->wake_armed = true;
    }
    ring_enter_once(io, 1);
}

/* ---- the processor leaves ------------------------------------------------------------ */

/* The ring is the parent's too (the child of fork() maps the same
 * pages): unmapping it and closing this process's descriptor leave the
 * parent's ring as it was; its requests belong to the parent's threads. */
void io_ring_forget(struct io_context *io)
{
    deadlines_fini(&io->deadlines);
    ring_unmapping();
    io_uring_queue_exit(&io->ring);
    io->uring = false;
}

/* Cancels whatever is in flight and reaps until nothing is. Requests the
 * cancellation caught (and ones never submitted) are started again on
 * the fallback engine, which serves them without this processor. */
void io_ring_fini(struct io_context *io)
{
    io->leaving = true;
    struct cfa_queue leftovers = { 0 };
    cfa_queue_splice_back(&leftovers, &io->backlog);
    if (io->inflight) {
        struct io_uring_sqe *sqe = io_uring_get_sqe(&io->ring);
        if (!sqe) {
            ring_enter(io, 0);
            sqe = io_uring_get_sqe(&io->ring);
        }
        if (sqe) {
            io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ANY);
            io_uring_sqe_set_data64(sqe, UD_IGNORE);
            io->inflight++;
            io_stat_add(&io->stats.count[IO_SUBMITTED], 1);
        }
    }
    while (io->inflight) {
        cfa_queue_splice_back(&leftovers, &io->backlog); /* cancelled requests collected by handle() */
        ring_enter(io, 1);
        reap(io);
    }
    cfa_queue_splice_back(&leftovers, &io->backlog);
    deadlines_fini(&io->deadlines);
    ring_unmapping();
    io_uring_queue_exit(&io->ring);
    io->uring = false;
    for (struct cfa_qlink *l; (l = cfa_queue_pop_front(&leftovers));)
        fallback_start(io_future_of(l));
}
