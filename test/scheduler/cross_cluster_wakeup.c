// Lost wake-up across clusters (docs/scheduler.md, "Idle sleep", step I5).
// A notifier on the main cluster makes a burst of WORKERS threads of
// cluster B (2 processors, both asleep) ready, one round at a time. One of
// them, the round's spinner, spins without yielding (preemption off) until
// every other worker has checked in; the others check in and park. Only
// the first push of the burst finds a sleeper in `first`; the rest count
// on the processor it woke, which takes one thread: if that is the
// spinner, the others get a processor only if that one passes the wake-up
// on to the other sleeper (I5).
//
// The test hook (cfa/test_hook.h) forces the rare orders: a woken
// processor waits before unregistering (step I4) until the whole burst is
// pushed, so every push but the first finds `first` NULL; every other
// step is delayed or yielded at random. The spinner waits at most LIMIT_S
// seconds: a stall is reported and fails the test, it never hangs.
//
// Invariants: every round, each non-spinner checks in exactly once, for
// that round; the spinner sees all of them; the hook did force the
// coalesced order (forced > 0).
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: env CFA_PREEMPTION_MS=0 %timeout %t %stress 1000 | FileCheck %s
// CHECK: cross-cluster wake-up: 1000 rounds of 8 threads, no stall
#include "sched_test.h"

#include <cfa/test_hook.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

enum { WORKERS = 8, LIMIT_S = 10 };

struct worker {
    int               id;
    long              round;     /* last round checked in */
    struct cfa_thread thread;
};

static struct cfa_cluster b = { .name = "B" };
static struct worker workers[WORKERS];
static struct cfa_thread *notifier;
static _Atomic long round_no;       /* current round; -1: stop */
static _Atomic int spinner;         /* worker spinning this round */
static _Atomic int checked;         /* non-spinners checked in this round */
static _Atomic int burst_done;      /* the notifier pushed the whole round */
static _Atomic long forced;         /* woken processors held until the burst was complete */

/* ---- the test hook ------------------------------------------------------ */

static _Thread_local uint64_t hook_rng;

static uint64_t hook_random(void) {
    if (!hook_rng) hook_rng = (uint64_t)(uintptr_t)&hook_rng ^ 0x9E3779B97F4A7C15ull;
    hook_rng ^= hook_rng << 13; hook_rng ^= hook_rng >> 7; hook_rng ^= hook_rng << 17;
    return hook_rng;
}

static void spin_ns(long ns) {
    double end = now_seconds() + ns * 1e-9;
    while (now_seconds() < end) __builtin_ia32_pause();
}

void cfa_test_hook(enum cfa_test_step step) {
    if (step == CFA_STEP_WOKEN && !atomic_load(&burst_done) && atomic_load(&round_no) >= 0) {
        /* Hold the woken processor off the idle list until the burst is
         * complete (bounded: the notifier may itself be descheduled). */
        double end = now_seconds() + 0.05;
        while (!atomic_load(&burst_done) && now_seconds() < end) __builtin_ia32_pause();
        atomic_fetch_add(&forced, 1);
        return;
    }
    switch (hook_random() % 4) {   /* elsewhere: nothing, a yield, or a short delay */
    case 0: break;
    case 1: sched_yield(); break;
    default: spin_ns((long)(hook_random() % 20000)); break;
    }
}

/* ---- the program ---------------------------------------------------------- */

static void worker_main(void *object) {
    struct worker *w = object;
    cfa_migrate(&b);
    for (;;) {
        cfa_park();
        long r = atomic_load(&round_no);
        if (r < 0) return;
        if (atomic_load(&spinner) == w->id) {
            double end = now_seconds() + LIMIT_S;
            while (atomic_load(&checked) < WORKERS - 1) {
                __builtin_ia32_pause();
                if (now_seconds() > end) {
                    fprintf(stderr, "STALL: round %ld: %d of %d threads made ready from another cluster did not run "
                                    "within %d s while a processor of their cluster slept\n",
                            r, WORKERS - 1 - atomic_load(&checked), WORKERS - 1, LIMIT_S);
                    fflush(stderr);
                    _exit(1);
                }
            }
            w->round = r;
            cfa_unpark(notifier); /* back across clusters */
        } else {
            CHECK(w->round == r - 1, "worker %d checked in for round %ld after round %ld", w->id, r, w->round);
            w->round = r;
            atomic_fetch_add(&checked, 1);
        }
    }
}

static void run(long rounds) {
    cfa_cluster_init(&b);
    struct cfa_processor p[2] = { { .cluster = &b }, { .cluster = &b } };
    for (int i = 0; i < 2; i++) cfa_processor_start(&p[i]);
    notifier = cfa_active_thread();
    atomic_store(&round_no, 0);
    atomic_store(&forced, 0);
    memset(workers, 0, sizeof workers);
    for (int i = 0; i < WORKERS; i++) {
        workers[i].id = i;
        workers[i].round = -1;
        cfa_thread_start(&workers[i].thread, worker_main, &workers[i], "Worker", 0);
    }
    for (long r = 0; r < rounds; r++) {
        int s = (int)(r % WORKERS);
        atomic_store(&checked, 0);
        atomic_store(&spinner, s);
        atomic_store(&burst_done, 0);
        atomic_store(&round_no, r);
        cfa_unpark(&workers[s].thread);           /* the spinner first: its push wakes a sleeper */
        for (int i = 0; i < WORKERS; i++)
            if (i != s) cfa_unpark(&workers[i].thread);
        atomic_store(&burst_done, 1);
        cfa_park();                                /* the spinner's unpark */
        CHECK_EQ(atomic_load(&checked), WORKERS - 1);
        for (int i = 0; i < WORKERS; i++) CHECK_EQ(workers[i].round, r);
    }
    atomic_store(&round_no, -1);
    for (int i = 0; i < WORKERS; i++) cfa_unpark(&workers[i].thread);
    for (int i = 0; i < WORKERS; i++) cfa_thread_destroy(&workers[i].thread);
    CHECK(atomic_load(&forced) > 0, "the hook never held a woken processor: the rare order was not forced");
    for (int i = 0; i < 2; i++) cfa_processor_stop(&p[i]);
    cfa_cluster_destroy(&b);
    REPORT("cross-cluster wake-up: %ld rounds of %d threads, no stall\n", rounds, WORKERS);
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    long rounds = arg_long(argc, argv, 2, 1000);
    CHECK(rounds >= 1);
    for (rep_index = 0; rep_index < reps; rep_index++) run(rounds);
    return 0;
}
