// waituntil, functional: a ready clause fires at once; a blocked waituntil
// fires on the first arrival and leaves no record in the other queues;
// send clauses, future clauses, two waituntils matching each other, one
// channel in a send and a receive clause; timeouts and polls; receive
// clauses on closed channels are disabled (a close wakes a blocked
// waituntil to look again) and WAITUNTIL_CLOSED once none is left; when
// several clauses are ready every one gets its turn.
//
// RUN: %std-cc %s -o %t %std-link
// RUN: %timeout %t | FileCheck %s
// CHECK: ready ok
// CHECK-NEXT: blocking ok
// CHECK-NEXT: send clauses ok
// CHECK-NEXT: futures ok
// CHECK-NEXT: waituntil meets waituntil ok
// CHECK-NEXT: timeouts ok
// CHECK-NEXT: closed ok
// CHECK-NEXT: fair ok
#include "tasks.h"

#include <cfa/channel.hfa>
#include <cfa/future.hfa>

channel_type(Ints, int);
channel_type(Doubles, double);
future_type(Answer, long);

static bool blocked(struct task *t) { return atomic_load(&t->thread.state) == CFA_THREAD_BLOCKED; }
static bool no_waiters(Ints *c) { return !c->__chan.senders.head && !c->__chan.receivers.head; }

static void ready(void) {
    Ints a, b;
    init(&a, 1);
    init(&b, 1);
    send(&b, 7);
    int x = 0, y = 0;
    CHECK_EQ(waituntil(on_recv(&a, &x), on_recv(&b, &y)), 1);
    CHECK_EQ(y, 7);
    CHECK_EQ(x, 0);
    CHECK_EQ(waituntil_for(s(0), on_recv(&a, &x), on_recv(&b, &y)), WAITUNTIL_TIMEOUT);
    destroy(&a);
    destroy(&b);
    printf("ready ok\n");
}

/* ---- blocking: the last clause's channel is served by another thread ---- */
static Ints  ch[3];
static Doubles dch;
static void send_to_2(void *unused) { send(&ch[2], 42); }
static void send_double(void *unused) { send(&dch, 2.5); }
static void blocking(void) {
    for (int i = 0; i < 3; i++) init(&ch[i], i);      /* capacities 0, 1, 2 */
    init(&dch, 0);
    int v[3] = { 0, 0, 0 };
    double d = 0;
    struct task *t = task_spawn(send_to_2, NULL, "sender");
    CHECK_EQ(waituntil(on_recv(&ch[0], &v[0]), on_recv(&ch[1], &v[1]), on_recv(&ch[2], &v[2]),
                       on_recv(&dch, &d)), 2);
    CHECK_EQ(v[2], 42);
    task_join(t);
    for (int i = 0; i < 3; i++) CHECK(no_waiters(&ch[i]), "a waiter left in channel %d", i);
    t = task_spawn(send_double, NULL, "sender");
    CHECK_EQ(waituntil(on_recv(&ch[0], &v[0]), on_recv(&dch, &d)), 1);
    CHECK(d == 2.5, "d = %g", d);
    task_join(t);
    for (int i = 0; i < 3; i++) destroy(&ch[i]);
    destroy(&dch);
    printf("blocking ok\n");
}

/* ---- send clauses ---- */
static Ints sc;
static int  received;
static void recv_one(void *unused) { received = recv(&sc); }
static void send_clauses(void) {
    Ints full;
    init(&full, 1);
    send(&full, 0);
    init(&sc, 0);
    struct task *t = task_spawn(recv_one, NULL, "receiver");
    YIELD_UNTIL(blocked(t));
    int a = 5, b = 6;
    CHECK_EQ(waituntil(on_send(&full, &a), on_send(&sc, &b)), 1); /* full cannot take it */
    task_join(t);
    CHECK_EQ(received, 6);
    /* one channel in both a send and a receive clause: only the send can go */
    Ints one;
    init(&one, 1);
    int in = 9, out = 0;
    CHECK_EQ(waituntil(on_recv(&one, &out), on_send(&one, &in)), 1);
    CHECK_EQ(waituntil(on_recv(&one, &out), on_send(&one, &in)), 0);
    CHECK_EQ(out, 9);
    destroy(&one);
    destroy(&full);
    destroy(&sc);
    printf("send clauses ok\n");
}

/* ---- futures ---- */
static Answer ans;
static void answer(void *unused) { fulfil(&ans, 4242); }
static void futures(void) {
    Ints c;
    init(&c, 0);
    long v = 0;
    int  x;
    struct task *t = task_spawn(answer, NULL, "answerer");
    CHECK_EQ(waituntil(on_recv(&c, &x), on_get(&ans, &v)), 1);
    CHECK_EQ(v, 4242);
    task_join(t);
    CHECK_EQ(waituntil(on_ready(&ans)), 0);                  /* fulfilled: at once */
    reset(&ans);
    t = task_spawn(answer, NULL, "answerer");
    CHECK_EQ(waituntil(on_ready(&ans), on_recv(&c, &x)), 0);
    CHECK_EQ(get(&ans), 4242);
    task_join(t);
    CHECK(!ans.__fut.waiters.head, "a waiter left in the future");
    destroy(&c);
    printf("futures ok\n");
}

