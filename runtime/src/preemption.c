/* preemption.c: time slices.
 *
 * One ticker kernel thread wakes every half slice (CFA_PREEMPTION_MS,
 * default 10; 0 turns preemption off) and sends SIGURG to each processor
 * that has been running the same thread since the previous tick, so a
 * thread runs at most one and a half slices. The handler, on
 * the interrupted thread's own stack, makes the thread yield: it switches
 * away inside the handler, and the handler returns (restoring every
 * register from the signal frame) whenever and wherever the thread is
 * next scheduled.
 *
 * It yields only when the interrupted instruction is the program's own
 * code: not the runtime (its code is in the section cfa_runtime_text, see
 * the pragma at the top of each runtime file), so no runtime critical
 * section is ever cut; and not a shared library (libc's locks are not
 * safe to hold across a switch); and not inside a one-processor window of
 * a mutex call, nor a thread-read window (the two loads of the running
 * thread, which a migration between them would make another's; both in
 * cfa/mutex_call.h); nor inside a signal handler of the program's
 * (interpose_signal.c). Elsewhere the tick is dropped and the next one
 * tries again.
 *
 * The program's own code is its executable segments; in a program linked
 * with `cfacc -static`, whose executable segments hold the C library too,
 * it is what cfacc brackets between two markers (cfa_program_text_begin
 * and _end, around the program's objects: Driver.cpp).
 *
 * Under the sanitizers preemption is off: TSan defers asynchronous
 * signals, which a switch inside a handler does not survive, and both
 * link their runtimes into the program's text, where the handler would
 * take them for the program's own code (a switch in the middle of ASan's
 * fiber bookkeeping).
 */
#include "code_windows.h"
#include "interpose.h"
#include "deadlock.h"
#include "kthread.h"
#include "preemption.h"
#include "processor.h"
#include "registry.h"
#include "thread_internal.h"
#include "environment.h"
#include "context.h"

#include <cfa/runtime.h>
#include <cfa/testing.h>
#include <errno.h>
#include <link.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <valgrind/valgrind.h>

extern const char __start_cfa_runtime_text[], __stop_cfa_runtime_text[];

extern const char cfa_program_text_begin[] __attribute__((weak));
extern const char cfa_program_text_end[] __attribute__((weak));

static uintptr_t program_text_low, program_text_high;
static long slice_ms; /* CFA_PREEMPTION_MS, set at boot */

static int find_program_text(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    /* The first object is the program itself. */
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            uintptr_t low = info->dlpi_addr + ph->p_vaddr;
            if (!program_text_low || low < program_text_low)
                program_text_low = low;
            if (low + ph->p_memsz > program_text_high)
                program_text_high = low + ph->p_memsz;
        }
    }
    return 1;
}

/* Statistics (CFA_STATS): relaxed counters, touched only by the handler. */
static _Atomic unsigned long signals_seen, yields_made, dropped_in_window;

static bool preemptible_at(uintptr_t pc)
{
    if (pc >= (uintptr_t)__start_cfa_runtime_text && pc < (uintptr_t)__stop_cfa_runtime_text)
        return false;
    if (pc < program_text_low || pc >= program_text_high)
        return false;
    if (one_processor_window_at(pc)) { /* see cfa/mutex_call.h */
        atomic_fetch_add_explicit(&dropped_in_window, 1, memory_order_relaxed);
        return false;
    }
    return !thread_read_window_at(pc);
}

void preemption_counts(unsigned long *signals, unsigned long *yields, unsigned long *in_window)
{
    *signals = atomic_load(&signals_seen);
    *yields = atomic_load(&yields_made);
    *in_window = atomic_load(&dropped_in_window);
}

