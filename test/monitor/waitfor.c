// External scheduling: a server thread whose main loops on waitfor with
// `when` and a timeout and stops on waitfor(stop); waitfor inside a mutex
// function (insert/remove on a buffer); timeout and else on a plain
// monitor; among waiting calls the first clause wins (lexical priority),
// then the oldest call; waitfor(join, this).
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: taken sum 100010000
// CHECK-NEXT: handled 4000 sum 2002000 requests after the limit 0
// CHECK-NEXT: listen: timeout 0, else -1, rings 0
// CHECK-NEXT: lexical priority: 2 1 3
// CHECK-NEXT: join accepted, then main finished: 1 1
#include "mutex_call.h"

/* -- waitfor inside mutex functions ------------------------------------- */
enum { SIZE = 4 };
struct buffer { int items[SIZE]; int front, back, count; struct cfa_monitor mon; };
static struct buffer buf;
static int remove_item(struct buffer *b);
static void insert(struct buffer *b, int v) {
    MUTEX_CALL(insert, &b->mon);
    if (b->count == SIZE) {
        struct cfa_waitfor_clause c[] = { WAITFOR_CLAUSE(remove_item, &b->mon) };
        CHECK_EQ(cfa_waitfor(c, 1, -1, false), 0);
    }
    CHECK(b->count < SIZE);
    b->items[b->back] = v;
    b->back = (b->back + 1) % SIZE;
    b->count++;
}
static int remove_item(struct buffer *b) {
    MUTEX_CALL(remove_item, &b->mon);
    if (b->count == 0) {
        struct cfa_waitfor_clause c[] = { WAITFOR_CLAUSE(insert, &b->mon) };
        CHECK_EQ(cfa_waitfor(c, 1, -1, false), 0);
    }
    CHECK(b->count > 0);
    int v = b->items[b->front];
    b->front = (b->front + 1) % SIZE;
    b->count--;
    return v;
}
struct maker { int n; struct cfa_thread thread; };
static void maker_main(void *o) { struct maker *m = o; for (int i = 1; i <= m->n; i++) insert(&buf, i); }
struct taker { int n; long sum; struct cfa_thread thread; };
static void taker_main(void *o) { struct taker *t = o; for (int i = 0; i < t->n; i++) t->sum += remove_item(&buf); }

/* -- a server thread ---------------------------------------------------- */
struct server { long handled, sum, late; int ticks; bool stopping; struct cfa_thread thread; };
static void request(struct server *s, long v) {
    MUTEX_CALL(request, &s->thread.self_monitor);
    if (s->handled >= 4000) s->late++;   /* `when` must have kept us out */
    s->handled++;
    s->sum += v;
}
static void stop(struct server *s) { MUTEX_CALL(stop, &s->thread.self_monitor); s->stopping = true; }
static void server_main(void *o) {
    struct server *s = o;
    for (;;) {
        struct cfa_waitfor_clause c[2];
        unsigned n = 0;
        c[n++] = WAITFOR_CLAUSE(stop, &s->thread.self_monitor);
        if (s->handled < 4000) c[n++] = WAITFOR_CLAUSE(request, &s->thread.self_monitor);
        int r = cfa_waitfor(c, n, 500 * 1000 * 1000, false);
        if (r == 0) break;
        if (r == CFA_WAITFOR_TIMEOUT) s->ticks++;
    }
    CHECK(s->stopping);
}
struct client { struct server *srv; int n; struct cfa_thread thread; };
static void client_main(void *o) { struct client *c = o; for (int i = 1; i <= c->n; i++) request(c->srv, i); }

/* -- timeout and else ------------------------------------------------------ */
struct bell { int rings; struct cfa_monitor mon; };
static void ring(struct bell *b) { MUTEX_CALL(ring, &b->mon); b->rings++; }
static int listen(struct bell *b, bool block) {
    MUTEX_CALL(listen, &b->mon);
    struct cfa_waitfor_clause c[] = { WAITFOR_CLAUSE(ring, &b->mon) };
    int64_t t0 = cfa_clock_ns();
    int r = cfa_waitfor(c, 1, block ? 20 * 1000 * 1000 : -1, !block);
    if (r == CFA_WAITFOR_TIMEOUT) CHECK(cfa_clock_ns() - t0 >= 20 * 1000 * 1000);
    return r == 0 ? 1 : r == CFA_WAITFOR_TIMEOUT ? 0 : -1;
}

