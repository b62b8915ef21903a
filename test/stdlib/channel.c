// Channels, functional, through the typed .hfa API used from C: a
// rendezvous completes only with a receiver; a bounded buffer holds
// exactly its capacity and a blocked sender's value joins the tail in FIFO
// order; an unbounded buffer grows across a wrapped ring; values larger
// than a register are copied whole; close lets receivers drain and then
// report the close, wakes blocked receivers, and makes try_send fail.
//
// RUN: %std-cc %s -o %t %std-link
// RUN: %timeout %t | FileCheck %s
// CHECK: rendezvous ok
// CHECK-NEXT: bounded ok
// CHECK-NEXT: unbounded ok
// CHECK-NEXT: big values ok
// CHECK-NEXT: close ok
// CHECK-NEXT: many senders ok
#include "tasks.h"

#include <cfa/channel.hfa>

channel_type(Ints, int);
struct Big { long a[5]; };
channel_type(Bigs, struct Big);

static bool blocked(struct task *t) {
    return atomic_load(&t->thread.state) == CFA_THREAD_BLOCKED;
}

/* ---- rendezvous ---- */
struct sender_arg { Ints *c; int first, count; _Atomic int sent; };
static void sender(void *p) {
    struct sender_arg *a = p;
    for (int i = 0; i < a->count; i++) {
        send(a->c, a->first + i);
        atomic_fetch_add(&a->sent, 1);
    }
}

static void rendezvous(void) {
    Ints c;
    init(&c, 0);
    CHECK_EQ(capacity(&c), 0);
    CHECK_EQ(try_send(&c, 1), CHANNEL_WOULD_BLOCK);
    int v = -1;
    CHECK_EQ(try_recv(&c, &v), CHANNEL_WOULD_BLOCK);
    struct sender_arg a = { &c, 10, 3, 0 };
    struct task *t = task_spawn(sender, &a, "sender");
    YIELD_UNTIL(blocked(t));
    CHECK_EQ(atomic_load(&a.sent), 0);         /* nobody took the value yet */
    CHECK_EQ(length(&c), 0);                   /* and it is not buffered */
    CHECK_EQ(recv(&c), 10);
    CHECK_EQ(try_recv(&c, &v), CHANNEL_WOULD_BLOCK); /* the sender has not sent again yet... */
    YIELD_UNTIL(blocked(t) || atomic_load(&a.sent) == 3);
    CHECK(recv(&c, &v) && v == 11, "v = %d", v);
    CHECK_EQ(recv(&c), 12);
    task_join(t);
    CHECK_EQ(atomic_load(&a.sent), 3);
    destroy(&c);
    printf("rendezvous ok\n");
}

/* ---- bounded ---- */
static void bounded(void) {
    Ints c;
    init(&c, 4);
    for (int i = 0; i < 4; i++) CHECK_EQ(try_send(&c, i), CHANNEL_OK);
    CHECK_EQ(try_send(&c, 99), CHANNEL_WOULD_BLOCK);
    CHECK_EQ(length(&c), 4);
    struct sender_arg a = { &c, 100, 2, 0 };
    struct task *t = task_spawn(sender, &a, "sender");
    YIELD_UNTIL(blocked(t));
    CHECK_EQ(atomic_load(&a.sent), 0);
    CHECK_EQ(recv(&c), 0);                     /* frees a slot: 100 moves in */
    YIELD_UNTIL(blocked(t));                   /* now blocked on 101 */
    CHECK_EQ(atomic_load(&a.sent), 1);
    CHECK_EQ(length(&c), 4);
    int expect[] = { 1, 2, 3, 100, 101 };
    for (int i = 0; i < 5; i++) CHECK_EQ(recv(&c), expect[i]);
    task_join(t);
    CHECK_EQ(length(&c), 0);
    /* wrap the ring many times, against a shadow FIFO */
    int shadow[8], in = 0, out = 0;
    for (int i = 0; i < 1000; i++) {
        send(&c, i);
        shadow[in++ % 8] = i;
        if (i % 3 == 0) {
            send(&c, -i);
            shadow[in++ % 8] = -i;
        }
        while (in - out > 1) CHECK_EQ(recv(&c), shadow[out++ % 8]);
        CHECK_EQ(length(&c), in - out);
    }
    while (out < in) CHECK_EQ(recv(&c), shadow[out++ % 8]);
    destroy(&c);
    printf("bounded ok\n");
}

