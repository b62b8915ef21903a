// signal_in_thread: under ThreadSanitizer, a process signal that arrives
// while the runtime switches a thread's fiber is handled even if that
// thread then halts for good, or stays parked.
//
// TSan runs the handler of a signal that arrives outside a blocking call
// at the running fiber's next intercepted call or atomic operation. The
// test hook sends the signal (the raw tgkill system call, which TSan does
// not see) at CFA_STEP_FIBER_SWITCH, the last step before TSan's fiber
// switch, of the thread's last switch: its halt, or its park. If the
// signal stayed with the leaving fiber, the halted thread's handler would
// never run, and the parked thread's only when it ran again (a server's
// SIGTERM handler lost this way left cfa-memcached running under TSan).
//
// One processor: the hook's flag is read on the same kernel thread that
// set it, ordered by the fiber switches.
//
// REQUIRES: tsan
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: halt: 20 signals handled, each before its thread was joined
// CHECK-NEXT: park: 20 signals handled, each while its thread stayed parked
#include "check.h"

#include <cfa/test_hook.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

static _Atomic int handled;

static void on_usr1(int sig) {
    (void)sig;
    atomic_fetch_add(&handled, 1);
}

/* Set by a thread as its last act before it leaves its fiber; the hook at
 * that switch sends the signal. A plain variable: an atomic operation would
 * itself run pending handlers. */
static int signal_at_switch;

static long raw_syscall3(long nr, long a, long b, long c) {
    long r;
    __asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return r;
}

void cfa_test_hook(enum cfa_test_step step) {
    if (step != CFA_STEP_FIBER_SWITCH || !signal_at_switch)
        return;
    signal_at_switch = 0;
    raw_syscall3(SYS_tgkill, raw_syscall3(SYS_getpid, 0, 0, 0), raw_syscall3(SYS_gettid, 0, 0, 0), SIGUSR1);
}

static void halting_main(void *object) {
    (void)object;
    signal_at_switch = 1;
}

static _Atomic int woken;

static void parking_main(void *object) {
    (void)object;
    signal_at_switch = 1;
    cfa_park();
    atomic_store(&woken, 1);
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
            CHECK(atomic_load(&handled) == before + 1, "round %d: the halted thread's signal was not handled", i);
            cfa_thread_destroy(&t);
        }
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
    }
    return 0;
}
