// Internal scheduling: a bounded buffer with two conditions, 3 producers
// and 2 consumers on 2 processors. Every value is received exactly once;
// the count never leaves [0, SIZE].
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: received 30000 distinct values, sum 3150015000
#include "mutex_call.h"

enum { SIZE = 4, PRODUCERS = 3, PER_PRODUCER = 10000 };
struct buffer {
    int items[SIZE];
    int front, back, count;
    struct cfa_condition not_full, not_empty;
    struct cfa_monitor mon;
};
static struct buffer buf;

static void put(struct buffer *b, int v) {
    MUTEX_CALL(put, &b->mon);
    while (b->count == SIZE) cfa_wait(&b->not_full, 0);
    CHECK(b->count >= 0 && b->count < SIZE, "count %d", b->count);
    b->items[b->back] = v;
    b->back = (b->back + 1) % SIZE;
    b->count++;
    cfa_signal(&b->not_empty);
}

static int take(struct buffer *b) {
    MUTEX_CALL(take, &b->mon);
    while (b->count == 0) cfa_wait(&b->not_empty, 0);
    CHECK(b->count > 0 && b->count <= SIZE, "count %d", b->count);
    int v = b->items[b->front];
    b->front = (b->front + 1) % SIZE;
    b->count--;
    cfa_signal(&b->not_full);
    return v;
}

static unsigned char seen[PRODUCERS][PER_PRODUCER + 1];
static _Atomic long total;

struct producer { int base; struct cfa_thread thread; };
static void producer_main(void *object) {
    struct producer *p = object;
    for (int i = 1; i <= PER_PRODUCER; i++) put(&buf, p->base + i);
}

struct consumer { int n; struct cfa_thread thread; };
static void consumer_main(void *object) {
    struct consumer *c = object;
    long sum = 0;
    for (int i = 0; i < c->n; i++) {
        int v = take(&buf);
        int who = v / 100000, k = v % 100000;
        CHECK(who < PRODUCERS && k >= 1 && k <= PER_PRODUCER, "value %d", v);
        CHECK_EQ(seen[who][k], 0); /* only this consumer can have taken it */
        seen[who][k] = 1;
        sum += v;
    }
    atomic_fetch_add(&total, sum);
}

int main(int argc, char **argv) {
    long repeat = repeat_count(argc, argv);
    for (long r = 0; r < repeat; r++) {
        memset(&buf, 0, sizeof buf);
        memset(seen, 0, sizeof seen);
        atomic_store(&total, 0);
        struct cfa_processor p = {0};
        cfa_processor_start(&p);
        struct consumer c[2] = { { .n = 15000 }, { .n = 15000 } };
        struct producer pr[PRODUCERS] = { { 0 }, { 100000 }, { 200000 } };
        for (int i = 0; i < 2; i++) cfa_thread_start(&c[i].thread, consumer_main, &c[i], "Consumer", 0);
        for (int i = 0; i < PRODUCERS; i++) cfa_thread_start(&pr[i].thread, producer_main, &pr[i], "Producer", 0);
        for (int i = PRODUCERS - 1; i >= 0; i--) cfa_thread_destroy(&pr[i].thread);
        for (int i = 1; i >= 0; i--) cfa_thread_destroy(&c[i].thread);
        cfa_processor_stop(&p);
        long distinct = 0;
        for (int w = 0; w < PRODUCERS; w++)
            for (int k = 1; k <= PER_PRODUCER; k++) distinct += seen[w][k];
        CHECK_EQ(distinct, PRODUCERS * PER_PRODUCER);
        CHECK(cfa_condition_empty(&buf.not_full) && cfa_condition_empty(&buf.not_empty));
        if (r == 0) printf("received %ld distinct values, sum %ld\n", distinct, atomic_load(&total));
    }
    return 0;
}
