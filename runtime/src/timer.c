/* timer.c: sleeping user threads.
 *
 * Sleepers wait in a binary min-heap ordered by deadline, serviced by one
 * kernel thread (started at the first sleep) that waits on a condition
 * variable until the earliest deadline and unparks whoever is due. Only
 * the sleeping user thread blocks; processors keep running others.
 *
 * Invariants: the heap and `timer_running` are guarded by timer_mutex; an
 * entry lives on its sleeper's stack and is removed from the heap before
 * the sleeper is unparked, so it never outlives the heap's reference.
 *
 * This is the interim timer; the io_uring issue moves sleeping onto each
 * processor's ring (IORING_OP_TIMEOUT), keeping cfa_sleep_ns's contract.
 */
#include "kernel.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct sleeper {
    int64_t deadline;
    struct cfa_thread *thread;
};

static pthread_mutex_t timer_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t timer_cond;
static bool timer_running;
static struct sleeper **heap;
static size_t heap_len, heap_cap;

int64_t cfa_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void heap_swap(size_t i, size_t j)
{
    struct sleeper *t = heap[i];
    heap[i] = heap[j];
    heap[j] = t;
}

static void heap_push(struct sleeper *s)
{
    if (heap_len == heap_cap) {
        heap_cap = heap_cap ? heap_cap * 2 : 64;
        heap = realloc(heap, heap_cap * sizeof *heap);
        if (!heap)
            cfa_fatal("out of memory in the timer heap");
    }
    size_t i = heap_len++;
    heap[i] = s;
    while (i > 0 && heap[(i - 1) / 2]->deadline > heap[i]->deadline) {
        heap_swap(i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static struct sleeper *heap_pop(void)
{
    struct sleeper *top = heap[0];
    heap[0] = heap[--heap_len];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < heap_len && heap[l]->deadline < heap[m]->deadline) m = l;
        if (r < heap_len && heap[r]->deadline < heap[m]->deadline) m = r;
        if (m == i)
            break;
        heap_swap(i, m);
        i = m;
    }
    return top;
}

static void *timer_kthread(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&timer_mutex);
    for (;;) {
        if (heap_len == 0) {
            pthread_cond_wait(&timer_cond, &timer_mutex);
            continue;
        }
        int64_t now = cfa_clock_ns();
        if (heap[0]->deadline > now) {
            int64_t d = heap[0]->deadline;
            struct timespec ts = { .tv_sec = d / 1000000000, .tv_nsec = d % 1000000000 };
            pthread_cond_timedwait(&timer_cond, &timer_mutex, &ts);
            continue;
        }
        struct sleeper *s = heap_pop();
        struct cfa_thread *t = s->thread;
        s->thread = NULL; /* the sleeper may return and drop s from here on */
        cfa_unpark(t);
    }
    return NULL;
}

static void timer_start_locked(void)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&timer_cond, &attr);
    pthread_condattr_destroy(&attr);
    pthread_t kt;
    int err = pthread_create(&kt, NULL, timer_kthread, NULL);
    if (err)
        cfa_fatal("cannot start the timer thread: %s", strerror(err));
    pthread_detach(kt);
    timer_running = true;
}

void cfa_sleep_ns(int64_t ns)
{
    struct cfa_thread *self = this_thread();
    if (!self) {
        struct timespec ts = { .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };
        if (ns > 0)
            while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
                ;
        return;
    }
    if (ns <= 0) {
        cfa_yield();
        return;
    }
    struct sleeper s = { .deadline = cfa_clock_ns() + ns, .thread = self };
    pthread_mutex_lock(&timer_mutex);
    if (!timer_running)
        timer_start_locked();
    heap_push(&s);
    bool earliest = heap[0] == &s;
    pthread_mutex_unlock(&timer_mutex);
    if (earliest)
        pthread_cond_signal(&timer_cond);
    /* Park until the timer thread has taken us off the heap: a stray
     * permit must not end the sleep early while s is still referenced. */
    for (;;) {
        cfa_park();
        pthread_mutex_lock(&timer_mutex);
        bool done = s.thread == NULL;
        pthread_mutex_unlock(&timer_mutex);
        if (done)
            break;
    }
}
