/* fault.c: how the program stops when something is wrong.
 *
 * cfa_fatal() reports a misuse with the running thread's name. The fault
 * handler turns a SIGSEGV/SIGBUS into a sentence: a fault in or just below
 * the running stack's guard is a stack overflow, named by thread (and
 * coroutine); anything else is reported with its address. The handler runs
 * on a per-processor alternate stack (the faulting stack is exhausted),
 * then restores the default action and returns, so the fault repeats and
 * the program dies with the signal, as it would have, core dump included.
 *
 * Under ASan or TSan the sanitizer's own handler is left in place.
 */
#include "fault.h"
#include "processor.h"
#include "thread_internal.h"
#include "context.h"

#include <cfa/runtime.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A frame larger than the guard may jump it: faults BELOW_GUARD_SLACK
 * below the mapping still count as an overflow of that stack. */
enum {
    ALTSTACK_SIZE = 64 * 1024,      /* docs/scheduler.md#tunables */
    BELOW_GUARD_SLACK = 256 * 1024, /* docs/scheduler.md#tunables */
};

static int describe_thread(char *buf, size_t size, const struct cfa_thread *t)
{
    if (!t)
        return snprintf(buf, size, "a processor's scheduler");
    const char *type = t->self.type_name ? t->self.type_name : "?";
    if (t->id == 0)
        return snprintf(buf, size, "the program's main thread");
    if (t->self.name)
        return snprintf(buf, size, "thread \"%s\" (type %s, id %llu)", t->self.name, type,
                        (unsigned long long)t->id);
    return snprintf(buf, size, "thread of type %s (id %llu)", type, (unsigned long long)t->id);
}

void cfa_fatal(const char *fmt, ...)
{
    char what[512], who[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    describe_thread(who, sizeof who, this_thread());
    fflush(stdout);
    fprintf(stderr, "cfa: error: %s\ncfa: in %s\n", what, who);
    abort();
}

static bool near_guard(const struct cfa_coroutine *c, uintptr_t addr)
{
    uintptr_t low = (uintptr_t)c->stack.map;
    if (!low)
        return false;
    uintptr_t floor = low > BELOW_GUARD_SLACK ? low - BELOW_GUARD_SLACK : 0;
    return addr >= floor && addr < low + c->stack.guard;
}

static __attribute__((unused)) void on_fault(int sig, siginfo_t *info, void *context)
{
    (void)context;
    struct cfa_processor_state *p = cfa_tls_processor;
    struct cfa_thread *t = p ? p->current : NULL;
    const struct cfa_coroutine *c = t ? t->current : NULL;
    uintptr_t addr = (uintptr_t)info->si_addr;
    char who[256], msg[512];
    describe_thread(who, sizeof who, t);
    int n;
    if (c && near_guard(c, addr) && c != &t->self)
        n = snprintf(msg, sizeof msg, "cfa: stack overflow in coroutine %s (type %s) resumed by %s\n",
                     c->name ? c->name : c->type_name, c->type_name, who);
    else if (c && near_guard(c, addr))
        n = snprintf(msg, sizeof msg, "cfa: stack overflow in %s\n", who);
    else
        n = snprintf(msg, sizeof msg, "cfa: %s at address %p in %s\n",
                     sig == SIGSEGV ? "segmentation fault" : "bus error", info->si_addr, who);
    if (n > 0)
        (void)!write(STDERR_FILENO, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
    signal(sig, SIG_DFL);
}

void fault_install(void)
{
#if !defined(CFA_ASAN) && !defined(CFA_TSAN)
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
#endif
}

void fault_thread_enter(struct cfa_processor_state *p)
{
#if !defined(CFA_ASAN) && !defined(CFA_TSAN)
    p->altstack = malloc(ALTSTACK_SIZE);
    if (!p->altstack)
        return;
    stack_t ss = { .ss_sp = p->altstack, .ss_size = ALTSTACK_SIZE, .ss_flags = 0 };
    sigaltstack(&ss, NULL);
#else
    (void)p;
#endif
}

void fault_thread_leave(struct cfa_processor_state *p)
{
    if (!p->altstack)
        return;
    stack_t ss = { .ss_flags = SS_DISABLE };
    sigaltstack(&ss, NULL);
    free(p->altstack);
    p->altstack = NULL;
}
