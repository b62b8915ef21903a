// waitfor under stray wake-ups: an acceptor loops on waitfor(call) inside
// a mutex function while a pest thread on the other processor unparks it
// at random moments (a spare permit is legal: every park re-checks its
// condition). waitfor must return only once the accepted call has left the
// monitor, so the acceptor never runs inside it beside a caller. Bug this
// catches: the caller claims the accept, then counts the acceptor's claim
// to get the monitor back; an acceptor woken between the two returned with
// that claim still queued on its stack (a later release then wrote through
// it). Checked: no overlap, every call counted, and (in cfa_waitfor) that
// the acceptor still owns the monitor. One caller, so that the acceptor
// usually waits before the call arrives (the path with the window). The
// window is a few instructions: with a 2,000-iteration delay put into it,
// this test failed 2 runs of 3 on the old code; without, it rarely hits it
// (test/run/readers_writer.cfa under TSan did, 1 run in about 10).
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: accepted 20000 calls, overlaps 0
#include "mutex_call.h"

enum { CALLS = 20000, CALLERS = 1 };

struct desk { int inside; long calls, overlaps; _Atomic int serving, done, pest_gone; struct cfa_monitor mon; };

static void call(struct desk *d) {
    MUTEX_CALL(call, &d->mon);
    if (d->inside++) d->overlaps++;
    cfa_yield(); /* stay inside a while: an escaped acceptor would meet us */
    d->calls++;
    d->inside--;
}

static void serve(struct desk *d) {
    MUTEX_CALL(serve, &d->mon);
    atomic_store(&d->serving, 1); /* from here every call needs an accept */
    for (int i = 0; i < CALLS; i++) {
        struct cfa_waitfor_clause c[] = { WAITFOR_CLAUSE(call, &d->mon) };
        CHECK_EQ(cfa_waitfor(c, 1, -1, false), 0);
        if (d->inside) d->overlaps++;
    }
}

struct acceptor { struct desk *d; struct cfa_thread thread; };
static void acceptor_main(void *o) {
    struct acceptor *a = o;
    serve(a->d);
    atomic_store(&a->d->done, 1);
    while (!atomic_load(&a->d->pest_gone)) cfa_yield(); /* unparked only while alive */
}

struct caller { struct desk *d; struct cfa_thread thread; };
static void caller_main(void *o) {
    struct caller *c = o;
    /* A call before the acceptor holds the monitor would enter freely,
     * and the acceptor would wait for one call too many. */
    while (!atomic_load(&c->d->serving)) cfa_yield();
    for (int i = 0; i < CALLS / CALLERS; i++) call(c->d);
}

struct pest { struct acceptor *target; unsigned seed; struct cfa_thread thread; };
static void pest_main(void *o) {
    struct pest *p = o;
    while (!atomic_load(&p->target->d->done)) {
        p->seed = p->seed * 1103515245u + 12345u;
        for (unsigned k = (p->seed >> 16) % 64; k > 0; k--) cfa_yield();
        cfa_unpark(&p->target->thread);
    }
    atomic_store(&p->target->d->pest_gone, 1);
}

int main(int argc, char **argv) {
    long repeat = repeat_count(argc, argv);
    struct cfa_processor second = {0};
    cfa_processor_start(&second);
    for (long r = 0; r < repeat; r++) {
        struct desk d = {0};
        struct acceptor a = { &d };
        struct pest p = { &a, (unsigned)r + 1 };
        struct caller c[CALLERS];
        cfa_thread_start(&a.thread, acceptor_main, &a, "Acceptor", 0);
        cfa_thread_start(&p.thread, pest_main, &p, "Pest", 0);
        for (int i = 0; i < CALLERS; i++) {
            c[i] = (struct caller){ &d };
            cfa_thread_start(&c[i].thread, caller_main, &c[i], "Caller", 0);
        }
        for (int i = CALLERS - 1; i >= 0; i--) cfa_thread_destroy(&c[i].thread);
        cfa_thread_destroy(&a.thread);
        cfa_thread_destroy(&p.thread);
        CHECK_EQ(d.calls, CALLS);
        CHECK_EQ(d.overlaps, 0);
        if (r == 0) printf("accepted %ld calls, overlaps %ld\n", d.calls, d.overlaps);
    }
    cfa_processor_stop(&second);
    return 0;
}