/* -- the first clause with a waiting call wins, then the oldest call ------ */
struct desk { char order[8]; int n; _Atomic int open; struct cfa_monitor mon; };
static void call_a(struct desk *d, char who) { MUTEX_CALL(call_a, &d->mon); d->order[d->n++] = who; }
static void call_b(struct desk *d, char who) { MUTEX_CALL(call_b, &d->mon); d->order[d->n++] = who; }
static void open_desk(struct desk *d) {
    MUTEX_CALL(open_desk, &d->mon);
    atomic_store(&d->open, 1);
    /* Three callers queue while we hold the desk: 1 (b), 2 (a), 3 (b). */
    while (cfa_monitor_entry_count(&d->mon) < 3) cfa_yield();
    for (int k = 0; k < 3; k++) {
        struct cfa_waitfor_clause c[] = { WAITFOR_CLAUSE(call_a, &d->mon), WAITFOR_CLAUSE(call_b, &d->mon) };
        CHECK(cfa_waitfor(c, 2, -1, false) >= 0);
    }
}
struct visitor { struct desk *d; char who; bool use_a; struct cfa_thread thread; };
static void visitor_main(void *o) {
    struct visitor *v = o;
    if (v->use_a) call_a(v->d, v->who); else call_b(v->d, v->who);
}

struct opener { struct desk *d; struct cfa_thread thread; };
static void opener_main(void *o) { open_desk(((struct opener *)o)->d); }

/* -- waitfor(join, this) ---------------------------------------------------- */
struct worker { _Atomic int accepted, finished; struct cfa_thread thread; };
static void worker_main(void *o) {
    struct worker *w = o;
    struct cfa_waitfor_clause c[] = { WAITFOR_CLAUSE(cfa_join_function, &w->thread.self_monitor) };
    CHECK_EQ(cfa_waitfor(c, 1, -1, false), 0);
    atomic_store(&w->accepted, 1);
    cfa_yield();
    atomic_store(&w->finished, 1);
}

int main(int argc, char **argv) {
    long repeat = repeat_count(argc, argv);
    for (long r = 0; r < repeat; r++) {
        memset(&buf, 0, sizeof buf);
        {
            struct cfa_processor p = {0};
            cfa_processor_start(&p);
            struct taker t = { .n = 20000 };
            struct maker m[2] = { { .n = 10000 }, { .n = 10000 } };
            cfa_thread_start(&t.thread, taker_main, &t, "Taker", 0);
            for (int i = 0; i < 2; i++) cfa_thread_start(&m[i].thread, maker_main, &m[i], "Maker", 0);
            for (int i = 1; i >= 0; i--) cfa_thread_destroy(&m[i].thread);
            cfa_thread_destroy(&t.thread);
            cfa_processor_stop(&p);
            CHECK_EQ(t.sum, 100010000);
            if (r == 0) printf("taken sum %ld\n", t.sum);
        }
        {
            struct server s = {0};
            cfa_thread_start(&s.thread, server_main, &s, "Server", 0);
            struct client cl[4];
            for (int i = 0; i < 4; i++) {
                cl[i] = (struct client){ .srv = &s, .n = 1000 };
                cfa_thread_start(&cl[i].thread, client_main, &cl[i], "Client", 0);
            }
            for (int i = 3; i >= 0; i--) cfa_thread_destroy(&cl[i].thread);
            stop(&s);
            cfa_thread_destroy(&s.thread);
            CHECK_EQ(s.handled, 4000);
            CHECK_EQ(s.sum, 2002000);
            if (r == 0) printf("handled %ld sum %ld requests after the limit %ld\n", s.handled, s.sum, s.late);
        }
        {
            struct bell b = {0};
            int t = listen(&b, true), e = listen(&b, false);
            CHECK_EQ(t, 0);
            CHECK_EQ(e, -1);
            if (r == 0) printf("listen: timeout %d, else %d, rings %d\n", t, e, b.rings);
        }
        {
            struct desk d = {0};
            struct visitor v[3] = { { &d, '1', false }, { &d, '2', true }, { &d, '3', false } };
            struct opener op = { &d };
            /* The opener holds the desk before any visitor arrives. */
            cfa_thread_start(&op.thread, opener_main, &op, "Opener", 0);
            while (!atomic_load(&d.open)) cfa_yield();
            for (int i = 0; i < 3; i++) {
                cfa_thread_start(&v[i].thread, visitor_main, &v[i], "Visitor", 0);
                /* Each visitor on the entry queue before the next starts: one
                 * counted before its call could be preempted on the way and
                 * queue after the next. Not after the third: once it queues,
                 * the opener may accept all three before we look again. */
                while (i < 2 && cfa_monitor_entry_count(&d.mon) != (unsigned)i + 1) cfa_yield();
            }
            for (int i = 2; i >= 0; i--) cfa_thread_destroy(&v[i].thread);
            cfa_thread_destroy(&op.thread);
            /* call_a's clause is first: 2; then call_b's oldest: 1, 3. */
            CHECK(memcmp(d.order, "213", 3) == 0, "order %.3s", d.order);
            if (r == 0) printf("lexical priority: %c %c %c\n", d.order[0], d.order[1], d.order[2]);
        }
        {
            struct worker w = {0};
            cfa_thread_start(&w.thread, worker_main, &w, "Worker", 0);
            cfa_thread_join(&w.thread);
            CHECK(atomic_load(&w.accepted) && atomic_load(&w.finished));
            if (r == 0) printf("join accepted, then main finished: %d %d\n", atomic_load(&w.accepted), atomic_load(&w.finished));
        }
    }
    return 0;
}
