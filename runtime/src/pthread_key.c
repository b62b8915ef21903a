/* pthread_key.c: thread-specific data (pthread_key_create, ...) per user
 * thread.
 *
 * Keys are glibc's (pthread_key_create forwards, so key numbers are
 * shared, and a kernel thread that is not running a user thread keeps
 * using glibc's values). Each user thread has its own values, in
 * t->specific, allocated at its first pthread_setspecific. A key's slot
 * holds the key's sequence number when the value was set: deleting a key
 * bumps the number, so values set under the old key read as NULL.
 * Sequence numbers are odd while a key is in use (as glibc's).
 *
 * When a thread's main returns, destructors run on the thread, up to
 * PTHREAD_DESTRUCTOR_ITERATIONS rounds while values remain (POSIX).
 */
#include "pthread_wait.h"
#include "pthread_key.h"
#include "processor.h"

#include <cfa/runtime.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

PT_UNIT(key);

struct pt_slot {
    unsigned long seq;
    void         *value;
};

struct pt_specific {
    unsigned       size;
    struct pt_slot slot[];
};

/* The running user thread, for the calls a sanitizer makes before it can
 * record anything (cfa_this_thread is instrumented). */
PT_BEFORE_SANITIZER static inline struct cfa_thread *running_thread(void)
{
    struct cfa_processor_state *p = cfa_tls_processor;
    return p ? p->current : NULL;
}

static struct {
    _Atomic unsigned long seq;
    void (*_Atomic destructor)(void *);
} keys[PTHREAD_KEYS_MAX];

PT_BEFORE_SANITIZER int pthread_key_create(pthread_key_t *key, void (*destructor)(void *))
{
    int r = pt_real(pthread_key_create)(key, destructor);
    if (r)
        return r;
    atomic_store_explicit(&keys[*key].destructor, destructor, memory_order_relaxed);
    atomic_fetch_add_explicit(&keys[*key].seq, 1, memory_order_release); /* odd: in use */
    return 0;
}

PT_BEFORE_SANITIZER int pthread_key_delete(pthread_key_t key)
{
    if (key >= PTHREAD_KEYS_MAX || !(atomic_load_explicit(&keys[key].seq, memory_order_relaxed) & 1))
        return EINVAL;
    atomic_fetch_add_explicit(&keys[key].seq, 1, memory_order_release); /* even: free */
    return pt_real(pthread_key_delete)(key);
}

PT_BEFORE_SANITIZER void *pthread_getspecific(pthread_key_t key)
{
    struct cfa_thread *t = running_thread();
    if (!t)
        return pt_real(pthread_getspecific)(key);
    struct pt_specific *s = t->specific;
    if (!s || key >= s->size ||
        s->slot[key].seq != atomic_load_explicit(&keys[key].seq, memory_order_relaxed))
        return NULL;
    return s->slot[key].value;
}

PT_BEFORE_SANITIZER int pthread_setspecific(pthread_key_t key, const void *value)
{
    struct cfa_thread *t = running_thread();
    if (!t)
        return pt_real(pthread_setspecific)(key, value);
    unsigned long seq;
    if (key >= PTHREAD_KEYS_MAX || !((seq = atomic_load_explicit(&keys[key].seq, memory_order_acquire)) & 1))
        return EINVAL;
    struct pt_specific *s = t->specific;
    if (!s || key >= s->size) {
        unsigned size = s ? s->size : 0, grown = (key / 32 + 1) * 32;
        s = realloc(s, sizeof *s + grown * sizeof s->slot[0]);
        if (!s)
            return ENOMEM;
        memset(&s->slot[size], 0, (grown - size) * sizeof s->slot[0]);
        s->size = grown;
        t->specific = s;
    }
    s->slot[key] = (struct pt_slot){ seq, (void *)value };
    return 0;
}

void pt_specific_thread_exit(struct cfa_thread *t)
{
    for (int round = 0; round < PTHREAD_DESTRUCTOR_ITERATIONS; round++) {
        bool called = false;
        for (unsigned k = 0; k < t->specific->size; k++) {
            struct pt_slot *slot = &t->specific->slot[k];
            void (*destructor)(void *) = atomic_load_explicit(&keys[k].destructor, memory_order_relaxed);
            if (!slot->value || slot->seq != atomic_load_explicit(&keys[k].seq, memory_order_relaxed) ||
                !destructor)
                continue;
            void *value = slot->value;
            slot->value = NULL;
            destructor(value); /* may set values again, even grow the table */
            called = true;
        }
        if (!called)
            break;
    }
    free(t->specific);
    t->specific = NULL;
}
