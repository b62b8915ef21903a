// A processor is whole when cfa_processor_start returns, and gone when
// cfa_processor_stop returns, with no trace left on the caller:
//  - start: the new kernel thread has set its I/O up (its io_uring ring is
//    open: one more "anon_inode:[io_uring]" descriptor, counted at once);
//  - stop: the ring is closed;
//  - the caller's park permits are what they were: a permit given before
//    the start survives both waits, and neither wait leaves one behind.
// Each round gives the caller a permit, starts and stops a processor while
// 8 threads yield (the caller sometimes moved onto the processor it
// stops), starts a helper, and parks twice: the first park must return at
// once (the permit from before); the helper sets its flag and unparks
// the caller only after that park (or, the permit lost, after 1 s), and
// the second park must return only then. Stopped, the program has one
// processor again, so the helper runs only when the caller blocks.
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: start/stop 300 rounds: rings counted at once, permits kept ok
#include "check.h"
#include <cfa/sleep.h>
#include <dirent.h>
#include <unistd.h>

enum { ROUNDS = 300, YIELDERS = 8 };

static int count_rings(void) {
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    CHECK(d != NULL);
    for (struct dirent *e; (e = readdir(d));) {
        char path[64], target[64];
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t l = readlink(path, target, sizeof target - 1);
        if (l <= 0) continue;
        target[l] = '\0';
        n += strcmp(target, "anon_inode:[io_uring]") == 0;
    }
    closedir(d);
    return n;
}

static _Atomic int stop_yielding;
static void yielder_main(void *arg) {
    (void)arg;
    while (!atomic_load(&stop_yielding)) cfa_yield();
}

struct waker { struct cfa_thread *target; _Atomic int parked_once, woke; struct cfa_thread thread; };
static void waker_main(void *object) {
    struct waker *w = object;
    int64_t give_up = cfa_clock_ns() + 1000000000;
    while (!atomic_load(&w->parked_once) && cfa_clock_ns() < give_up) cfa_yield();
    atomic_store(&w->woke, 1);
    cfa_unpark(w->target);
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    static struct cfa_thread yielders[YIELDERS];
    int base = count_rings();
    CHECK(base >= 1, "the main processor has no io_uring ring (rings: %d)", base);
    for (long r = 0; r < reps; r++) {
        atomic_store(&stop_yielding, 0);
        for (int i = 0; i < YIELDERS; i++)
            cfa_thread_start(&yielders[i], yielder_main, NULL, "Yielder", 0);
        for (int k = 0; k < ROUNDS; k++) {
            struct cfa_processor p;
            memset(&p, 0, sizeof p);
            cfa_unpark(cfa_this_thread());   /* a permit meant for a later park */
            cfa_processor_start(&p);
            CHECK_EQ(count_rings(), base + 1);
            if (k % 2) cfa_yield();          /* may move onto p, then stop it */
            cfa_processor_stop(&p);
            CHECK_EQ(count_rings(), base);
            struct waker w = { .target = cfa_this_thread() };
            cfa_thread_start(&w.thread, waker_main, &w, "Waker", 0);
            cfa_park();
            CHECK(!atomic_load(&w.woke), "round %d: the permit given before start/stop was lost", k);
            atomic_store(&w.parked_once, 1);
            cfa_park();
            CHECK(atomic_load(&w.woke), "round %d: park returned before the wake-up", k);
            cfa_thread_join(&w.thread);
            cfa_thread_destroy(&w.thread);
        }
        atomic_store(&stop_yielding, 1);
        for (int i = 0; i < YIELDERS; i++) {
            cfa_thread_join(&yielders[i]);
            cfa_thread_destroy(&yielders[i]);
        }
    }
    printf("start/stop %d rounds: rings counted at once, permits kept ok\n", ROUNDS);
    return 0;
}
