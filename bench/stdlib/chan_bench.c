/* chan_bench.c: the library's channels and semaphore against their peers
 * (Go channels in go/main.go; POSIX sem_t between pthreads, here).
 *
 *   chan_bench <benchmark> <processors> <iterations>
 *
 * benchmarks (each prints "RESULT <ns per operation>", the protocol of
 * bench/README.md; bench/stdlib/suite lists them):
 *   pingpong   two threads, two rendezvous channels; one round trip
 *              (send + recv each way) per operation
 *   mpmc       4 producers, 4 consumers, one channel of 64 slots; one
 *              value sent and received per operation
 *   sem        two threads, two semaphores, V then P; one round trip per
 *              operation
 *   posix_sem  the same with sem_t between two pthreads (processors ignored:
 *              the kernel schedules them; the suite pins them with taskset)
 * Every program checks what it received, so a broken channel cannot post a
 * good time.
 */
#include <cfa/channel.hfa>
#include <cfa/locks.hfa>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../include/glibc_pthread.h" /* the pthread peers are glibc's */

channel_type(Longs, long);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void fail(const char *what)
{
    fprintf(stderr, "chan_bench: %s\n", what);
    exit(1);
}

struct worker {
    void (*fn)(long);
    long              arg;
    struct cfa_thread thread;
};
static void worker_main(void *o) { ((struct worker *)o)->fn(((struct worker *)o)->arg); }
static void worker_start(struct worker *w, void (*fn)(long), long arg)
{
    memset(w, 0, sizeof *w);
    w->fn = fn;
    w->arg = arg;
    cfa_thread_start(&w->thread, worker_main, w, "bench", 0);
}
static void worker_join(struct worker *w) { cfa_thread_destroy(&w->thread); }

static long iterations;

/* ---- pingpong ---- */
static Longs ping, pong;
static void ponger(long unused)
{
    for (long i = 0; i < iterations; i++)
        send(&pong, recv(&ping) + 1);
}
static double bench_pingpong(void)
{
    init(&ping, 0);
    init(&pong, 0);
    struct worker w;
    worker_start(&w, ponger, 0);
    double t0 = now();
    for (long i = 0; i < iterations; i++) {
        send(&ping, i);
        if (recv(&pong) != i + 1)
            fail("pingpong: wrong value");
    }
    double t = now() - t0;
    worker_join(&w);
    destroy(&ping);
    destroy(&pong);
    return t;
}

/* ---- mpmc ---- */
enum { PRODUCERS = 4, CONSUMERS = 4, SLOTS = 64 };
static Longs          queue;
static _Atomic long   consumed_sum;
static void producer(long id)
{
    for (long i = id; i < iterations; i += PRODUCERS)
        send(&queue, i);
}
static void consumer(long unused)
{
    long v, sum = 0;
    while (recv(&queue, &v))
        sum += v;
    atomic_fetch_add(&consumed_sum, sum);
}
static double bench_mpmc(void)
{
    init(&queue, SLOTS);
    struct worker p[PRODUCERS], c[CONSUMERS];
    double t0 = now();
    for (int i = 0; i < CONSUMERS; i++)
        worker_start(&c[i], consumer, i);
    for (int i = 0; i < PRODUCERS; i++)
        worker_start(&p[i], producer, i);
    for (int i = 0; i < PRODUCERS; i++)
        worker_join(&p[i]);
    close(&queue);
    for (int i = 0; i < CONSUMERS; i++)
        worker_join(&c[i]);
    double t = now() - t0;
    if (atomic_load(&consumed_sum) != iterations * (iterations - 1) / 2)
        fail("mpmc: lost or duplicated values");
    destroy(&queue);
    return t;
}

/* ---- sem ---- */
static semaphore s_ping, s_pong;
static void sem_ponger(long unused)
{
    for (long i = 0; i < iterations; i++) {
        P(&s_ping);
        V(&s_pong);
    }
}
static double bench_sem(void)
{
    struct worker w;
    worker_start(&w, sem_ponger, 0);
    double t0 = now();
    for (long i = 0; i < iterations; i++) {
        V(&s_ping);
        P(&s_pong);
    }
    double t = now() - t0;
    worker_join(&w);
    if (permits(&s_ping) || permits(&s_pong))
        fail("sem: permits left over");
    return t;
}

/* ---- posix_sem ---- */
static sem_t p_ping, p_pong;
static void *posix_ponger(void *unused)
{
    for (long i = 0; i < iterations; i++) {
        sem_wait(&p_ping);
        sem_post(&p_pong);
    }
    return NULL;
}
static double bench_posix_sem(void)
{
    sem_init(&p_ping, 0, 0);
    sem_init(&p_pong, 0, 0);
    pthread_t t;
    pthread_create(&t, NULL, posix_ponger, NULL);
    double t0 = now();
    for (long i = 0; i < iterations; i++) {
        sem_post(&p_ping);
        sem_wait(&p_pong);
    }
    double dt = now() - t0;
    pthread_join(t, NULL);
    return dt;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        fail("usage: chan_bench pingpong|mpmc|sem|posix_sem processors iterations");
    int procs = atoi(argv[2]);
    iterations = atol(argv[3]);
    if (procs < 1 || procs > 8 || iterations < 1)
        fail("bad processors or iterations");
    struct cfa_processor extra[8];
    memset(extra, 0, sizeof extra);
    for (int i = 0; i < procs - 1; i++)
        cfa_processor_start(&extra[i]);

    double t;
    if (!strcmp(argv[1], "pingpong"))
        t = bench_pingpong();
    else if (!strcmp(argv[1], "mpmc"))
        t = bench_mpmc();
    else if (!strcmp(argv[1], "sem"))
        t = bench_sem();
    else if (!strcmp(argv[1], "posix_sem"))
        t = bench_posix_sem();
    else
        fail("unknown benchmark");
    printf("RESULT %.1f\n", t * 1e9 / iterations);

    for (int i = procs - 2; i >= 0; i--)
        cfa_processor_stop(&extra[i]);
    return 0;
}
