/* one_processor.c: the flag that lets a one-processor program take and
 * let go of monitors without locked instructions (cfa/mutex_call.h).
 *
 * Owns `cfa_one_processor` and its transitions; the windows (flag test
 * plus unlocked instruction) that cfa/mutex_call.h emits into the section
 * cfa_one_processor_windows are looked up by code_windows.c.
 *
 * Invariants:
 *  - the flag is 1 exactly while one processor is registered; it drops
 *    to 0 (a sequentially consistent store) before a second processor's
 *    kernel thread is created, and rises again only after the last but
 *    one has been joined;
 *  - no thread is ever preempted inside a window (preemption.c asks
 *    one_processor_window_at), so a thread that is not running is not
 *    between its test of the flag and its unlocked instruction;
 *  - hence when the flag drops on the sole processor itself (a user
 *    thread starting a processor), no unlocked instruction can follow.
 *    A kernel thread that is not a processor may start one too; the sole
 *    processor may then be inside a window at that moment, so the starter
 *    waits, after the store, until that processor has been seen between
 *    threads (running none, or having switched) or has answered a SIGURG
 *    outside any window: its thread left the window, and every later test
 *    reads 0.
 */
#include "one_processor.h"
#include "preemption.h"
#include "processor.h"
#include "spinlock.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

_Atomic unsigned char cfa_one_processor;

void one_processor_count_changed(unsigned processors)
{
    atomic_store(&cfa_one_processor, processors == 1);
}

void one_processor_quiesce(struct cfa_processor_state *sole)
{
    if (this_processor())
        return; /* we run on it: it is not inside a window */
    /* Its thread may be anywhere, even blocked in a system call on our
     * account (joining us), so it is interrupted rather than awaited: the
     * SIGURG handler acknowledges where the thread is not in a window. */
    unsigned long seen = atomic_load(&sole->switches);
    atomic_store(&sole->quiesce_wanted, true);
    while (atomic_load(&sole->quiesce_wanted)) {
        if (!__atomic_load_n(&sole->current, __ATOMIC_ACQUIRE) || atomic_load(&sole->switches) != seen)
            break; /* seen between threads */
        if (!preemption_poke(sole))
            break; /* its kernel thread runs no threads */
        struct timespec pause = { 0, 20000 };
        nanosleep(&pause, NULL);
    }
    atomic_store(&sole->quiesce_wanted, false);
}
