/* coroutine.c: resume and suspend.
 *
 * Coroutines switch directly between their stacks on the resuming user
 * thread; the processor is not involved. The running one is
 * this_thread()->current. The stack is mapped at the first resume.
 *
 * The resumer chain: `last` is the coroutine that resumed this one most
 * recently, suspended inside its resume and so still ACTIVE; suspend
 * returns to it. A halting coroutine returns to its `starter`, likewise
 * ACTIVE. The running coroutine is ACTIVE. The debug build checks these
 * (invariant.h). A coroutine is in the registry exactly while ACTIVE.
 */
#include "invariant.h"
#include "registry.h"
#include "thread_internal.h"
#include "context.h"
#include "stack.h"

#include <cfa/runtime.h>
#include <string.h>

void cfa_coroutine_setup(struct cfa_coroutine *c, cfa_main_fn main, void *object,
                         const char *type_name)
{
    if (c->state != CFA_COROUTINE_INACTIVE)
        cfa_fatal("coroutine %s (type %s) set up while it runs", c->name ? c->name : type_name, type_name);
    c->main = main;
    c->object = object;
    c->type_name = type_name;
}

static const char *coroutine_name(const struct cfa_coroutine *c)
{
    return c->name ? c->name : c->type_name ? c->type_name : "(unnamed)";
}

static void coroutine_entry(void *arg)
{
    struct cfa_coroutine *c = arg;
    context_arrived();
    c->main(c->object);
    cfa_assert("coroutine chain: a halting coroutine's starter is active",
               c->starter && c->starter->state == CFA_COROUTINE_ACTIVE);
    registry_remove_coroutine(c);
    c->state = CFA_COROUTINE_HALTED;
    /* Control goes to the starter, not the last resumer (as in uC++). The
     * thread may have changed since the start: ask again. */
    struct cfa_thread *t = this_thread();
    t->current = c->starter;
    context_switch_final(c, c->starter);
}

/* Everything but the switch itself: first resume (map the stack) and the
 * errors. Out of line so that the fast path needs no stack frame. */
static __attribute__((noinline, cold)) void resume_slow_path(struct cfa_coroutine *c,
                                                             struct cfa_thread *t)
{
    if (!t)
        cfa_fatal("resume of coroutine %s outside a user thread", coroutine_name(c));
    if (c == t->current)
        cfa_fatal("coroutine %s resumes itself", coroutine_name(c));
    if (c->state == CFA_COROUTINE_HALTED)
        cfa_fatal("resume of coroutine %s (type %s) whose main has returned",
                  coroutine_name(c), c->type_name ? c->type_name : "?");
    if (c->state == CFA_COROUTINE_INACTIVE) {
        if (!c->main)
            cfa_fatal("resume of a coroutine that was never set up (no main)");
        stack_acquire(&c->stack, c->stack_size);
        context_prime(c, coroutine_entry, c);
        c->starter = t->current;
        c->state = CFA_COROUTINE_ACTIVE;
        registry_add_coroutine(c);
    }
}

void cfa_coroutine_resume(struct cfa_coroutine *c)
{
    struct cfa_thread *t = this_thread();
    if (__builtin_expect(!t || c->state != CFA_COROUTINE_ACTIVE || c == t->current, 0)) {
        resume_slow_path(c, t);
        t = this_thread();
    }
    struct cfa_coroutine *from = t->current;
    cfa_assert("coroutine chain: the resumer is active", from->state == CFA_COROUTINE_ACTIVE);
    c->last = from;
    t->current = c;
    context_switch(from, c);
}

void cfa_coroutine_suspend(void)
{
    struct cfa_thread *t = this_thread();
    if (__builtin_expect(!t || t->current == &t->self, 0))
        cfa_fatal("suspend called outside a coroutine");
    struct cfa_coroutine *c = t->current;
    cfa_assert("coroutine chain: a suspending coroutine's last resumer is active",
               c->last && c->last->state == CFA_COROUTINE_ACTIVE);
    t->current = c->last;
    context_switch(c, c->last);
}

void cfa_coroutine_destroy(struct cfa_coroutine *c)
{
    struct cfa_thread *t = this_thread();
    if (t && t->current == c)
        cfa_fatal("coroutine %s destroyed while it runs", coroutine_name(c));
    if (c->state == CFA_COROUTINE_ACTIVE) /* destroyed while suspended */
        registry_remove_coroutine(c);
    stack_release(&c->stack);
    context_forget(c);
    c->state = CFA_COROUTINE_INACTIVE;
}

struct cfa_coroutine *cfa_coroutine_active(void)
{
    struct cfa_thread *t = this_thread();
    return t ? t->current : NULL;
}