/* ---- a waituntil send meets a waituntil receive (both blocked forms) ---- */
static Ints meet, other, spare;   /* the sender offers meet and spare, the receiver takes other or meet */
static void meet_sender(void *unused) {
    int v = 77;
    CHECK_EQ(waituntil(on_send(&spare, &v), on_send(&meet, &v)), 1);
}
static void waituntil_meets_waituntil(void) {
    init(&meet, 0);
    init(&other, 0);
    init(&spare, 0);
    for (int round = 0; round < 2; round++) {
        int v = 0, w = 0;
        struct task *t = task_spawn(meet_sender, NULL, "select sender");
        if (round == 0) YIELD_UNTIL(blocked(t));            /* the sender is queued first */
        CHECK_EQ(waituntil(on_recv(&other, &w), on_recv(&meet, &v)), 1);
        CHECK_EQ(v, 77);
        task_join(t);
        CHECK(no_waiters(&meet) && no_waiters(&other) && no_waiters(&spare), "waiters left");
    }
    destroy(&meet);
    destroy(&other);
    destroy(&spare);
    printf("waituntil meets waituntil ok\n");
}

/* ---- timeouts ---- */
static void timeouts(void) {
    Ints c;
    init(&c, 0);
    int x;
    double t0 = now_seconds();
    CHECK_EQ(waituntil_for(ms(20), on_recv(&c, &x)), WAITUNTIL_TIMEOUT);
    double dt = now_seconds() - t0;
    CHECK(dt >= 0.019, "timed out after %g s", dt);
    CHECK(no_waiters(&c), "a timed-out waiter left");
    t0 = now_seconds();
    CHECK_EQ(waituntil_for(ms(-5), on_recv(&c, &x)), WAITUNTIL_TIMEOUT);  /* a poll */
    CHECK(now_seconds() - t0 < 0.5, "a poll blocked");
    /* a value that arrives before the timeout wins (even the longest timeout) */
    struct task *t = task_spawn(send_to_2, NULL, "sender");
    init(&ch[2], 0);
    CHECK_EQ(waituntil_for(ns(INT64_MAX), on_recv(&c, &x), on_recv(&ch[2], &x)), 1);
    CHECK_EQ(x, 42);
    task_join(t);
    destroy(&ch[2]);
    destroy(&c);
    printf("timeouts ok\n");
}

/* ---- closed channels ---- */
static Ints a_c, b_c;
static void close_a_then_send_b(void *unused) {
    close(&a_c);
    cfa_yield();
    send(&b_c, 3);
    close(&b_c);
}
static void closed(void) {
    init(&a_c, 4);
    init(&b_c, 0);
    int x = 0, y = 0, fired[2] = { 0, 0 }, r;
    send(&a_c, 1);
    struct task *t = task_spawn(close_a_then_send_b, NULL, "closer");
    while ((r = waituntil(on_recv(&a_c, &x), on_recv(&b_c, &y))) >= 0) fired[r]++;
    CHECK_EQ(r, WAITUNTIL_CLOSED);
    CHECK_EQ(fired[0], 1);     /* the buffered value drains first... */
    CHECK_EQ(fired[1], 1);     /* ...and b still delivers after a closed */
    CHECK_EQ(x, 1);
    CHECK_EQ(y, 3);
    task_join(t);
    CHECK_EQ(waituntil_for(s(1), on_recv(&a_c, &x)), WAITUNTIL_CLOSED);  /* not a timeout */
    destroy(&a_c);
    destroy(&b_c);
    printf("closed ok\n");
}

/* ---- fairness among ready clauses ---- */
static void fair(void) {
    Ints p, q;
    init(&p, 1);
    init(&q, 1);
    int fired[2] = { 0, 0 }, x;
    for (int i = 0; i < 2000; i++) {
        if (length(&p) == 0) send(&p, 1);
        if (length(&q) == 0) send(&q, 2);
        fired[waituntil(on_recv(&p, &x), on_recv(&q, &x))]++;
    }
    CHECK(fired[0] > 600 && fired[1] > 600, "fired %d and %d times", fired[0], fired[1]);
    destroy(&p);
    destroy(&q);
    printf("fair ok\n");
}

int main(void) {
    ready();
    blocking();
    send_clauses();
    futures();
    waituntil_meets_waituntil();
    timeouts();
    closed();
    fair();
    return 0;
}
