/* pthread_stdio.c: flockfile, ftrylockfile and funlockfile between user
 * threads.
 *
 * glibc's FILE lock is owned by a kernel thread, so two user threads on
 * one processor would both get in, and a user thread waiting for it would
 * stop its processor. The runtime keeps its own lock per FILE instead, in
 * a table keyed by the FILE's address (entries are made on first use and
 * kept: a FILE reopened at the same address finds a free entry), owned by
 * pt_self() and counted (the lock is recursive, as POSIX says), with the
 * waiter queue of pthread_wait.h.
 *
 * Each stdio call still takes glibc's lock for its own duration; no
 * thread is ever switched out while holding that one (preemption never
 * stops a thread inside libc), so it never blocks a processor for long.
 */
#include "pthread_stdio.h"
#include "pthread_wait.h"

#include <cfa/runtime.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

PT_UNIT(stdio);

enum { QLOCK = 1, BUCKETS = 256 };

struct file_lock {
    FILE              *file;
    struct file_lock  *next;   /* same bucket */
    _Atomic unsigned   word;
    unsigned           count;  /* acquisitions by the owner beyond the first */
    uintptr_t          owner;
    struct pt_queue    queue;
};

static struct file_lock *_Atomic buckets[BUCKETS];

static struct file_lock *find(struct file_lock *it, FILE *f)
{
    for (; it; it = it->next)
        if (it->file == f)
            return it;
    return NULL;
}

static struct file_lock *lock_of(FILE *f)
{
    _Atomic(struct file_lock *) *bucket = &buckets[((uintptr_t)f >> 4) % BUCKETS];
    struct file_lock *head = atomic_load_explicit(bucket, memory_order_acquire);
    struct file_lock *found = find(head, f);
    if (found)
        return found;
    struct file_lock *made = calloc(1, sizeof *made);
    if (!made)
        cfa_fatal("out of memory for the lock of a FILE");
    made->file = f;
    do {
        made->next = head;
        if ((found = find(head, f))) { /* someone else made it meanwhile */
            free(made);
            return found;
        }
    } while (!atomic_compare_exchange_weak_explicit(bucket, &head, made, memory_order_acq_rel,
                                                    memory_order_acquire));
    return made;
}

void stdio_locks_fork_child(void)
{
    uintptr_t self = pt_self();
    for (int b = 0; b < BUCKETS; b++)
        for (struct file_lock *l = atomic_load(&buckets[b]); l; l = l->next) {
            atomic_store(&l->word, 0);
            l->queue = (struct pt_queue){ 0 };
            if (l->owner != self) {
                l->owner = 0;
                l->count = 0;
            }
        }
}

/* deadline: PT_NO_DEADLINE, or -1 for a try. */
static int take(FILE *f, int64_t deadline)
{
    struct file_lock *l = lock_of(f);
    uintptr_t self = pt_self();
    pt_qlock(&l->word, QLOCK);
    if (!l->owner || l->owner == self) {
        if (l->owner)
            l->count++;
        l->owner = self;
        pt_qunlock(&l->word, QLOCK);
        return 0;
    }
    if (deadline < 0) {
        pt_qunlock(&l->word, QLOCK);
        return -1;
    }
    struct pt_waiter w;
    pt_waiter_init(&w, 0, deadline);
    pt_push(&l->queue, &w);
    return pt_wait(&l->word, QLOCK, &l->queue, &w, deadline, "flockfile");
}

void flockfile(FILE *f) { take(f, PT_NO_DEADLINE); }

int ftrylockfile(FILE *f) { return take(f, -1); }

void funlockfile(FILE *f)
{
    struct file_lock *l = lock_of(f);
    struct pt_waiter *w = NULL;
    pt_qlock(&l->word, QLOCK);
    if (l->owner == pt_self()) {
        if (l->count) {
            l->count--;
        } else {
            w = pt_pop(&l->queue);
            l->owner = w ? w->id : 0;
        }
    }
    pt_qunlock(&l->word, QLOCK);
    if (w)
        pt_grant(w);
}
