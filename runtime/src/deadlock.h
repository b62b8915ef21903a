/* deadlock.h: the report when nothing can ever run again (deadlock.c),
 * and the two counts it relies on to tell a deadlock from a wait:
 * wake-ups still to come from something other than a running thread,
 * and the runtime's own kernel threads. */
#ifndef CFA_DEADLOCK_H
#define CFA_DEADLOCK_H

#include <stdatomic.h>
#include <stdbool.h>

/* Wake-ups that something other than a running thread will deliver later
 * (a timer, an I/O completion). While any is pending, all processors
 * sleeping is not a deadlock. Call begin before the waiting thread parks
 * and end after the unpark. */
extern _Atomic long runtime_pending_wakeups;
static inline void pending_wakeup_begin(void) { atomic_fetch_add(&runtime_pending_wakeups, 1); }
static inline void pending_wakeup_end(void) { atomic_fetch_sub(&runtime_pending_wakeups, 1); }

/* Every kernel thread the runtime creates is counted: enter just before
 * pthread_create, leave as the thread's last act (deadlock.c tells them
 * from the program's own threads). */
void runtime_kthread_enter(void);
void runtime_kthread_leave(void);

/* Called by a processor about to block in idle sleep. */
void deadlock_check(void *processor);
void deadlock_configure(void);

/* In a child made by fork(): no wake-up is pending, and the runtime's
 * only kernel thread is the forking one if it is a processor. */
void deadlock_fork_child(bool forking_processor);

#endif
