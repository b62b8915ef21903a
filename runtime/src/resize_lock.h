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
 * Asymmetric readers. A processor enters its section with a plain store of
 * its flag and a load of the global flag, no locked instruction (an
 * exchange costs 4.4 ns, and a park-unpark hop takes two sections), when
 * the kernel has membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)
 * (resize_lock_init): the writer pays for the missing fence instead.
 *   R1. reader: store mine = 1; load global; if clear, it is in;
 *   R2. else it stores mine = 0 and waits for global to clear, then R1;
 *   W1. writer: takes global (excluding other writers, stopping new
 *       readers at R1);
 *   W2. membarrier: every CPU running this process executes a full
 *       barrier, so a reader's R1 store that came before it is visible
 *       now, and a reader's R1 load after it sees global set;
 *   W3. waits for every reader flag to be clear (acquire), then the
 *       external flag as a lock.
 * So a reader that got in at R1 is waited for at W3, and one that came
 * later backs off at R2: the sections and the resize never overlap.
 * Without membarrier, or after cfa_test_resize_symmetric, readers take
 * their flag with an exchange and the writer takes every reader flag as
 * a lock.
 *
 * Invariants (checked in the debug build): a processor in its reader
 * section holds its reader flag, and leaves the section only after it
 * entered it; the writer holds the global flag, the external flag and
 * (symmetric readers) the flag of every running processor.
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

/* Set once at boot (and in a child of fork), before a second processor. */
extern bool resize_asymmetric;
void resize_lock_init(void);

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
/* A processor's flag, steps R1-R2 (or an exchange: see above). */
static inline void rw_read_lock_processor(_Atomic int *global, _Atomic int *mine)
{
    if (__builtin_expect(!resize_asymmetric, 0)) {
        rw_read_lock(global, mine);
        return;
    }
    for (;;) {
        atomic_store_explicit(mine, 1, memory_order_relaxed);
        atomic_signal_fence(memory_order_seq_cst); /* W2's barrier orders the two */
        if (!atomic_load_explicit(global, memory_order_acquire))
            return;
        atomic_store_explicit(mine, 0, memory_order_release);
        spin_wait_clear(global);
    }
}

static inline void ready_enter(struct cfa_processor_state *p)
{
    if (p->rq.read_depth++ == 0)
        rw_read_lock_processor(&p->cluster->state->ready.write_lock, &p->rq.read_lock);
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
    if (resize_asymmetric)
        return; /* a reader flag may be set for a moment, by a reader backing off (R2) */
    for (unsigned r = 0; r < nreaders; r++)
        cfa_assert("resize lock: the writer holds every reader flag",
                   atomic_load(&q->readers[r]->rq.read_lock) == 1);
}

#endif
