// waituntil under load on 2 processors: 4 producers send 200,000 values into
// a rendezvous channel and an 8-slot channel with plain sends, two-clause
// waituntils and timed one-clause waituntils (timeouts race the claims); 4
// consumers take them with waituntils on both channels plus a future that is
// never fulfilled, timed waituntils and try_recv, until both channels are
// closed. Every value is received exactly once, every consumer ends with
// WAITUNTIL_CLOSED, and no waiter record is left in any queue. Then rounds
// where getters wait on a future and a channel while a fulfiller and a
// closer race: each getter gets the value or sees the close, never neither.
// Arguments: repeat count, values.
//
// RUN: %std-cc %s -o %t %std-link
// RUN: %timeout %t %stress 200000 | FileCheck %s
// CHECK: 200000 values through waituntil, each received once ok
// CHECK-NEXT: 1000 fulfil/close races ok
#include "tasks.h"

#include <cfa/channel.hfa>
#include <cfa/future.hfa>

channel_type(Longs, long);
future_type(Flag, int);

enum { PRODUCERS = 4, CONSUMERS = 4 };
static Longs        a, b;
static Flag         never;
static long         per_producer;
static _Atomic char *seen;
static _Atomic long timeouts;

static void producer(void *p) {
    long id = (long)(intptr_t)p;
    for (long i = 0; i < per_producer; i++) {
        long v = id * per_producer + i;
        switch (i % 4) {
        case 0: send(i % 8 ? &b : &a, v); break;
        case 1:
        case 2: CHECK(waituntil(on_send(&a, &v), on_send(&b, &v)) >= 0, "send clause"); break;
        case 3:
            while (waituntil_for(us(20), on_send(&a, &v)) == WAITUNTIL_TIMEOUT)
                atomic_fetch_add(&timeouts, 1);
            break;
        }
    }
}

static void take(long v) {
    CHECK(v >= 0 && v < PRODUCERS * per_producer, "value %ld", v);
    CHECK(atomic_fetch_add(&seen[v], 1) == 0, "value %ld received twice", v);
}

static void consumer(void *unused) {
    long x, y;
    int  ready;
    for (long n = 0;; n++) {
        if (n % 5 == 4 && try_recv(&b, &x) == CHANNEL_OK) {
            take(x);
            continue;
        }
        if (n % 3 == 2)
            ready = waituntil_for(us(30), on_recv(&a, &x), on_recv(&b, &y), on_ready(&never));
        else
            ready = waituntil(on_recv(&b, &y), on_recv(&a, &x));
        if (ready == WAITUNTIL_TIMEOUT) {
            atomic_fetch_add(&timeouts, 1);
            continue;
        }
        if (ready == WAITUNTIL_CLOSED) {
            CHECK_EQ(atomic_load(&cfa_active_thread()->ticket), 0);   /* no stray permit */
            return;
        }
        bool from_a = n % 3 == 2 ? ready == 0 : ready == 1;
        CHECK(n % 3 != 2 || ready != 2, "the never-fulfilled future fired");
        take(from_a ? x : y);
    }
}

/* ---- fulfil/close races ---- */
static Flag  go;
static Longs stop;
static _Atomic int got_value, saw_close;
static void racer_getter(void *unused) {
    int  v = 0;
    long x;
    int  r = waituntil(on_get(&go, &v), on_recv(&stop, &x));
    if (r == 0) {
        CHECK_EQ(v, 5);
        atomic_fetch_add(&got_value, 1);
    } else {
        CHECK_EQ(r, WAITUNTIL_CLOSED);           /* stop never carries a value */
        atomic_fetch_add(&saw_close, 1);
    }
}
static void racer_fulfil(void *unused) { fulfil(&go, 5); }
static void racer_close(void *unused) { close(&stop); }

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    long values = arg_long(argc, argv, 2, 200000);
    per_producer = values / PRODUCERS;
    values = per_producer * PRODUCERS;
    seen = calloc(values, 1);
    struct extra_procs procs;
    procs_start(&procs, 2);
    for (long r = 0; r < reps; r++) {
        memset((void *)seen, 0, values);
        init(&a, 0);
        init(&b, 8);
        struct task *tp[PRODUCERS], *tc[CONSUMERS];
        for (int i = 0; i < CONSUMERS; i++) tc[i] = task_spawn(consumer, NULL, "consumer");
        for (int i = 0; i < PRODUCERS; i++) tp[i] = task_spawn(producer, (void *)(intptr_t)i, "producer");
        for (int i = 0; i < PRODUCERS; i++) task_join(tp[i]);
        close(&a);
        close(&b);
        for (int i = 0; i < CONSUMERS; i++) task_join(tc[i]);
        for (long v = 0; v < values; v++) CHECK(seen[v] == 1, "value %ld received %d times", v, seen[v]);
        CHECK(!a.__chan.senders.head && !a.__chan.receivers.head && !b.__chan.senders.head &&
              !b.__chan.receivers.head && !never.__fut.waiters.head, "a waiter record was left");
        destroy(&a);
        destroy(&b);

        for (int round = 0; round < 1000; round++) {
            init(&stop, 0);
            reset(&go);
            atomic_store(&got_value, 0);
            atomic_store(&saw_close, 0);
            struct task *g[3], *f, *c;
            for (int i = 0; i < 3; i++) g[i] = task_spawn(racer_getter, NULL, "getter");
            if (round % 2) {
                f = task_spawn(racer_fulfil, NULL, "fulfiller");
                c = task_spawn(racer_close, NULL, "closer");
            } else {
                c = task_spawn(racer_close, NULL, "closer");
                f = task_spawn(racer_fulfil, NULL, "fulfiller");
            }
            for (int i = 0; i < 3; i++) task_join(g[i]);
            task_join(f);
            task_join(c);
            CHECK_EQ(atomic_load(&got_value) + atomic_load(&saw_close), 3);
            CHECK(!go.__fut.waiters.head && !stop.__chan.receivers.head, "a waiter record was left");
            destroy(&stop);
        }
    }
    procs_stop(&procs);
    printf("%ld values through waituntil, each received once ok\n", values);
    printf("1000 fulfil/close races ok\n");
    free((void *)seen);
    return 0;
}
