// Channels under load on 2 processors: 8 senders and 8 receivers share one
// channel and move 1,000,000 values; every value sent is received exactly
// once, each receiver sees each sender's values in increasing order (FIFO),
// after close every receiver ends, and no thread is left with a park
// permit (each wake-up is consumed by the wait it was for). Run for a rendezvous, a bounded and
// an unbounded channel. Arguments: repeat count, capacity ("unbounded" or a
// number), values.
//
// RUN: %std-cc %s -o %t %std-link
// RUN: %timeout %t %stress 0 1000000 | FileCheck %s --check-prefix=RENDEZVOUS
// RUN: %timeout %t %stress 64 1000000 | FileCheck %s --check-prefix=BOUNDED
// RUN: %timeout %t %stress unbounded 1000000 | FileCheck %s --check-prefix=UNBOUNDED
// RENDEZVOUS: capacity 0: 1000000 values, 8 senders, 8 receivers, each received once ok
// BOUNDED: capacity 64: 1000000 values, 8 senders, 8 receivers, each received once ok
// UNBOUNDED: capacity unbounded: 1000000 values, 8 senders, 8 receivers, each received once ok
#include "tasks.h"

#include <cfa/channel.hfa>

channel_type(Longs, long);

enum { SENDERS = 8, RECEIVERS = 8 };

static Longs        chan;
static long         per_sender;
static _Atomic char *seen;

struct sender { long id; };
static void sender_main(void *p) {
    long id = ((struct sender *)p)->id;
    for (long i = 0; i < per_sender; i++) send(&chan, id * per_sender + i);
    CHECK_EQ(atomic_load(&cfa_active_thread()->ticket), 0);   /* no stray permit left */
}

struct receiver { long got; };
static void receiver_main(void *p) {
    struct receiver *r = p;
    long last[SENDERS];
    for (int s = 0; s < SENDERS; s++) last[s] = -1;
    long v;
    while (recv(&chan, &v)) {
        CHECK(v >= 0 && v < SENDERS * per_sender, "value %ld out of range", v);
        long s = v / per_sender, i = v % per_sender;
        CHECK(i > last[s], "sender %ld: %ld after %ld", s, i, last[s]);
        last[s] = i;
        CHECK(atomic_fetch_add(&seen[v], 1) == 0, "value %ld received twice", v);
        r->got++;
    }
    CHECK_EQ(atomic_load(&cfa_active_thread()->ticket), 0);   /* no stray permit left */
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    const char *cap_arg = argc > 2 ? argv[2] : "64";
    size_t capacity = strcmp(cap_arg, "unbounded") == 0 ? CHANNEL_UNBOUNDED : (size_t)atol(cap_arg);
    long values = arg_long(argc, argv, 3, 1000000);
    per_sender = values / SENDERS;
    values = per_sender * SENDERS;
    seen = calloc(values, 1);
    CHECK(seen != NULL, "out of memory");

    struct extra_procs procs;
    procs_start(&procs, 2);
    for (long r = 0; r < reps; r++) {
        memset((void *)seen, 0, values);
        init(&chan, capacity);
        struct sender   s[SENDERS];
        struct receiver rc[RECEIVERS];
        struct task    *ts[SENDERS], *tr[RECEIVERS];
        for (int i = 0; i < RECEIVERS; i++) {
            rc[i].got = 0;
            tr[i] = task_spawn(receiver_main, &rc[i], "receiver");
        }
        for (int i = 0; i < SENDERS; i++) {
            s[i].id = i;
            ts[i] = task_spawn(sender_main, &s[i], "sender");
        }
        for (int i = 0; i < SENDERS; i++) task_join(ts[i]);
        close(&chan);
        long total = 0;
        for (int i = 0; i < RECEIVERS; i++) {
            task_join(tr[i]);
            total += rc[i].got;
        }
        CHECK_EQ(total, values);
        for (long v = 0; v < values; v++) CHECK(seen[v] == 1, "value %ld received %d times", v, seen[v]);
        CHECK_EQ(length(&chan), 0);
        destroy(&chan);
    }
    procs_stop(&procs);
    printf("capacity %s: %ld values, %d senders, %d receivers, each received once ok\n", cap_arg,
           values, SENDERS, RECEIVERS);
    free((void *)seen);
    return 0;
}
