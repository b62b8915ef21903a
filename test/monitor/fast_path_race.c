// The lock-free paths of a mutex call race with waiters: short mutex
// calls (no yield inside) on two processors, so that a thread queues
// while the owner lets go (the owner's subtraction then leaves the monitor
// "free but queued" and hands it over under the lock). Mixed with
// re-entrant calls and two-monitor calls, whose order differs by caller.
// Invariants: never two threads inside one monitor; every call counted;
// every monitor free (owner word exactly 0) at the end.
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: calls 240000 pairs 48000 nested 34288 overlaps 0
#include "counters.h"

enum { WORKERS = 4, ROUNDS = 60000 };

static void bump(struct counter *c, bool nest);

static void nested(struct counter *c) {
    MUTEX_CALL(nested, &c->mon);
    c->nested++; /* re-entrant: the caller holds c */
}

static void bump(struct counter *c, bool nest) {
    MUTEX_CALL(bump, &c->mon);
    enter_check(c);
    c->calls++;
    if (nest)
        nested(c);
    c->inside--;
}

struct worker { int id; struct cfa_thread thread; };
static void worker_main(void *object) {
    struct worker *w = object;
    for (int i = 0; i < ROUNDS; i++) {
        bump(i % 2 ? &a : &b, i % 7 == 0);
        if (i % 5 == 0)
            (w->id % 2) ? pair(&a, &b) : pair(&b, &a);
    }
}

int main(int argc, char **argv) {
    long repeat = repeat_count(argc, argv);
    for (long r = 0; r < repeat; r++) {
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        overlaps = 0;
        struct cfa_processor p = {0};
        cfa_processor_start(&p);
        struct worker workers[WORKERS] = {0};
        for (int i = 0; i < WORKERS; i++) {
            workers[i].id = i;
            cfa_thread_start(&workers[i].thread, worker_main, &workers[i], "Worker", 0);
        }
        for (int i = 0; i < WORKERS; i++) cfa_thread_destroy(&workers[i].thread);
        cfa_processor_stop(&p);
        CHECK_EQ(atomic_load(&a.mon.owner), 0);
        CHECK_EQ(atomic_load(&b.mon.owner), 0);
        CHECK_EQ(a.calls + b.calls, (long)WORKERS * ROUNDS);
        if (r == 0)
            printf("calls %ld pairs %ld nested %ld overlaps %ld\n", a.calls + b.calls,
                   a.pairs + b.pairs, a.nested + b.nested, (long)overlaps);
    }
    return 0;
}
