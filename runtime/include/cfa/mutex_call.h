/* cfa/mutex_call.h: the hot path of a mutex call, inline in its caller.
 *
 * cfacc lowers a function with mutex parameters to
 *
 *     struct cfa_mutex_group g __attribute__((cleanup(cfa_mutex_leave)));
 *     cfa_mutex_enter(&g, monitors, n, func);
 *
 * With n a constant, sorting two or four monitors is a sorting network,
 * taking a free monitor one compare-and-swap, and letting go of one that
 * nobody waits for one atomic subtract, with no call: a mutex call costs
 * its atomics, like Go's inlined sync.Mutex. Everything else (a monitor
 * held by another thread, a waiter to hand over to, waitfor) is out of
 * line in monitor.c, whose header comment gives the protocol and the
 * invariants on `owner` that these two paths rely on.
 *
 * One processor. While the program has exactly one processor, only one
 * kernel thread ever touches a monitor's owner word (monitors are used by
 * user threads only), so the compare-and-swap and the subtract need no
 * lock prefix: a single instruction cannot be cut by the only thing that
 * interleaves threads there, preemption. glibc does the same for
 * pthread mutexes in a single-threaded process. Each such instruction is
 * preceded by a test of `cfa_one_processor` inside one asm block, a
 * *window* recorded in the section cfa_one_processor_windows; preemption
 * never stops a thread inside a window, so no thread can test the flag,
 * lose its processor, and run the unlocked instruction after a second
 * processor started (runtime/src/one_processor.c has the transitions).
 * Under ThreadSanitizer the plain atomics are used (it cannot see asm).
 *
 * x86-64 only, like the context switch.
 */
#ifndef CFA_MUTEX_CALL_H
#define CFA_MUTEX_CALL_H

#include <cfa/monitor.h>
#include <cfa/thread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The inline paths have no debug information (clang's nodebug): stepping
 * through a mutex call in a debugger goes from the user's line to the
 * user's line. */
#if defined(__has_attribute)
#  if __has_attribute(nodebug)
#    define CFA_NODEBUG __attribute__((nodebug))
#  endif
#endif
#ifndef CFA_NODEBUG
#  define CFA_NODEBUG
#endif
#define CFA_INLINE_PATH static inline CFA_NODEBUG

/* A window: an instruction sequence [1b, 2b) that preemption never
 * stops, recorded in `section` as two offsets, each relative to where it
 * is stored (no relocation at load time). */
#define CFA_WINDOW_IN(section)                                                \
    ".pushsection " section ", \"a\"\n\t"                                    \
    ".balign 4\n\t"                                                           \
    ".long 1b - ., 2b - .\n\t"                                                \
    ".popsection\n\t"

/* Each module (the program, each shared library) has its own two tables
 * of windows, which the linker gathers and bounds with __start_/__stop_
 * symbols, hidden so that each module names its own (null when it has
 * none). A constructor in every translation unit that includes this
 * header registers its module's tables with the runtime
 * (runtime/src/code_windows.c), before the module's other constructors;
 * the runtime keeps each module once. */
struct cfa_code_windows {
    const void *one_processor_first, *one_processor_end;
    const void *thread_read_first, *thread_read_end;
    struct cfa_code_windows *next; /* the runtime's */
};
void cfa_register_code_windows(struct cfa_code_windows *module);

/* Under names of our own (asm labels), so that a program may declare the
 * linker's symbols itself. */
#define CFA_WINDOW_BOUND(name, symbol)                                         \
    extern const char name[] __asm__(symbol) __attribute__((weak, visibility("hidden")))
CFA_WINDOW_BOUND(cfa_one_processor_windows_first, "__start_cfa_one_processor_windows");
CFA_WINDOW_BOUND(cfa_one_processor_windows_end, "__stop_cfa_one_processor_windows");
CFA_WINDOW_BOUND(cfa_thread_read_windows_first, "__start_cfa_thread_read_windows");
CFA_WINDOW_BOUND(cfa_thread_read_windows_end, "__stop_cfa_thread_read_windows");
#undef CFA_WINDOW_BOUND

static struct cfa_code_windows cfa_this_module_windows = {
    cfa_one_processor_windows_first, cfa_one_processor_windows_end,
    cfa_thread_read_windows_first, cfa_thread_read_windows_end, 0};

__attribute__((constructor(101))) CFA_NODEBUG static void cfa_register_this_module_windows(void)
{
    cfa_register_code_windows(&cfa_this_module_windows);
}

