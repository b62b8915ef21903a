/* timer.h: the seam between the timer heap (timer.c) and the processors
 * that service it (io_processor.c, io_fallback.c).
 *
 * Every timed wait of the program (sleep, timed park) sits in one heap
 * ordered by deadline. Nothing runs on its own to expire them: processors
 * check the earliest deadline when they poll for I/O (every few
 * scheduling decisions and whenever they run out of work) and, before
 * sleeping, arm a wake-up for it (an io_uring timeout on their ring, or
 * the fallback poller's timerfd). So an expired timer is serviced by a
 * processor that is running or by one that its armed wake-up woke.
 */
#ifndef CFA_TIMER_H
#define CFA_TIMER_H

#include <stdatomic.h>
#include <stdint.h>

#define TIMER_NONE INT64_MAX

/* The earliest deadline in the heap, TIMER_NONE when it is empty. One
 * relaxed load: the processors' polls read it on every pass. */
extern _Atomic int64_t timer_earliest_deadline;
static inline int64_t timer_earliest(void)
{
    return atomic_load_explicit(&timer_earliest_deadline, memory_order_relaxed);
}

/* Ends every wait whose deadline is <= now. Returns how many it ended.
 * Callable from any kernel thread (processor or fallback poller). */
unsigned timer_service(int64_t now);

/* In a child made by fork(): the heap is empty (its records were the
 * waits of the parent's threads), its lock free. */
void timer_fork_child(void);

#endif
