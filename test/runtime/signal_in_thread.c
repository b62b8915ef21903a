// signal_in_thread: under ThreadSanitizer, a process signal that arrives
// while TSan's current fiber is not the running context's (during a fiber
// switch, or while TSan creates or destroys a thread's fiber) is handled
// at once by the context that runs on: even if the thread whose fiber it
// was then halts for good, stays parked, or has not run yet.
//
// TSan runs the handler of a signal that arrives outside a blocking call
// at the next intercepted call or atomic operation of its current fiber.
// The test hook sends the signal (the raw tgkill system call, which TSan
// does not see, so it is not taken as synchronous):
//   * at CFA_STEP_FIBER_SWITCH, the last step before TSan's fiber switch,
//     of a thread's last switch: its halt, or its park;
//   * at CFA_STEP_FIBER_DESTROY and CFA_STEP_FIBER_CREATED, after making
//     the thread's fiber current as TSan's FiberDestroy and FiberCreate do
//     (a switch without synchronization is exactly their FiberSwitchImpl),
//     and switching back.
// If the signal stayed with that fiber, a halted or destroyed thread's
// handler would never run, a parked thread's only when it ran again, and a
// new thread's only when it first ran (a server's SIGTERM handler lost
// this way left the server running under TSan).
//
// One processor: the hook's variables are read on the same kernel thread
// that set them, ordered by the fiber switches, and main does not give the
// processor up between a thread's start and the check.
//
// REQUIRES: tsan
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: halt: 20 signals handled, each before its thread was joined
// CHECK-NEXT: park: 20 signals handled, each while its thread stayed parked
// CHECK-NEXT: destroy: 20 signals handled, each before its thread was joined
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

/* Set by a thread (or by main for a thread it starts): the hook at the
 * next `signal_step` sends the signal, in `signal_thread`'s fiber unless
 * the step is the switch. Plain variables: an atomic operation would
 * itself run pending handlers. */
static enum cfa_test_step signal_step;
static struct cfa_thread *signal_thread;

static __attribute__((always_inline)) inline long raw_syscall3(long nr, long a, long b, long c) {
    long r;
    __asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return r;
}

static __attribute__((always_inline)) inline void send_usr1(void) {
    raw_syscall3(SYS_tgkill, raw_syscall3(SYS_getpid, 0, 0, 0), raw_syscall3(SYS_gettid, 0, 0, 0), SIGUSR1);
}

void cfa_test_hook(enum cfa_test_step step) {
    if (!signal_thread || step != signal_step)
        return;
    struct cfa_thread *t = signal_thread;
    signal_thread = NULL;
    if (step == CFA_STEP_FIBER_SWITCH) {
        send_usr1();
        return;
    }
    void *running = __tsan_get_current_fiber();
    __tsan_switch_to_fiber(t->self.sanitizer_fiber, TSAN_SWITCH_NO_SYNC);
    send_usr1();
    __tsan_switch_to_fiber(running, TSAN_SWITCH_NO_SYNC);
}

static void signal_at(enum cfa_test_step step, struct cfa_thread *t) {
    signal_step = step;
    signal_thread = t;
}

static void halting_at_switch_main(void *object) {
    (void)object;
    signal_at(CFA_STEP_FIBER_SWITCH, cfa_this_thread());
}

static void halting_at_destroy_main(void *object) {
    (void)object;
    /* The scheduler destroys our fiber after our last switch. */
    signal_at(CFA_STEP_FIBER_DESTROY, cfa_this_thread());
}

static _Atomic int woken;

static void parking_main(void *object) {
    (void)object;
    signal_at(CFA_STEP_FIBER_SWITCH, cfa_this_thread());
    cfa_park();
    atomic_store(&woken, 1);
}

static void running_main(void *object) {
    (void)object;
    atomic_store(&woken, 1);
}

enum { ROUNDS = 20 };

static void halt_rounds(cfa_main_fn halting_main, const char *what) {
    for (int i = 0; i < ROUNDS; i++) {
        int before = atomic_load(&handled);
        struct cfa_thread t;
        memset(&t, 0, sizeof t);
        cfa_thread_start(&t, halting_main, NULL, "Halting", 0);
        cfa_thread_join(&t);
        CHECK(atomic_load(&handled) == before + 1, "%s round %d: the halted thread's signal was not handled", what, i);
        cfa_thread_destroy(&t);
    }
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_handler = on_usr1;
    sigaction(SIGUSR1, &act, NULL);
    for (long r = 0; r < reps; r++) {
        halt_rounds(halting_at_switch_main, "halt");
        if (r == 0) printf("halt: %d signals handled, each before its thread was joined\n", ROUNDS);

        for (int i = 0; i < ROUNDS; i++) {
            int before = atomic_load(&handled);
            atomic_store(&woken, 0);
            struct cfa_thread t;
            memset(&t, 0, sizeof t);
            cfa_thread_start(&t, parking_main, NULL, "Parking", 0);
            /* Blocked is final here: only main unparks it. */
            while (atomic_load(&t.state) != CFA_THREAD_BLOCKED) cfa_yield();
            CHECK(atomic_load(&handled) == before + 1, "round %d: the parked thread's signal was not handled", i);
            CHECK(!atomic_load(&woken), "round %d: the thread left its park before its unpark", i);
            cfa_unpark(&t);
            cfa_thread_join(&t);
            CHECK(atomic_load(&woken), "round %d", i);
            cfa_thread_destroy(&t);
        }
        if (r == 0) printf("park: %d signals handled, each while its thread stayed parked\n", ROUNDS);

        halt_rounds(halting_at_destroy_main, "destroy");
        if (r == 0) printf("destroy: %d signals handled, each before its thread was joined\n", ROUNDS);

        for (int i = 0; i < ROUNDS; i++) {
            int before = atomic_load(&handled);
            atomic_store(&woken, 0);
            struct cfa_thread t;
            memset(&t, 0, sizeof t);
            signal_at(CFA_STEP_FIBER_CREATED, &t);
            cfa_thread_start(&t, running_main, NULL, "Running", 0);
            CHECK(!atomic_load(&woken), "round %d: the thread ran before main gave its processor up", i);
            CHECK(atomic_load(&handled) == before + 1, "round %d: the signal at the fiber's creation was not handled", i);
            cfa_thread_join(&t);
            CHECK(atomic_load(&woken), "round %d", i);
            cfa_thread_destroy(&t);
        }
        if (r == 0) printf("create: %d signals handled, each before its thread first ran\n", ROUNDS);
    }
    return 0;
}
