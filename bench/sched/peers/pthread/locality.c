/* Locality (thesis 001 ch.7, sec. 7.6, Fig. 7.11): churn with work. Each
 * iteration a pthread increments 64 random cells of an 8 KiB array, then
 * sends an array through a random spot and receives one from it. A spot
 * is a FIFO of arrays under a mutex plus a sem_t counting them: send =
 * push, post; receive = wait, pop. "share": the thread adopts the array
 * it received; "noshare": it keeps its own. Load: threads per processor.
 * Result: iterations per second, in Mops/s. */
#include <semaphore.h>
#include <string.h>
#include "common.h"

enum { WSIZE = 1024, WCNT = 64 };

struct spot {
    pthread_mutex_t lock;
    sem_t count;
    uint64_t **ring; /* n slots: never full, there are n arrays */
    int head, tail;
};

static struct spot *spots;
static int n, nspots;
static _Bool share;
static struct counter *counts;

static uint64_t *exchange(struct spot *s, uint64_t *mine) {
    pthread_mutex_lock(&s->lock);
    s->ring[s->tail] = mine;
    s->tail = (s->tail + 1) % n;
    pthread_mutex_unlock(&s->lock);
    sem_post(&s->count);
    while (sem_wait(&s->count)) {}
    pthread_mutex_lock(&s->lock);
    uint64_t *got = s->ring[s->head];
    s->head = (s->head + 1) % n;
    pthread_mutex_unlock(&s->lock);
    return got;
}

static void *local(void *arg) {
    long i = (long)arg;
    uint64_t rng = i + 1, *array = calloc(WSIZE, sizeof *array), *got;
    bench_gate();
    for (;;) {
        for (int j = 0; j < WCNT; j++) array[bench_rand(&rng) % WSIZE]++;
        got = exchange(&spots[bench_rand(&rng) % nspots], array);
        if (share) array = got;
        bench_bump(&counts[i]);
    }
}

int main(int argc, char **argv) {
    share = bench_variant(argc, argv, "share", "noshare");
    int procs = bench_arg(argc, argv, 1, "threads-per-processor share|noshare");
    n = bench_arg(argc, argv, 2, "threads-per-processor share|noshare") * procs;
    nspots = n > procs ? n - procs : 1;
    bench_cpus(procs);
    spots = calloc(nspots, sizeof *spots);
    counts = calloc(n, sizeof *counts);
    for (int i = 0; i < nspots; i++) {
        pthread_mutex_init(&spots[i].lock, NULL);
        sem_init(&spots[i].count, 0, 0);
        spots[i].ring = calloc(n, sizeof *spots[i].ring);
    }
    bench_spawn(n, local);
    double t0 = bench_open_and_sleep();
    bench_result(bench_mops(counts, n, t0));
}
