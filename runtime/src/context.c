/* context.c: building first frames and sanitizer bookkeeping for contexts.
 * The switch itself is context_x86_64.S. */
#include "context.h"

#include <pthread.h>
#include <stdint.h>

enum {
    MXCSR_DEFAULT = 0x1F80, /* all exceptions masked, round to nearest */
    FPUCW_DEFAULT = 0x037F, /* x87: all exceptions masked, extended precision */
};

struct first_frame {
    uint32_t mxcsr;
    uint16_t fpucw;
    uint16_t padding;
    void *r15, *r14, *r13, *r12, *rbx, *rbp;
    void (*ret)(void);
};

void context_prime_frame(struct cfa_coroutine *c, void (*entry)(void *), void *arg)
{
    uintptr_t top = stack_coloured_top(&c->stack);
    /* After `ret` pops the trampoline's address the stack pointer is `top`,
     * 16-byte aligned as the trampoline's call requires. */
    struct first_frame *f = (struct first_frame *)(top - sizeof *f);
    *f = (struct first_frame){
        .mxcsr = MXCSR_DEFAULT,
        .fpucw = FPUCW_DEFAULT,
        .r12 = (void *)entry,
        .r13 = arg,
        .ret = cfa_context_trampoline,
    };
    c->ctx.sp = f;
}

void context_prime_later(struct cfa_coroutine *c)
{
    c->ctx.sp = NULL;
#ifdef CFA_TSAN
    if (!c->sanitizer_fiber) {
        sigset_t old;
        tsan_signals_hold(&old); /* see context.h */
        c->sanitizer_fiber = __tsan_create_fiber(0);
        if (cfa_test_hook)
            cfa_test_hook(CFA_STEP_FIBER_CREATED);
        tsan_signals_release(&old);
    }
#endif
}

void context_prime(struct cfa_coroutine *c, void (*entry)(void *), void *arg)
{
    context_prime_later(c);
    context_prime_frame(c, entry, arg);
}

void context_adopt_native(struct cfa_coroutine *c)
{
    pthread_attr_t attr;
    void *base = NULL;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        pthread_attr_getstack(&attr, &base, &size);
        pthread_attr_destroy(&attr);
    }
    c->stack.map = base;
    c->stack.map_size = size;
    c->stack.guard = 0;
#ifdef CFA_TSAN
    c->sanitizer_fiber = __tsan_get_current_fiber();
#endif
}

void context_forget(struct cfa_coroutine *c)
{
#ifdef CFA_TSAN
    if (c->sanitizer_fiber) {
        sigset_t old;
        tsan_signals_hold(&old); /* see context.h */
        if (cfa_test_hook)
            cfa_test_hook(CFA_STEP_FIBER_DESTROY);
        __tsan_destroy_fiber(c->sanitizer_fiber);
        tsan_signals_release(&old);
        c->sanitizer_fiber = NULL;
    }
#else
    (void)c;
#endif
}
