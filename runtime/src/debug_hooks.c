/* debug_hooks.c: the test hooks of cfa/debug.h (debug build only). Each
 * breaks one invariant on purpose, so that a test sees its check fire
 * (docs/architecture.md, "Invariants checked in the debug build"). The
 * timer heap's hook is in timer.c (the heap is private to it), the
 * fault-injection switch in invariant.c. */
#include "processor.h"
#include "ready_queue.h"
#include "resize_lock.h"
#include "thread_internal.h"
#include "idle.h"
#include "io_processor.h"

#ifdef CFA_DEBUG
#include <cfa/debug.h>
#include <cfa/runtime.h>
#include <stdatomic.h>
#include <stdint.h>

static struct cfa_processor_state *this_processor_or_fatal(const char *hook)
{
    struct cfa_processor_state *p = this_processor();
    if (!p)
        cfa_fatal("%s called outside a processor", hook);
    return p;
}

void cfa_debug_make_ready(struct cfa_thread *t) { thread_make_ready(t, PUSH_LOCAL); }

void cfa_debug_ready_leave(void) { ready_leave(this_processor_or_fatal("cfa_debug_ready_leave")); }

static void register_idle(struct cfa_processor_state *p)
{
    while (!idle_try_register(&p->cluster->state->idle, &p->sleeper))
        cpu_relax();
}

void cfa_debug_idle_register_twice(void)
{
    struct cfa_processor_state *p = this_processor_or_fatal("cfa_debug_idle_register_twice");
    register_idle(p);
    register_idle(p);
}

void cfa_debug_idle_register_asleep(void)
{
    struct cfa_processor_state *p = this_processor_or_fatal("cfa_debug_idle_register_asleep");
    atomic_store(&p->sleeper.state, IDLE_SLEEP);
    register_idle(p);
}

void cfa_debug_monitor_set_owner(struct cfa_monitor *m, struct cfa_thread *owner)
{
    atomic_store(&m->owner, (uintptr_t)owner | (atomic_load(&m->owner) & CFA_MONITOR_QUEUED));
}

void cfa_debug_monitor_cut_entry_queue(struct cfa_monitor *m)
{
    spin_lock(&m->lock);
    m->entry.tail = NULL;
    spin_unlock(&m->lock);
}

void cfa_debug_condition_cut(struct cfa_condition *c) { c->waiters.tail = NULL; }

void cfa_debug_coroutine_break_chain(void)
{
    static struct cfa_coroutine halted = { .state = CFA_COROUTINE_HALTED, .type_name = "halted" };
    struct cfa_thread *t = this_thread();
    if (!t || t->current == &t->self)
        cfa_fatal("cfa_debug_coroutine_break_chain called outside a coroutine");
    t->current->last = &halted;
}

void cfa_debug_io_forget_inflight(void)
{
    struct cfa_processor_state *p = this_processor_or_fatal("cfa_debug_io_forget_inflight");
    if (!p->io || !p->io->uring)
        cfa_fatal("cfa_debug_io_forget_inflight: this processor has no io_uring");
    p->io->inflight = 0;
}
#endif
