/* io_processor.h: a processor's I/O state and the hooks processor.c and
 * boot.c call (the only seams between the scheduler and the I/O code).
 *
 *   io_processor_init   the processor starts (its own kernel thread)
 *   io_processor_fini   the processor leaves its loop (same kernel thread)
 *   io_tick             every scheduling decision; polls every few
 *   io_idle             out of work, before registering as idle: flush,
 *                       reap, service timers, arm a wake-up; true means
 *                       threads may have been made ready (look again)
 *   io_completion_hint  while spinning before sleep: completions waiting?
 *   io_sleep            idle sleep's block (idle.c, step I3)
 *
 * Invariants:
 *  - an io_context belongs to one processor and is touched only on that
 *    processor's kernel thread (its scheduler or a user thread running on
 *    it), so nothing in it is locked;
 *  - with `uring`, every request whose SQE is in the ring or whose CQE is
 *    not yet reaped is counted in `inflight`; requests waiting for an SQE
 *    are on the backlog, in order; so a reap never finds more CQEs than
 *    `inflight`, and inflight = SQEs filled - CQEs reaped (the stats'
 *    IO_SUBMITTED - IO_COMPLETED): the debug build checks both at every
 *    reap, and that only the owning processor touches the context;
 *  - before the processor sleeps, its SQ is flushed (io_idle); with a
 *    ring it sleeps inside io_uring_enter, waiting for any completion,
 *    with a read of its eventfd (idle.h) in flight (`wake_armed`, at most
 *    one), so a notifier's write and a completion posted after the last
 *    reap both wake it; `armed` is the deadline of its live wake-up
 *    timeout, TIMER_NONE if none.
 */
#ifndef CFA_IO_PROCESSOR_H
#define CFA_IO_PROCESSOR_H

#include <liburing.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <cfa/io.h>

struct cfa_processor_state;

/* Counters for CFA_STATS (single writer: relaxed load+store, no RMW). */
enum io_stat {
    IO_SUBMITTED,  /* SQEs filled (requests and internal) */
    IO_COMPLETED,  /* CQEs reaped */
    IO_ENTERS,     /* io_uring_enter system calls */
    IO_BACKLOGGED, /* requests that found the ring full */
    IO_ARMS,       /* wake-up timeouts armed */
    IO_AT_ONCE,    /* synchronous sends that needed no SQE (io_calls.c) */
    IO_STAT_COUNT
};
struct io_stats {
    _Atomic unsigned long count[IO_STAT_COUNT];
};

static inline void io_stat_add(_Atomic unsigned long *c, unsigned long n)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n, memory_order_relaxed);
}

/* A ring's timed requests in flight, earliest deadline first
 * (io_deadlines.c). */
struct io_deadline {
    int64_t    deadline;
    io_future *f;
};
struct io_deadlines {
    struct io_deadline *at;
    size_t              len, cap;
};

struct io_context {
    unsigned                    countdown; /* scheduling decisions to the next poll */
    bool                        uring;     /* has a ring; else the fallback engine */
    bool                        leaving;   /* io_processor_fini is draining the ring */
    struct cfa_processor_state *proc;
    struct io_uring             ring;
    unsigned                    inflight;
    struct cfa_queue            backlog;   /* of io_future, oldest first */
    struct io_deadlines         deadlines; /* timed requests whose SQE is filled */
    int64_t                     armed;
    struct __kernel_timespec    arm_ts;    /* read by the kernel at submission */
    bool                        wake_armed; /* the eventfd read of io_sleep in flight */
    uint64_t                    wake_value; /* its buffer */
    struct io_stats             stats;
    struct io_context          *all_next, *all_prev; /* for CFA_STATS */
};

void io_processor_init(struct cfa_processor_state *p);
void io_processor_fini(struct cfa_processor_state *p);
/* In a child made by fork(): io_processor_fork_child forgets every
 * context, then io_processor_forget lets each processor's copy go (the
 * parent's ring is left as it was; nothing is submitted). */
void io_processor_fork_child(void);
void io_processor_forget(struct cfa_processor_state *p);
bool io_idle(struct cfa_processor_state *p);
/* Blocks p's kernel thread until its eventfd is written or, with a ring,
 * until the ring completes anything. */
void io_sleep(struct cfa_processor_state *p);
void io_poll_periodic(struct io_context *io);

enum { IO_POLL_INTERVAL = 32 }; /* decisions between two polls: docs/scheduler.md#tunables */

static inline void io_tick(struct io_context *io)
{
    if (__builtin_expect(--io->countdown == 0, 0))
        io_poll_periodic(io);
}

/* Completions waiting to be reaped. Pending completion work alone
 * (IORING_SQ_TASKRUN) is no reason to stay awake: the kernel runs it when
 * the processor waits in its ring (io_ring_sleep), and the flag can stay
 * set with no work behind it (set by a waker just after the processor ran
 * the work it added) until the next work arrives, which kept a processor
 * cycling through idle for as long as nothing else happened. */
static inline bool io_completion_hint(const struct io_context *io)
{
    return io->uring && io_uring_cq_ready(&io->ring);
}

#endif
