/* context.h: switching between execution contexts (coroutine stacks).
 *
 * Every execution context is a struct cfa_coroutine: a user coroutine, a
 * thread's own stack, or a processor's scheduler. context_switch() is the
 * one way to move between them; it keeps the sanitizers told (ASan needs
 * the destination stack's bounds, TSan its fiber), checks the canary of a
 * leaving stack without guard pages (stack.h), and is otherwise just the
 * assembly switch.
 *
 * A context entered for the first time starts in an entry function that
 * must call context_arrived() before anything else.
 */
#ifndef CFA_CONTEXT_H
#define CFA_CONTEXT_H

#include <cfa/coroutine.h>
#include <stddef.h>

#include "stack.h"

#if defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define CFA_ASAN 1
#  endif
#  if __has_feature(thread_sanitizer)
#    define CFA_TSAN 1
#  endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#  define CFA_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#  define CFA_TSAN 1
#endif

#ifdef CFA_ASAN
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, size_t size);
void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old, size_t *size_old);
void __asan_unpoison_memory_region(void const volatile *addr, size_t size);
#endif
#ifdef CFA_TSAN
#include <cfa/test_hook.h>
#include <signal.h>
void *__tsan_get_current_fiber(void);
void *__tsan_create_fiber(unsigned flags);
void  __tsan_destroy_fiber(void *fiber);
void  __tsan_switch_to_fiber(void *fiber, unsigned flags);
#endif

void cfa_context_switch(struct cfa_context *from, struct cfa_context *to);
void cfa_context_trampoline(void);

/* Builds the first frame on c's (already mapped) stack so that the first
 * switch to c calls entry(arg). */
void context_prime(struct cfa_coroutine *c, void (*entry)(void *), void *arg);

/* The same in two steps, so that a new thread's stack is first touched by
 * the processor that first runs it, not by its creator: the page fault
 * that gives a fresh stack its first page then runs in parallel with
 * further creations (docs/performance.md, "A million threads").
 * context_prime_later marks c as not primed (ctx.sp NULL: no switch to c
 * is allowed) and does the sanitizers' part; context_prime_frame builds
 * the frame, before the first switch to c. */
void context_prime_later(struct cfa_coroutine *c);
void context_prime_frame(struct cfa_coroutine *c, void (*entry)(void *), void *arg);

/* Describes a context that runs on a stack the kernel gave us (the process
 * stack, a pthread's stack): bounds for ASan, the current fiber for TSan. */
void context_adopt_native(struct cfa_coroutine *c);

/* Releases sanitizer state of a context that will never run again. */
void context_forget(struct cfa_coroutine *c);

#ifdef CFA_TSAN
/* Signals and TSan's fibers. TSan keeps a signal that arrives outside a
 * blocking call in the state of its current fiber and runs the handler at
 * that fiber's next intercepted call or atomic operation; a fiber that
 * never runs again never runs it, and one TSan has finished drops it. Its
 * current fiber changes not only at a switch: creating a fiber and
 * destroying one make the new or dying fiber current for a moment
 * (FiberCreate, FiberDestroy in tsan_rtl_thread.cpp). A signal arriving
 * then would wait in a fiber that has not started, or be lost with the
 * dying one (a server's SIGTERM, sent while its connection threads end:
 * each halt destroys a fiber, test/runtime/signal_in_thread.c).
 * So every call that
 * changes TSan's current fiber (context_announce, context_prime,
 * context_forget) runs between these two:
 *   1. hold: block every signal; the interceptor's exit runs the handlers
 *      of the signals the running context's fiber holds;
 *   2. the call; a signal arriving now waits in the kernel;
 *   3. release: restore the mask; a waiting signal is delivered now, to
 *      the fiber of the context running from here on, whose next
 *      interceptor (this one's exit) or atomic runs it.
 * Invariant: a signal is delivered only while TSan's current fiber is the
 * running context's, and a fiber leaves or dies with no signal held.
 * Always inlined, like context_announce. */
static inline __attribute__((always_inline)) void tsan_signals_hold(sigset_t *old)
{
    sigset_t every;
    sigfillset(&every);
    pthread_sigmask(SIG_SETMASK, &every, old);
}

static inline __attribute__((always_inline)) void tsan_signals_release(const sigset_t *old)
{
    pthread_sigmask(SIG_SETMASK, old, NULL);
}
#endif

/* Tells the sanitizers that `to` is about to run: ASan its stack bounds
 * (and, unless fake_stack is NULL, where to save the leaving context's fake
 * stack: NULL says the leaving context never runs again), TSan its fiber.
 * Always inlined: TSan's function-exit hook of a separate function would
 * run after the fiber switch and pop a frame off the new fiber's shadow
 * stack, which corrupts it. */
static inline __attribute__((always_inline)) void context_announce(struct cfa_coroutine *to, void **fake_stack)
{
#ifdef CFA_ASAN
    __sanitizer_start_switch_fiber(fake_stack, (char *)to->stack.map + to->stack.guard,
                                   to->stack.map_size - to->stack.guard);
#endif
#ifdef CFA_TSAN
    sigset_t old;
    tsan_signals_hold(&old);
    if (cfa_test_hook)
        cfa_test_hook(CFA_STEP_FIBER_SWITCH);
    __tsan_switch_to_fiber(to->sanitizer_fiber, 0);
    tsan_signals_release(&old);
#endif
    (void)to; (void)fake_stack;
}

static inline void context_switch(struct cfa_coroutine *from, struct cfa_coroutine *to)
{
    /* ASan keeps the frames of escaped locals on a per-context "fake
     * stack"; it is saved here and handed back when we return. */
    void *fake_stack = NULL;
    stack_watch(from);
    context_announce(to, &fake_stack);
    cfa_context_switch(&from->ctx, &to->ctx);
#ifdef CFA_ASAN
    __sanitizer_finish_switch_fiber(fake_stack, NULL, NULL);
#endif
}

/* The last switch away from a context that will never run again. */
static inline __attribute__((noreturn)) void context_switch_final(struct cfa_coroutine *from,
                                                                  struct cfa_coroutine *to)
{
    stack_watch(from);
    context_announce(to, NULL);
    cfa_context_switch(&from->ctx, &to->ctx);
    __builtin_unreachable();
}

static inline void context_arrived(void)
{
#ifdef CFA_ASAN
    __sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
}

#endif
