/* resize_lock.c: the writer side of the resizing lock. See resize_lock.h. */
#include "resize_lock.h"

void resize_write_lock(struct ready_queue *q)
{
    spin_lock(&q->write_lock);
    for (unsigned i = 0; i < q->nreaders; i++)
        spin_lock(&q->readers[i]->rq.read_lock);
    spin_lock(&q->external_lock);
}

void resize_write_unlock(struct ready_queue *q, unsigned nreaders, struct cfa_processor_state **readers)
{
    spin_unlock(&q->external_lock);
    for (unsigned i = 0; i < nreaders; i++)
        spin_unlock(&readers[i]->rq.read_lock);
    spin_unlock(&q->write_lock);
}