static void on_preempt(int sig, siginfo_t *info, void *uc)
{
    (void)sig;
    (void)info;
    struct cfa_processor_state *p = this_processor();
    if (!p)
        return;
    processor_clock_stale(p); /* it ran one thread a tick long */
    uintptr_t pc = (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
    if (atomic_load_explicit(&p->quiesce_wanted, memory_order_relaxed) && !one_processor_window_at(pc))
        atomic_store(&p->quiesce_wanted, false);
    struct cfa_thread *t = p->current;
    if (!t || slice_ms == 0)
        return;
    atomic_fetch_add_explicit(&signals_seen, 1, memory_order_relaxed);
    if (!preemptible_at(pc) || interpose_in_signal_handler())
        return; /* a program's handler: what it interrupted may hold a lock */
    atomic_fetch_add_explicit(&yields_made, 1, memory_order_relaxed);
    int saved_errno = errno;
    schedule_out(t, POST_YIELD);
    errno = saved_errno;
}

/* cfa/testing.h: the handler, for a signal landing at a chosen place. */
bool cfa_test_preemption_at(const void *pc)
{
    ucontext_t uc;
    memset(&uc, 0, sizeof uc);
    uc.uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)pc;
    unsigned long before = atomic_load(&yields_made);
    on_preempt(SIGURG, NULL, &uc);
    return atomic_load(&yields_made) != before;
}

static void *ticker(void *arg)
{
    (void)arg;
    long half_us = slice_ms * 500;
    struct timespec slice = { .tv_sec = half_us / 1000000, .tv_nsec = (half_us % 1000000) * 1000 };
    for (;;) {
        nanosleep(&slice, NULL);
        registry_lock_processors();
        for (struct cfa_processor_state *p = registry_processors(); p; p = p->all_next) {
            unsigned long seen = atomic_load_explicit(&p->switches, memory_order_relaxed);
            /* `preempt_seen` is only touched here, under the registry lock. */
            if (seen == p->preempt_seen && p->current && p->signalable)
                pthread_kill(p->self_kthread, SIGURG);
            p->preempt_seen = seen;
        }
        registry_unlock_processors();
    }
    return NULL;
}

/* Installed even with preemption off: one_processor.c pokes through it. */
static void install_handler(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_preempt;
    /* NODEFER: the handler may switch away and not return on this kernel
     * thread for a long time; SIGURG must stay deliverable here. */
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGURG, &sa, NULL);
}

bool preemption_poke(struct cfa_processor_state *p)
{
    registry_lock_processors();
    bool ok = p->signalable;
    if (ok)
        pthread_kill(p->self_kthread, SIGURG);
    registry_unlock_processors();
    return ok;
}

void preemption_start(void)
{
#if defined(CFA_TSAN) || defined(CFA_ASAN)
    slice_ms = 0;
    install_handler(); /* for preemption_poke only */
    return;
#endif
    slice_ms = env_count(ENV_CFA_PREEMPTION_MS);
    /* Under valgrind a preempted thread that resumes on another processor
     * returns from the signal handler there, and valgrind's sigreturn
     * restores the whole saved guest state, the first kernel thread's
     * thread-local storage base included: the thread would then read the
     * other processor's state as its own. Off unless asked for. */
    if (RUNNING_ON_VALGRIND && !env_is_set(ENV_CFA_PREEMPTION_MS))
        slice_ms = 0;
    install_handler();
    if (slice_ms == 0)
        return;
    if (cfa_program_text_begin && cfa_program_text_end) {
        program_text_low = (uintptr_t)cfa_program_text_begin;
        program_text_high = (uintptr_t)cfa_program_text_end;
    } else {
        dl_iterate_phdr(find_program_text, NULL);
    }
    preemption_restart();
}

bool preemption_wanted(void) { return slice_ms != 0; }

void preemption_restart(void)
{
    if (slice_ms == 0)
        return;
    pthread_t kt;
    runtime_kthread_enter(); /* before it exists: see processor.c */
    int err = kthread_create_helper(&kt, NULL, ticker, NULL);
    if (err)
        cfa_fatal("cannot start the preemption ticker: %s", strerror(err));
    pthread_detach(kt);
}
