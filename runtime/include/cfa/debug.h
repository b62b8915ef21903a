/* cfa/debug.h: test hooks of the debug build (CMake option CFA_DEBUG).
 *
 * Each hook breaks one of the runtime's invariants on purpose, so that a
 * test can see the invariant check of the debug build fire
 * (docs/architecture.md, "Invariants checked in the debug build"). They
 * exist only in the debug build's libcfa.a: a program that calls one does
 * not link against a normal build. Never for use outside tests.
 */
#ifndef CFA_DEBUG_H
#define CFA_DEBUG_H
#include <cfa/monitor.h>
#include <cfa/thread.h>
#include <stdbool.h>
#ifdef __cplusplus
extern "C" {
#endif

/* Arms a one-shot fault inside the runtime, by name: "lane-holder" (the
 * next push finds its lane's lock held by another kernel thread),
 * "lane-stamp" (the next push leaves its lane's head_stamp different
 * from its head's ready stamp). False for an unknown name. */
bool cfa_debug_inject(const char *fault);

/* Makes t ready (pushes it on a lane) whatever its state. */
void cfa_debug_make_ready(struct cfa_thread *t);

/* Leaves the calling processor's reader section of the resizing lock
 * once more than it entered it. */
void cfa_debug_ready_leave(void);

/* Registers the calling processor on its cluster's idle stack, twice. */
void cfa_debug_idle_register_twice(void);

/* Commits the calling processor's idle benaphore to SLEEP, then registers
 * it as idle (only an awake or searching processor registers). */
void cfa_debug_idle_register_asleep(void);

/* Records `owner` as m's owner, behind the back of its lock. */
void cfa_debug_monitor_set_owner(struct cfa_monitor *m, struct cfa_thread *owner);

/* Loses the tail of m's entry queue (its head stays). */
void cfa_debug_monitor_cut_entry_queue(struct cfa_monitor *m);

/* Loses the tail of c's queue of waiters (its head stays). */
void cfa_debug_condition_cut(struct cfa_condition *c);

/* Makes the running coroutine's last resumer a halted coroutine. */
void cfa_debug_coroutine_break_chain(void);

/* Forgets the calling processor's io_uring requests in flight. */
void cfa_debug_io_forget_inflight(void);

/* Puts the timer heap's earliest record behind its children (with two
 * records or more in the heap) and republishes the earliest deadline. */
void cfa_debug_timer_disorder(void);

#ifdef __cplusplus
}
#endif
#endif
