/* resize_lock.h: the resizing lock of thesis Figure 6.1, which guards a
 * cluster's ready-queue arrays (lanes, hints, readers) against a resize.
 *
 * Readers are the processors of one cluster (push and pop of ready
 * threads); each has its own flag (ready_local.read_lock), so readers
 * never share a cache line with each other. Pushes from outside the
 * cluster share one extra reader flag (ready_queue.external_lock). The
 * writer (adding or removing a processor) takes the global flag
 * (ready_queue.write_lock), then every reader flag: it then owns every
 * per-processor array of the cluster. Readers wait for the global flag
 * first so that a stream of readers cannot starve a writer.
 *
 * Everything spins (spinlock.h: a long wait yields the CPU): readers hold
 * their flag for a few hundred cycles, and writers are rare.
 *
 * Invariants (checked in the debug build): a processor in its reader
 * section holds its reader flag, and leaves the section only after it
 * entered it; the writer holds the global flag, the external flag and
 * the flag of every running processor.
 *
 * The reader sides are inline (every push and pop takes one); the
 * writer side is in resize_lock.c.
 */
#ifndef CFA_RESIZE_LOCK_H
#define CFA_RESIZE_LOCK_H

#include "cluster.h"
#include "invariant.h"
#include "processor.h"
#include "ready_queue.h"
#include "spinlock.h"

static inline void rw_read_lock(_Atomic int *global, _Atomic int *mine)
{
    for (;;) {
        spin_wait_clear(global);
        if (atomic_exchange_explicit(mine, 1, memory_order_seq_cst) == 0)
            break;
        spin_wait_clear(mine);
    }
}

static inline void rw_read_unlock(_Atomic int *mine)
{
    atomic_store_explicit(mine, 0, memory_order_release);
}

/* A processor's reader section, re-entrant: the scheduling loop holds it
 * across a post action and the next pop, so a yield takes the reader
 * flag once, not twice. Never held while blocking. Sections nest
 * (read_depth); the reader flag is taken while the depth is above 0, and
 * only then (checked in the debug build). */
static inline void ready_enter(struct cfa_processor_state *p)
{
    if (p->rq.read_depth++ == 0)
        rw_read_lock(&p->cluster->state->ready.write_lock, &p->rq.read_lock);
    cfa_assert("resize lock: a reader in its section holds its reader flag",
               atomic_load_explicit(&p->rq.read_lock, memory_order_relaxed) == 1);
}

static inline void ready_leave(struct cfa_processor_state *p)
{
    cfa_assert("resize lock: a reader section is left only after it was entered", p->rq.read_depth > 0);
    if (--p->rq.read_depth == 0)
        rw_read_unlock(&p->rq.read_lock);
}

/* A reader section for code outside the cluster's processors that must
 * not overlap a resize (processor stop). */
static inline void ready_queue_enter_external(struct ready_queue *q)
{
    rw_read_lock(&q->write_lock, &q->external_lock);
}
static inline void ready_queue_leave_external(struct ready_queue *q) { rw_read_unlock(&q->external_lock); }

/* The writer side: the global flag, then the flag of each of q's
 * nreaders processors, then the external flag. */
void resize_write_lock(struct ready_queue *q);
/* Releases the external flag, the flags of `readers[0..nreaders)` (a
 * resize may have changed q->readers meanwhile) and the global flag. */
void resize_write_unlock(struct ready_queue *q, unsigned nreaders, struct cfa_processor_state **readers);
/* Debug build: the writer side is held, with the flags of the first
 * `nreaders` readers (the running processors). */
static inline void resize_check_writer(struct ready_queue *q, unsigned nreaders)
{
    cfa_assert("resize lock: the writer holds the global and external flags",
               atomic_load(&q->write_lock) == 1 && atomic_load(&q->external_lock) == 1);
    for (unsigned r = 0; r < nreaders; r++)
        cfa_assert("resize lock: the writer holds every reader flag",
                   atomic_load(&q->readers[r]->rq.read_lock) == 1);
}

#endif
