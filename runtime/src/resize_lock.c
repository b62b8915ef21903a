/* resize_lock.c: the writer side of the resizing lock, and the choice of
 * the readers' protocol. See resize_lock.h. */
#include "resize_lock.h"

#include "asym_fence.h"

#include <cfa/testing.h>

bool resize_asymmetric;

/* Registration belongs to the address space: a child of fork registers
 * again (fork.c, step C3). */
void resize_lock_init(void)
{
    resize_asymmetric = asym_fence_init();
}

void cfa_test_resize_symmetric(void) { resize_asymmetric = false; }

void resize_write_lock(struct ready_queue *q)
{
    spin_lock(&q->write_lock);
    if (resize_asymmetric) {
        asym_fence_heavy();
        for (unsigned i = 0; i < q->nreaders; i++)
            while (atomic_load_explicit(&q->readers[i]->rq.read_lock, memory_order_acquire))
                spin_wait_clear(&q->readers[i]->rq.read_lock);
    } else {
        for (unsigned i = 0; i < q->nreaders; i++)
            spin_lock(&q->readers[i]->rq.read_lock);
    }
    spin_lock(&q->external_lock);
}

void resize_write_unlock(struct ready_queue *q, unsigned nreaders, struct cfa_processor_state **readers)
{
    spin_unlock(&q->external_lock);
    if (!resize_asymmetric)
        for (unsigned i = 0; i < nreaders; i++)
            spin_unlock(&readers[i]->rq.read_lock);
    spin_unlock(&q->write_lock);
}
