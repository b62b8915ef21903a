/* processor.c: processors, the kernel threads that run user threads.
 *
 * A processor repeats: perform the post action of the thread that just
 * left it, take the next ready thread of its cluster (sleeping when there
 * is none), switch to it. It leaves the loop only when asked to stop and
 * only between two threads, so the thread it was running is never lost:
 * that thread was made ready (or blocked) by its post action first.
 *
 * The main processor is the program's first kernel thread; its scheduling
 * loop runs on a mapped stack because main() keeps the process stack as a
 * user thread (boot.c). The others run the loop on their pthread stacks.
 */
#include "kernel.h"
#include "spinlock.h"
#include "stack.h"
#include "context.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

__thread struct cfa_processor_state *cfa_tls_processor;

static void finish_post_action(struct cfa_processor_state *p, struct cfa_thread *t)
{
    enum post_action action = p->post;
    p->post = POST_NONE;
    switch (action) {
    case POST_NONE:
        break;
    case POST_YIELD:
        thread_make_ready(t);
        break;
    case POST_PARK:
        /* The thread's registers are saved: an unpark may now run it. If a
         * permit arrived meanwhile (ticket was positive), consume it and
         * make the thread ready again instead of blocking. */
        atomic_store_explicit(&t->state, CFA_THREAD_BLOCKED, memory_order_relaxed);
        if (atomic_fetch_sub(&t->ticket, 1) > 0)
            thread_make_ready(t);
        break;
    case POST_HALT:
        thread_halted(t);
        break;
    }
}

/* The next thread to run, or NULL when the processor must stop. */
static struct cfa_thread *next_thread(struct cfa_processor_state *p)
{
    struct cfa_cluster_state *cs = p->cluster->state;
    for (;;) {
        if (atomic_load_explicit(&p->terminate, memory_order_acquire))
            return NULL;
        struct cfa_thread *t = ready_queue_pop(&cs->ready);
        if (t)
            return t;
        idle_register(&cs->idle, &p->sleeper);
        t = ready_queue_pop_locked(&cs->ready);
        if (t || atomic_load(&p->terminate)) {
            idle_unregister(&cs->idle, &p->sleeper);
            if (t)
                return t;
            continue;
        }
        idle_sleep(&cs->idle, &p->sleeper);
        idle_unregister(&cs->idle, &p->sleeper);
    }
}

void processor_loop(struct cfa_processor_state *p)
{
    struct cfa_thread *t = p->current;
    for (;;) {
        if (t) {
            p->current = NULL;
            finish_post_action(p, t);
        }
        t = next_thread(p);
        if (!t)
            return;
        p->current = t;
        t->last_processor = p->handle;
        atomic_store_explicit(&t->state, CFA_THREAD_RUNNING, memory_order_relaxed);
        context_switch(&p->sched, t->current);
    }
}

void processor_init_state(struct cfa_processor_state *s, struct cfa_processor *handle,
                          struct cfa_cluster *cl)
{
    s->handle = handle;
    s->cluster = cl;
    idle_sleeper_init(&s->sleeper);
    struct cfa_cluster_state *cs = cl->state;
    spin_lock(&cs->procs_lock);
    s->next_in_cluster = cs->procs;
    cs->procs = s;
    atomic_fetch_add(&cs->nprocs, 1);
    spin_unlock(&cs->procs_lock);
}

static void processor_leave_cluster(struct cfa_processor_state *s)
{
    struct cfa_cluster_state *cs = s->cluster->state;
    spin_lock(&cs->procs_lock);
    struct cfa_processor_state **link = &cs->procs;
    while (*link != s)
        link = &(*link)->next_in_cluster;
    *link = s->next_in_cluster;
    atomic_fetch_sub(&cs->nprocs, 1);
    spin_unlock(&cs->procs_lock);
    idle_sleeper_fini(&cs->idle, &s->sleeper);
}

static void *processor_kthread(void *arg)
{
    struct cfa_processor_state *s = arg;
    cfa_tls_processor = s;
    context_adopt_native(&s->sched);
    fault_thread_enter(s);
    processor_loop(s);
    processor_leave_cluster(s);
    fault_thread_leave(s);
    cfa_tls_processor = NULL;
    struct cfa_thread *stopper = s->stopper;
    atomic_store(&s->left, true);
    cfa_unpark(stopper);
    return NULL;
}

void cfa_processor_start(struct cfa_processor *p)
{
    if (p->state)
        cfa_fatal("processor %p started twice", (void *)p);
    struct cfa_cluster *cl = p->cluster ? p->cluster : cfa_current_cluster();
    if (!cl->state)
        cfa_fatal("processor started on cluster %s before cfa_cluster_init", cl->name ? cl->name : "(unnamed)");
    p->cluster = cl;
    struct cfa_processor_state *s = calloc(1, sizeof *s);
    if (!s)
        cfa_fatal("out of memory starting a processor");
    processor_init_state(s, p, cl);
    p->state = s;
    int err = pthread_create(&s->kthread, NULL, processor_kthread, s);
    if (err)
        cfa_fatal("cannot start a processor's kernel thread: %s", strerror(err));
}

void cfa_processor_stop(struct cfa_processor *p)
{
    struct cfa_processor_state *s = p->state;
    if (!s)
        return;
    struct cfa_thread *self = this_thread();
    if (!self)
        cfa_fatal("cfa_processor_stop called outside a user thread");
    s->stopper = self;
    idle_raise_and_wake(&p->cluster->state->idle, &s->sleeper, &s->terminate);
    /* If we run on s itself, parking hands s back to its loop, which then
     * sees `terminate`, leaves and unparks us on another processor. */
    while (!atomic_load(&s->left))
        cfa_park();
    pthread_join(s->kthread, NULL);
    free(s);
    p->state = NULL;
}

struct cfa_processor *cfa_processor_new(struct cfa_cluster *cl)
{
    struct cfa_processor *p = calloc(1, sizeof *p);
    if (!p)
        cfa_fatal("out of memory creating a processor");
    p->cluster = cl;
    cfa_processor_start(p);
    return p;
}

void cfa_processor_delete(struct cfa_processor *p)
{
    if (!p)
        return;
    cfa_processor_stop(p);
    free(p);
}

unsigned cfa_cluster_processor_count(struct cfa_cluster *cl)
{
    return cl->state ? atomic_load(&cl->state->nprocs) : 0;
}