/* The processor the calling kernel thread runs, NULL on one that is not a
 * processor. Its first member is the user thread it runs (the runtime
 * asserts so). Read through asm volatile with a memory clobber: a user
 * thread can migrate between kernel threads across any call, so the
 * compiler must not keep the thread-local address in a register. */
struct cfa_processor_state;
extern __thread struct cfa_processor_state *cfa_tls_processor
    __attribute__((tls_model("initial-exec")));

CFA_INLINE_PATH struct cfa_processor_state *cfa_this_processor_state(void)
{
    struct cfa_processor_state *p;
    __asm__ volatile("movq cfa_tls_processor@gottpoff(%%rip), %0\n\t"
                     "movq %%fs:(%0), %0" : "=r"(p) : : "memory");
    return p;
}

/* The user thread running this code, NULL on a kernel thread that is not
 * a processor. Two loads: the processor, from thread-local storage, then
 * the thread it runs. A thread preempted between them could resume on
 * another processor still holding the first one's address, whose thread
 * is by then another (or none), so the loads form a *thread-read window*
 * (section cfa_thread_read_windows) that preemption never stops
 * (preemption.c). The offset of the thread-local variable, loaded first,
 * is the same in every kernel thread. */
CFA_INLINE_PATH struct cfa_thread *cfa_this_thread(void)
{
    struct cfa_thread *t;
    __asm__ volatile("    movq cfa_tls_processor@gottpoff(%%rip), %0\n\t"
                     "1:  movq %%fs:(%0), %0\n\t"
                     "    testq %0, %0\n\t"
                     "    jz 2f\n\t"
                     "    movq (%0), %0\n\t"
                     "2:\n\t" CFA_WINDOW_IN("cfa_thread_read_windows")
                     : "=r"(t) : : "memory", "cc");
    return t;
}

/* True while the program has exactly one processor (one_processor.c). */
extern _Atomic unsigned char cfa_one_processor;

#if defined(__has_feature)
#  if __has_feature(thread_sanitizer)
#    define CFA_MUTEX_ATOMICS_ONLY 1
#  endif
#endif
#if defined(__SANITIZE_THREAD__)
#  define CFA_MUTEX_ATOMICS_ONLY 1
#endif

/* A one-processor window: the flag test and the unlocked instruction. */
#define CFA_ONE_PROCESSOR_WINDOW CFA_WINDOW_IN("cfa_one_processor_windows")

/* owner: 0 -> self. True if taken; else *seen is the word found. */
CFA_INLINE_PATH bool cfa_owner_take_free(_Atomic uintptr_t *owner, uintptr_t self, uintptr_t *seen)
{
    uintptr_t word = 0;
    bool taken;
#ifdef CFA_MUTEX_ATOMICS_ONLY
    taken = atomic_compare_exchange_strong_explicit(owner, &word, self, memory_order_acquire,
                                                    memory_order_relaxed);
#else
    __asm__ volatile("1:  cmpb $0, %[one]\n\t"
                     "    je 3f\n\t"
                     "    cmpxchgq %[self], %[owner]\n\t"
                     "2:  jmp 4f\n\t"
                     "3:  lock cmpxchgq %[self], %[owner]\n\t"
                     "4:\n\t" CFA_ONE_PROCESSOR_WINDOW
                     : "=@ccz"(taken), [owner] "+m"(*owner), "+a"(word)
                     : [self] "r"(self), [one] "m"(cfa_one_processor)
                     : "memory");
#endif
    *seen = word;
    return taken;
}

/* owner -= self; true if the result is not 0 (a waiter set QUEUED). */
CFA_INLINE_PATH bool cfa_owner_let_go(_Atomic uintptr_t *owner, uintptr_t self)
{
#ifdef CFA_MUTEX_ATOMICS_ONLY
    return atomic_fetch_sub_explicit(owner, self, memory_order_release) != self;
#else
    bool queued;
    __asm__ volatile("1:  cmpb $0, %[one]\n\t"
                     "    je 3f\n\t"
                     "    subq %[self], %[owner]\n\t"
                     "2:  jmp 4f\n\t"
                     "3:  lock subq %[self], %[owner]\n\t"
                     "4:\n\t" CFA_ONE_PROCESSOR_WINDOW
                     : "=@ccnz"(queued), [owner] "+m"(*owner)
                     : [self] "r"(self), [one] "m"(cfa_one_processor)
                     : "memory");
    return queued;
#endif
}

