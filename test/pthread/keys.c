// pthread_key_* / pthread_[gs]etspecific per user thread: four threads
// on the only processor each set their own value for two keys, yield,
// and read their own values back; destructors run once per thread with a
// non-NULL value, on that thread, including a value a destructor sets
// again (a second round); a deleted key reads NULL; a kernel thread that
// is not a processor has its own values (glibc's). Without per-user-thread
// values the threads of one processor share one set.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: keys: own values ok, destructors 12 (second round 4), deleted key NULL, kernel thread ok
#include "check.h"
#include "kthread.h"
#include <pthread.h>

enum { THREADS = 4, ROUNDS = 1000 };

static pthread_key_t key_a, key_b;
static _Atomic int destructed, second_round;
static __thread int kernel_thread_marker;

struct worker { long id; struct cfa_thread thread; };

static void destroy_a(void *value) {
    CHECK(pthread_getspecific(key_a) == NULL);
    atomic_fetch_add(&destructed, 1);
    if ((long)value > 0) /* set again: a second round must call us again */
        pthread_setspecific(key_a, (void *)-(long)value);
    else
        atomic_fetch_add(&second_round, 1);
}

static void destroy_b(void *value) {
    (void)value;
    atomic_fetch_add(&destructed, 1);
}

static void worker_main(void *object) {
    struct worker *w = object;
    for (int i = 0; i < ROUNDS; i++) {
        CHECK_EQ(pthread_setspecific(key_a, (void *)(w->id + 1)), 0);
        CHECK_EQ(pthread_setspecific(key_b, (void *)(100 + w->id)), 0);
        cfa_yield();
        CHECK_EQ((long)pthread_getspecific(key_a), w->id + 1);
        CHECK_EQ((long)pthread_getspecific(key_b), 100 + w->id);
    }
}

static void *kernel_thread(void *arg) {
    (void)arg;
    kernel_thread_marker = 1;
    CHECK(pthread_getspecific(key_a) == NULL);
    CHECK_EQ(pthread_setspecific(key_a, &kernel_thread_marker), 0);
    CHECK(pthread_getspecific(key_a) == &kernel_thread_marker);
    return NULL;
}

int main(int argc, char **argv) {
    long repeat = arg_long(argc, argv, 1, 1);
    CHECK_EQ(pthread_key_create(&key_a, destroy_a), 0);
    CHECK_EQ(pthread_key_create(&key_b, destroy_b), 0);
    CHECK_EQ(pthread_setspecific(key_a, (void *)-7L), 0);
    for (long r = 0; r < repeat; r++) {
        atomic_store(&destructed, 0);
        atomic_store(&second_round, 0);
        struct worker w[THREADS];
        memset(w, 0, sizeof w);
        for (int i = 0; i < THREADS; i++) {
            w[i].id = i;
            cfa_thread_start(&w[i].thread, worker_main, &w[i], "worker", 0);
        }
        for (int i = 0; i < THREADS; i++)
            cfa_thread_destroy(&w[i].thread);
        CHECK_EQ(atomic_load(&destructed), 3 * THREADS);
        CHECK_EQ(atomic_load(&second_round), THREADS);
    }
    int destructors = atomic_load(&destructed), second = atomic_load(&second_round);
    CHECK_EQ((long)pthread_getspecific(key_a), -7); /* main's own value */
    kthread_join(kthread_start(kernel_thread, NULL));
    CHECK_EQ((long)pthread_getspecific(key_a), -7);
    CHECK_EQ(atomic_load(&second_round), THREADS + 1); /* glibc's destructor on the kernel thread */
    CHECK_EQ(pthread_key_delete(key_a), 0);
    pthread_key_t again;
    CHECK_EQ(pthread_key_create(&again, NULL), 0);
    CHECK(pthread_getspecific(again) == NULL);
    printf("keys: own values ok, destructors %d (second round %d), deleted key NULL, kernel thread ok\n",
           destructors, second);
    return 0;
}