/* ---- unbounded ---- */
static void unbounded(void) {
    Ints c;
    init(&c, CHANNEL_UNBOUNDED);
    CHECK(capacity(&c) == CHANNEL_UNBOUNDED, "capacity");
    int next_in = 0, next_out = 0;
    for (int i = 0; i < 10; i++) send(&c, next_in++);
    for (int i = 0; i < 5; i++) CHECK_EQ(recv(&c), next_out++);  /* head in the middle */
    for (int i = 0; i < 10000; i++) CHECK_EQ(try_send(&c, next_in++), CHANNEL_OK);
    CHECK_EQ(length(&c), next_in - next_out);
    while (next_out < next_in) CHECK_EQ(recv(&c), next_out++);
    CHECK_EQ(length(&c), 0);
    destroy(&c);
    printf("unbounded ok\n");
}

/* ---- values larger than 16 bytes ---- */
static struct Big big(long k) { return (struct Big){ { k, k + 1, k + 2, k + 3, k + 4 } }; }
struct big_arg { Bigs *c; };
static void big_sender(void *p) {
    Bigs *c = ((struct big_arg *)p)->c;
    for (long k = 0; k < 100; k++) send(c, big(k * 10));
}
static void big_values(void) {
    for (size_t cap = 0; cap <= 3; cap += 3) {
        Bigs c;
        init(&c, cap);
        struct big_arg a = { &c };
        struct task *t = task_spawn(big_sender, &a, "big sender");
        for (long k = 0; k < 100; k++) {
            struct Big b = recv(&c), e = big(k * 10);
            CHECK(memcmp(&b, &e, sizeof b) == 0, "value %ld differs", k);
        }
        task_join(t);
        destroy(&c);
    }
    printf("big values ok\n");
}

/* ---- close ---- */
struct receiver_arg { Ints *c; int got; _Atomic int saw_close; };
static void receiver(void *p) {
    struct receiver_arg *a = p;
    int v;
    while (recv(a->c, &v)) a->got++;
    atomic_store(&a->saw_close, 1);
}
static void closing(void) {
    Ints c;
    init(&c, 8);
    for (int i = 0; i < 3; i++) send(&c, i);
    close(&c);
    CHECK(is_closed(&c), "closed");
    CHECK_EQ(try_send(&c, 5), CHANNEL_CLOSED);
    int v;
    for (int i = 0; i < 3; i++) CHECK(recv(&c, &v) && v == i, "drain %d", i);
    v = -7;
    CHECK(!recv(&c, &v) && v == -7, "closed recv must not touch v");
    CHECK_EQ(try_recv(&c, &v), CHANNEL_CLOSED);
    destroy(&c);

    /* blocked receivers (rendezvous and buffered) wake up on close */
    for (size_t cap = 0; cap <= 8; cap += 8) {
        init(&c, cap);
        struct receiver_arg r[3] = { { &c, 0, 0 }, { &c, 0, 0 }, { &c, 0, 0 } };
        struct task *t[3];
        for (int i = 0; i < 3; i++) t[i] = task_spawn(receiver, &r[i], "receiver");
        for (int i = 0; i < 3; i++) YIELD_UNTIL(blocked(t[i]));
        send(&c, 1);
        send(&c, 2);
        for (int i = 0; i < 3; i++) if (!blocked(t[i])) cfa_yield();
        close(&c);
        int total = 0;
        for (int i = 0; i < 3; i++) {
            task_join(t[i]);
            CHECK_EQ(atomic_load(&r[i].saw_close), 1);
            total += r[i].got;
        }
        CHECK_EQ(total, 2);
        destroy(&c);
    }
    printf("close ok\n");
}

/* ---- several senders, one receiver, every capacity kind ---- */
static void many_senders(void) {
    size_t caps[] = { 0, 1, 7, CHANNEL_UNBOUNDED };
    for (int k = 0; k < 4; k++) {
        Ints c;
        init(&c, caps[k]);
        struct sender_arg a[4];
        struct task *t[4];
        for (int i = 0; i < 4; i++) {
            a[i] = (struct sender_arg){ &c, i * 1000, 1000, 0 };
            t[i] = task_spawn(sender, &a[i], "sender");
        }
        int last[4] = { -1, -1, -1, -1 };
        for (int n = 0; n < 4000; n++) {
            int v = recv(&c), s = v / 1000;
            CHECK(s >= 0 && s < 4 && v % 1000 > last[s], "value %d out of order", v);
            last[s] = v % 1000;
        }
        for (int i = 0; i < 4; i++) task_join(t[i]);
        for (int i = 0; i < 4; i++) CHECK_EQ(last[i], 999);
        destroy(&c);
    }
    printf("many senders ok\n");
}

int main(void) {
    rendezvous();
    bounded();
    unbounded();
    big_values();
    closing();
    many_senders();
    return 0;
}
