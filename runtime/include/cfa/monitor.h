/* cfa/monitor.h: monitors, mutex calls, conditions (internal scheduling)
 * and waitfor (external scheduling), with the semantics of the first thesis
 * and of Cforall.
 *
 * A cfa_monitor is embedded in each object of a `monitor` type and in every
 * thread (a thread is a monitor). All-zero is a free, ready monitor, and an
 * all-zero cfa_condition is an empty condition: no set-up call.
 *
 * A mutex call acquires a *group*: the monitors of its mutex arguments,
 * sorted by address (one global order, so multi-monitor calls cannot
 * deadlock each other), duplicates removed. Acquisition is re-entrant.
 * A monitor freed by its owner goes first to an *urgent* request (a
 * signalled waiter, a signaller in signal_block, an acceptor whose
 * accepted call has finished; the innermost acceptor first), then to the
 * oldest *entry* request: a thread merely entering never overtakes a woken
 * one (no barging).
 */
#ifndef CFA_MONITOR_H
#define CFA_MONITOR_H

#include <cfa/internal/queue.h>
#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cfa_thread;
struct cfa_monitor_link;
struct cfa_monitor_request;
struct cfa_accept;

/* `owner` is the owning thread's address, or 0 when the monitor is free,
 * with CFA_MONITOR_QUEUED set while a request may wait in its queues.
 * A mutex call takes a free monitor with one compare-and-swap and lets go
 * of an unqueued one with one atomic subtract, and no lock: any other
 * change of `owner`, and every change of the queues and `acceptor`,
 * happens under `lock` (cfa/mutex_call.h, monitor.c). */
#define CFA_MONITOR_QUEUED ((uintptr_t)1)

struct cfa_monitor {
    _Atomic uintptr_t        owner;      /* thread | CFA_MONITOR_QUEUED; 0 = free */
    unsigned                 nested;     /* owner's calls beyond the first; 0 when free */
    _Atomic int              lock;       /* guards the fields below */
    struct cfa_queue         entry;      /* of struct cfa_monitor_link, oldest first */
    struct cfa_queue         urgent;     /* of struct cfa_monitor_link, next to run first */
    struct cfa_accept       *acceptor;   /* owner blocked in waitfor on this monitor */
};

struct cfa_condition {
    struct cfa_queue waiters;  /* of struct cfa_monitor_request, oldest first */
};

/* One mutex call's state, on the caller's stack between enter and leave. */
struct cfa_mutex_group {
    struct cfa_monitor    **monitors;   /* sorted, unique */
    unsigned                count;
    const void             *func;       /* the mutex function (waitfor's key) */
    struct cfa_mutex_group *outer;      /* the thread's enclosing mutex call */
    struct cfa_thread      *thread;     /* the caller */
};

/* The prologue and epilogue of a mutex call, cfa_mutex_enter and
 * cfa_mutex_leave, are inline: cfa/mutex_call.h. */

/* Internal scheduling. wait releases every monitor of the current mutex
 * call and blocks until signalled, then reacquires them before any
 * entering thread. signal moves the first waiter to run when the signaller
 * leaves; signal_block runs it at once and blocks the signaller until the
 * waiter leaves or waits. Both return whether a thread was waiting. */
void      cfa_wait(struct cfa_condition *c, uintptr_t info);
bool      cfa_signal(struct cfa_condition *c);
bool      cfa_signal_block(struct cfa_condition *c);
bool      cfa_condition_empty(const struct cfa_condition *c);
uintptr_t cfa_condition_front(const struct cfa_condition *c);

/* External scheduling: one waitfor statement. Each enabled clause names a
 * mutex function and the monitors it accepts calls on, all held by the
 * caller. A clause with one monitor accepts a call of `func` that has it
 * among its mutex arguments; a clause with several accepts a call of
 * `func` whose mutex arguments are exactly those monitors (as a set: order
 * and repetition do not matter). cfa_waitfor sorts each `monitors` array
 * in place. */
struct cfa_waitfor_clause {
    const void          *func;
    struct cfa_monitor **monitors;
    unsigned             count;   /* at least 1 */
};

enum {
    CFA_WAITFOR_TIMEOUT = -1, /* the timeout elapsed first */
    CFA_WAITFOR_ELSE = -2,    /* non-blocking and nothing was waiting */
    CFA_WAITFOR_NONE = -3,    /* no clause, timeout or else enabled: nothing done */
};

/* Accepts one call matching a clause, lets it run to completion inside the
 * monitors, and returns the index of its clause. Among calls already
 * waiting, the first clause (lowest index) that has one wins, and within
 * it the oldest call; with none waiting, the first call to arrive.
 * timeout_ns < 0 waits forever; `nonblocking` returns CFA_WAITFOR_ELSE at
 * once if no call is waiting (it wins over a timeout). With no clause
 * (n == 0) it returns CFA_WAITFOR_ELSE when nonblocking, CFA_WAITFOR_TIMEOUT
 * after the timeout, and CFA_WAITFOR_NONE at once otherwise. */
int cfa_waitfor(const struct cfa_waitfor_clause *clauses, unsigned n, int64_t timeout_ns,
                bool nonblocking);

/* How many calls wait to enter m: a hook for tests that must know a call
 * has queued (say, before a waitfor that is to find it waiting). */
unsigned cfa_monitor_entry_count(struct cfa_monitor *m);

/* The function identity of a thread's join, for `waitfor(join, this)`. */
extern const char cfa_join_function[];

#ifdef __cplusplus
}
#endif
#endif
