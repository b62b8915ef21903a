/* interpose_signal.c: a signal handler runs as a handler, never as a
 * thread that may park.
 *
 * A handler runs on top of whatever its kernel thread was doing: a user
 * thread inside malloc with the arena lock held, say. If a blocking call
 * it makes (the self-pipe's write, the classic) parked the thread the way
 * the interposed calls do outside handlers (interpose_io.c), the
 * interrupted code would be switched out with the lock held, and the next
 * thread of that processor to take the lock would block the processor for
 * ever. So in a handler the interposed calls are glibc's, as POSIX's
 * async-signal-safety wants them.
 *
 * To know, the runtime puts its trampoline in front of every handler the
 * program installs with sigaction or signal: the kernel calls the
 * trampoline, which marks the kernel thread as in a handler, calls the
 * program's handler and unmarks it. Invariants:
 *  1. while the kernel's handler for a signal is the trampoline,
 *     `actions[sig]` holds the program's handler and flags for it;
 *  2. the program sees only its own handlers: sigaction's old action and
 *     signal's result report the program's handler, never the trampoline;
 *  3. interpose_in_signal_handler() is true within a handler's call on
 *     the thread it interrupted: below the outermost trampoline's frame
 *     (`mark`) on that thread. A handler left by siglongjmp leaves its mark
 *     behind; calls from above its frame do not count, and the next
 *     handler's trampoline, finding the mark stale, starts afresh.
 * The runtime's own handlers (preemption, faults) are installed directly:
 * its calls to sigaction are glibc's (interpose.h). bsd_signal, sysv_signal
 * and sigset are glibc's: handlers they install are not marked.
 */
#include "interpose.h"
#include "spinlock.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

PT_UNIT(signal);

PT_INTERCEPTOR(int, sigaction, int, const struct sigaction *, struct sigaction *);

/* How far below the outermost handler's frame its callees' frames may be:
 * further is another stack (the handler was left by siglongjmp). */
enum { HANDLER_STACK_SPAN = 1 << 20 };

struct program_action {
    _Atomic(uintptr_t) handler; /* sa_handler or sa_sigaction */
    _Atomic int        flags;   /* the program's sa_flags (SA_SIGINFO says which) */
};
static struct program_action actions[NSIG];
static _Atomic int install_lock; /* one install at a time, so 1. holds */

struct handler_mark {
    unsigned           depth;  /* handlers in progress on this kernel thread */
    struct cfa_thread *thread; /* the user thread the outermost one interrupted */
    uintptr_t          frame;  /* the outermost trampoline's frame */
};
static __thread struct handler_mark mark __attribute__((tls_model("initial-exec")));

bool interpose_in_signal_handler(void)
{
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    return mark.depth && mark.thread == cfa_this_thread() && here < mark.frame &&
           mark.frame - here < HANDLER_STACK_SPAN;
}

static void trampoline(int sig, siginfo_t *info, void *context)
{
    if (mark.depth && !interpose_in_signal_handler())
        mark.depth = 0; /* the last one was left by siglongjmp */
    if (mark.depth == 0) {
        mark.thread = cfa_this_thread();
        mark.frame = (uintptr_t)__builtin_frame_address(0);
    }
    /* The mark is whole before it counts: a preemption signal taken here
     * reads it (preemption.c). */
    atomic_signal_fence(memory_order_seq_cst);
    mark.depth++;
    atomic_signal_fence(memory_order_seq_cst);
    uintptr_t h = atomic_load_explicit(&actions[sig].handler, memory_order_acquire);
    int flags = atomic_load_explicit(&actions[sig].flags, memory_order_relaxed);
    if (flags & SA_SIGINFO)
        ((void (*)(int, siginfo_t *, void *))h)(sig, info, context);
    else
        ((void (*)(int))h)(sig);
    atomic_signal_fence(memory_order_seq_cst);
    mark.depth--;
}

/* The kernel's action as the program set it (invariant 2). */
static void as_program_set(struct sigaction *a, uintptr_t handler, int flags)
{
    if (a->sa_sigaction != trampoline)
        return;
    a->sa_sigaction = (void (*)(int, siginfo_t *, void *))handler;
    a->sa_flags = (a->sa_flags & ~SA_SIGINFO) | (flags & SA_SIGINFO);
}

static int program_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (sig <= 0 || sig >= NSIG)
        return pt_glibc_call(sigaction, sig, act, old);
    /* sigaction is async-signal-safe: a handler on this kernel thread
     * must not find the lock held beneath it. */
    sigset_t all, mask;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &mask);
    spin_lock(&install_lock);
    uintptr_t was = atomic_load_explicit(&actions[sig].handler, memory_order_relaxed);
    int was_flags = atomic_load_explicit(&actions[sig].flags, memory_order_relaxed);
    int r;
    uintptr_t h = act ? ((act->sa_flags & SA_SIGINFO) ? (uintptr_t)act->sa_sigaction : (uintptr_t)act->sa_handler) : 0;
    if (!act || h == (uintptr_t)SIG_DFL || h == (uintptr_t)SIG_IGN) {
        r = pt_glibc_call(sigaction, sig, act, old);
    } else {
        /* The table first: the trampoline may run as soon as it is in. */
        atomic_store_explicit(&actions[sig].flags, act->sa_flags, memory_order_relaxed);
        atomic_store_explicit(&actions[sig].handler, h, memory_order_release);
        struct sigaction k = *act;
        k.sa_sigaction = trampoline;
        k.sa_flags |= SA_SIGINFO;
        r = pt_glibc_call(sigaction, sig, &k, old);
        if (r != 0) { /* refused (SIGKILL, SIGSTOP): the table as it was */
            atomic_store_explicit(&actions[sig].flags, was_flags, memory_order_relaxed);
            atomic_store_explicit(&actions[sig].handler, was, memory_order_release);
        }
    }
    spin_unlock(&install_lock);
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
    if (r == 0 && old)
        as_program_set(old, was, was_flags);
    return r;
}

PT_WEAK int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (interpose_in_runtime(__builtin_return_address(0)))
        return pt_glibc_call(sigaction, sig, act, old);
    return program_sigaction(sig, act, old);
}

/* glibc's signal(): BSD semantics (restarted calls, the signal blocked in
 * its own handler). */
PT_WEAK sighandler_t signal(int sig, sighandler_t handler)
{
    struct sigaction act, old;
    memset(&act, 0, sizeof act);
    act.sa_handler = handler;
    act.sa_flags = SA_RESTART;
    sigemptyset(&act.sa_mask);
    if (sig > 0 && sig < NSIG)
        sigaddset(&act.sa_mask, sig);
    if (program_sigaction(sig, &act, &old) != 0)
        return SIG_ERR;
    return old.sa_handler;
}