/* Out of line (monitor.c). */
void cfa_mutex_outside_thread(void) __attribute__((noreturn, cold));
void cfa_mutex_enter_slow(struct cfa_thread *self, struct cfa_mutex_group *g, unsigned from);
void cfa_monitor_release_slow(struct cfa_monitor *m);
unsigned cfa_sort_monitors_any(struct cfa_monitor **m, unsigned n);

CFA_INLINE_PATH void cfa_order_monitors(struct cfa_monitor **a, struct cfa_monitor **b)
{
    struct cfa_monitor *x = *a, *y = *b;
    *a = x < y ? x : y; /* branch-free: the order of the arguments is data */
    *b = x < y ? y : x;
}

/* Sorts by address and drops duplicates; returns the new count. */
CFA_INLINE_PATH unsigned cfa_sort_monitors(struct cfa_monitor **m, unsigned n)
{
    if (n == 2) {
        cfa_order_monitors(&m[0], &m[1]);
    } else if (n == 4) {
        cfa_order_monitors(&m[0], &m[1]);
        cfa_order_monitors(&m[2], &m[3]);
        cfa_order_monitors(&m[0], &m[2]);
        cfa_order_monitors(&m[1], &m[3]);
        cfa_order_monitors(&m[1], &m[2]);
    } else {
        return n < 2 ? n : cfa_sort_monitors_any(m, n);
    }
    unsigned k = 1;
    for (unsigned i = 1; i < n; i++)
        if (m[k - 1] != m[i])
            m[k++] = m[i];
    return k;
}

/* Takes m if it is free (one CAS; `nested` is already 0) or this thread
 * holds it (nobody else writes our own address into `owner`). */
CFA_INLINE_PATH bool cfa_monitor_try_acquire(struct cfa_thread *self, struct cfa_monitor *m)
{
    uintptr_t word;
    if (__builtin_expect(cfa_owner_take_free(&m->owner, (uintptr_t)self, &word), 1))
        return true;
    if ((word & ~CFA_MONITOR_QUEUED) != (uintptr_t)self)
        return false;
    m->nested++;
    return true;
}

/* Prologue of a mutex call: `monitors` (an array of n pointers owned by the
 * caller, sorted in place) are acquired, blocking the calling thread. `func`
 * identifies the function for waitfor (its address). */
CFA_INLINE_PATH void cfa_mutex_enter(struct cfa_mutex_group *g, struct cfa_monitor **monitors,
                                   unsigned n, const void *func)
{
    struct cfa_thread *self = cfa_this_thread();
    if (__builtin_expect(!self, 0))
        cfa_mutex_outside_thread();
    unsigned count, i = 0;
    if (n == 2) {
        /* In registers: the array is written after the atomics. */
        struct cfa_monitor *lo = monitors[0], *hi = monitors[1];
        cfa_order_monitors(&lo, &hi);
        count = 1 + (lo != hi);
        if (cfa_monitor_try_acquire(self, lo)) {
            i = 1;
            if (count == 2 && cfa_monitor_try_acquire(self, hi))
                i = 2;
        }
        monitors[0] = lo;
        monitors[1] = hi;
    } else {
        count = cfa_sort_monitors(monitors, n);
        while (i < count && cfa_monitor_try_acquire(self, monitors[i]))
            i++;
    }
    /* After the atomics: a locked instruction waits for earlier stores. */
    g->monitors = monitors;
    g->count = count;
    g->func = func;
    g->thread = self;
    if (__builtin_expect(i < count, 0))
        cfa_mutex_enter_slow(self, g, i);
    g->outer = self->mutex_group;
    self->mutex_group = g;
}

/* Epilogue: releases what cfa_mutex_enter acquired. Subtracting our own
 * address frees a monitor nobody queued on; with CFA_MONITOR_QUEUED set
 * the result is not 0 and the monitor is handed over under its lock. */
CFA_INLINE_PATH void cfa_mutex_leave(struct cfa_mutex_group *g)
{
    uintptr_t self = (uintptr_t)g->thread;
    for (unsigned i = g->count; i-- > 0;) {
        struct cfa_monitor *m = g->monitors[i];
        if (m->nested)
            m->nested--;
        else if (__builtin_expect(cfa_owner_let_go(&m->owner, self), 0))
            cfa_monitor_release_slow(m);
    }
    g->thread->mutex_group = g->outer;
}

#ifdef __cplusplus
}
#endif
#endif
