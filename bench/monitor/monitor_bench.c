/* monitor_bench.c: the first thesis's monitor micro-benchmarks on the
 * runtime's C API, beside their pthread equivalents, in one run.
 *
 *   mutex1/2/4   an uncontended mutex call on 1, 2 and 4 monitors
 *                (pthread: lock+unlock of 1, 2 and 4 mutexes)
 *   signal       a signal/wait round trip between two threads
 *                (pthread: condition-variable ping-pong between two threads)
 *   waitfor      a waitfor round trip: a server accepting a caller's call
 *                (pthread: the same ping-pong, there is no equivalent)
 *
 * Usage: monitor_bench [iterations]. Prints "name ns_per_op" lines.
 */
#define _GNU_SOURCE
#include <cfa/runtime.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "../include/glibc_pthread.h" /* the pthread peers are glibc's */

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static long iterations = 2000000;

/* ---- mutex calls ---- */
struct mon { long x; struct cfa_monitor m; } m1, m2, m3, m4;

static __attribute__((noinline)) void call1(struct mon *a)
{
    struct cfa_monitor *ms[] = { &a->m };
    struct cfa_mutex_group g;
    cfa_mutex_enter(&g, ms, 1, (const void *)call1);
    a->x++;
    cfa_mutex_leave(&g);
}
static __attribute__((noinline)) void call2(struct mon *a, struct mon *b)
{
    struct cfa_monitor *ms[] = { &a->m, &b->m };
    struct cfa_mutex_group g;
    cfa_mutex_enter(&g, ms, 2, (const void *)call2);
    a->x++;
    cfa_mutex_leave(&g);
}
static __attribute__((noinline)) void call4(struct mon *a, struct mon *b, struct mon *c, struct mon *d)
{
    struct cfa_monitor *ms[] = { &a->m, &b->m, &c->m, &d->m };
    struct cfa_mutex_group g;
    cfa_mutex_enter(&g, ms, 4, (const void *)call4);
    a->x++;
    cfa_mutex_leave(&g);
}
static pthread_mutex_t pm[4] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                 PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER };
static long px;
static __attribute__((noinline)) void pcall(int n)
{
    for (int i = 0; i < n; i++) pthread_mutex_lock(&pm[i]);
    px++;
    for (int i = n; i-- > 0;) pthread_mutex_unlock(&pm[i]);
}

/* ---- signal/wait ping-pong ---- */
struct pingpong { struct cfa_condition c; long rounds; struct cfa_monitor m; } pp;
static void pp_turn(struct pingpong *p)
{
    struct cfa_monitor *ms[] = { &p->m };
    struct cfa_mutex_group g;
    cfa_mutex_enter(&g, ms, 1, (const void *)pp_turn);
    cfa_signal(&p->c);
    cfa_wait(&p->c, 0);
    cfa_mutex_leave(&g);
}
static void pp_last(struct pingpong *p)
{
    struct cfa_monitor *ms[] = { &p->m };
    struct cfa_mutex_group g;
    cfa_mutex_enter(&g, ms, 1, (const void *)pp_last);
    cfa_signal(&p->c);
    cfa_mutex_leave(&g);
}
struct partner { struct cfa_thread t; };
static void partner_main(void *o)
{
    (void)o;
    for (long i = 0; i < iterations; i++) pp_turn(&pp);
    pp_last(&pp);
}

static pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long turn;
static void *pthread_partner(void *arg)
{
    long me = (long)arg;
    pthread_mutex_lock(&cm);
    for (long i = 0; i < iterations; i++) {
        while (turn % 2 != me) pthread_cond_wait(&cv, &cm);
        turn++;
        pthread_cond_signal(&cv);
    }
    pthread_mutex_unlock(&cm);
    return NULL;
}

/* ---- waitfor round trip ---- */
struct server { long served; struct cfa_thread t; };
static void serve(struct server *s)
{
    struct cfa_monitor *ms[] = { &s->t.self_monitor };
    struct cfa_mutex_group g;
    cfa_mutex_enter(&g, ms, 1, (const void *)serve);
    s->served++;
    cfa_mutex_leave(&g);
}
static void server_main(void *o)
{
    struct server *s = o;
    struct cfa_monitor *m[] = { &s->t.self_monitor };
    struct cfa_waitfor_clause c[] = { { (const void *)serve, m, 1 } };
    for (long i = 0; i < iterations; i++) cfa_waitfor(c, 1, -1, false);
}

int main(int argc, char **argv)
{
    if (argc > 1) iterations = atol(argv[1]);
    double t0, t1;
    long n = iterations * 5;

    t0 = now_ns(); for (long i = 0; i < n; i++) call1(&m1); t1 = now_ns();
    printf("mutex1 %.2f\n", (t1 - t0) / n);
    t0 = now_ns(); for (long i = 0; i < n; i++) pcall(1); t1 = now_ns();
    printf("pthread_mutex1 %.2f\n", (t1 - t0) / n);
    t0 = now_ns(); for (long i = 0; i < n; i++) call2(&m1, &m2); t1 = now_ns();
    printf("mutex2 %.2f\n", (t1 - t0) / n);
    t0 = now_ns(); for (long i = 0; i < n; i++) pcall(2); t1 = now_ns();
    printf("pthread_mutex2 %.2f\n", (t1 - t0) / n);
    t0 = now_ns(); for (long i = 0; i < n; i++) call4(&m1, &m2, &m3, &m4); t1 = now_ns();
    printf("mutex4 %.2f\n", (t1 - t0) / n);
    t0 = now_ns(); for (long i = 0; i < n; i++) pcall(4); t1 = now_ns();
    printf("pthread_mutex4 %.2f\n", (t1 - t0) / n);

    {
        struct partner p = {0};
        cfa_thread_start(&p.t, partner_main, &p, "Partner", 0);
        t0 = now_ns();
        for (long i = 0; i < iterations; i++) pp_turn(&pp);
        pp_last(&pp);
        t1 = now_ns();
        cfa_thread_join(&p.t);
        printf("signal %.2f\n", (t1 - t0) / iterations);
    }
    {
        pthread_t a, b;
        long pn = iterations / 10; /* kernel round trips are slow: fewer */
        long saved = iterations;
        iterations = pn;
        turn = 0;
        t0 = now_ns();
        pthread_create(&a, NULL, pthread_partner, (void *)0);
        pthread_create(&b, NULL, pthread_partner, (void *)1);
        pthread_join(a, NULL);
        pthread_join(b, NULL);
        t1 = now_ns();
        iterations = saved;
        printf("pthread_cond %.2f\n", (t1 - t0) / pn);
    }
    {
        struct server s = {0};
        cfa_thread_start(&s.t, server_main, &s, "Server", 0);
        t0 = now_ns();
        for (long i = 0; i < iterations; i++) serve(&s);
        t1 = now_ns();
        cfa_thread_join(&s.t);
        printf("waitfor %.2f\n", (t1 - t0) / iterations);
    }
    return 0;
}
