// signal_at_fiber_lifetime: under ThreadSanitizer, a process signal that
// arrives while TSan creates or destroys a thread's fiber is handled at
// once, in the fiber of the context that runs on: not lost with the dying
// fiber, and not kept by a fiber that has not started.
//
// TSan's FiberCreate and FiberDestroy make the new or dying fiber TSan's
// current one for a moment (FiberSwitchImpl(thr, fiber), the fiber's
// start or finish, FiberSwitchImpl(fiber, thr)); a signal arriving outside
// a blocking call is kept in the current fiber's state until its next
// intercepted call or atomic operation. The test hook reproduces that
// moment where the runtime creates or destroys a fiber
// (CFA_STEP_FIBER_CREATED, CFA_STEP_FIBER_DESTROY): it makes the thread's
// fiber current as TSan does (a switch without synchronization is exactly
// FiberSwitchImpl), sends the signal with the raw tgkill system call (TSan
// does not see it, so it is not taken as synchronous), and switches back.
// If the signal were delivered then, the dying fiber's would be lost (the
// handler never runs) and the new fiber's would wait until the thread
// first runs.
//
// One processor: main does not give it up between the start and the
// check, so the new thread has not run yet when main checks.
//
// REQUIRES: tsan
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: destroy: 20 signals handled, each before its thread was joined
// CHECK-NEXT: create: 20 signals handled, each before its thread first ran
#include "check.h"

#include <cfa/test_hook.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

void *__tsan_get_current_fiber(void);
void __tsan_switch_to_fiber(void *fiber, unsigned flags);
enum { TSAN_SWITCH_NO_SYNC = 1 }; /* __tsan_switch_to_fiber_no_sync */

static _Atomic int handled;

static void on_usr1(int sig) {
    (void)sig;
    atomic_fetch_add(&handled, 1);
}

/* The thread whose fiber the next hook of `step` makes current, or NULL.
 * Plain variables, set and read on main's kernel thread: an atomic
 * operation would itself run pending handlers. */
static struct cfa_thread *signal_thread;
static enum cfa_test_step signal_step;

static __attribute__((always_inline)) inline long raw_syscall3(long nr, long a, long b, long c) {
    long r;
    __asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return r;
}

void cfa_test_hook(enum cfa_test_step step) {
    if (!signal_thread || step != signal_step)
        return;
    void *fiber = signal_thread->self.sanitizer_fiber;
    signal_thread = NULL;
    void *running = __tsan_get_current_fiber();
    __tsan_switch_to_fiber(fiber, TSAN_SWITCH_NO_SYNC);
    raw_syscall3(SYS_tgkill, raw_syscall3(SYS_getpid, 0, 0, 0), raw_syscall3(SYS_gettid, 0, 0, 0), SIGUSR1);
    __tsan_switch_to_fiber(running, TSAN_SWITCH_NO_SYNC);
}

static void halting_main(void *object) {
    (void)object;
    /* The hook runs on this kernel thread when the scheduler destroys our fiber. */
    signal_step = CFA_STEP_FIBER_DESTROY;
    signal_thread = cfa_this_thread();
}

static _Atomic int ran;

static void running_main(void *object) {
    (void)object;
    atomic_store(&ran, 1);
}

enum { ROUNDS = 20 };

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_handler = on_usr1;
    sigaction(SIGUSR1, &act, NULL);
    for (long r = 0; r < reps; r++) {
        for (int i = 0; i < ROUNDS; i++) {
            int before = atomic_load(&handled);
            struct cfa_thread t;
            memset(&t, 0, sizeof t);
            cfa_thread_start(&t, halting_main, NULL, "Halting", 0);
            cfa_thread_join(&t);
            CHECK(atomic_load(&handled) == before + 1, "round %d: the signal at the fiber's destruction was not handled", i);
            cfa_thread_destroy(&t);
        }
        if (r == 0) printf("destroy: %d signals handled, each before its thread was joined\n", ROUNDS);

        for (int i = 0; i < ROUNDS; i++) {
            int before = atomic_load(&handled);
            atomic_store(&ran, 0);
            struct cfa_thread t;
            memset(&t, 0, sizeof t);
            signal_step = CFA_STEP_FIBER_CREATED;
            signal_thread = &t;
            cfa_thread_start(&t, running_main, NULL, "Running", 0);
            CHECK(!atomic_load(&ran), "round %d: the thread ran before main gave its processor up", i);
            CHECK(atomic_load(&handled) == before + 1, "round %d: the signal at the fiber's creation was not handled", i);
            cfa_thread_join(&t);
            CHECK(atomic_load(&ran), "round %d", i);
            cfa_thread_destroy(&t);
        }
        if (r == 0) printf("create: %d signals handled, each before its thread first ran\n", ROUNDS);
    }
    return 0;
}
