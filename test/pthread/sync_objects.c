// Every pthread synchronisation object on user threads, with a kernel
// thread that is not a processor sharing each one, on two processors with
// 1 ms time slices. Each part checks its invariants:
//   mutex    counts under the mutex from 3 user threads and a kernel
//            thread; trylock EBUSY, timedlock ETIMEDOUT after its
//            deadline, error-checking EDEADLK/EPERM;
//   cond     a bounded buffer (2 producers, 2 consumers, one of each a
//            kernel thread): every item consumed once; timedwait on the
//            attribute's monotonic clock and clockwait time out after
//            their deadline;
//   rwlock   a writer is alone, readers overlap; try and timed variants;
//   spin     3 user threads on the only processor and a kernel thread
//            count under a spinlock (a spinner yields to a preempted
//            holder);
//   barrier  4 threads, 500 rounds: nobody passes before all arrive,
//            one serial thread per round;
//   sem      a semaphore as a counting lock: never more than 2 inside;
//            trywait EAGAIN, timedwait ETIMEDOUT, getvalue.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: env CFA_PREEMPTION_MS=1 %timeout %t %stress | FileCheck %s
// CHECK: mutex ok
// CHECK: cond ok
// CHECK: rwlock ok
// CHECK: spin ok
// CHECK: barrier ok
// CHECK: sem ok
#include "check.h"
#include "kthread.h"
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>

enum { USERS = 3, N = 3000 };

struct task { void (*body)(long); long arg; struct cfa_thread thread; };
static void task_main(void *object) { struct task *t = object; t->body(t->arg); }
static struct task tasks[8];
static int ntasks;
static void spawn(void (*body)(long), long arg) {
    struct task *t = &tasks[ntasks++];
    memset(t, 0, sizeof *t);
    t->body = body;
    t->arg = arg;
    cfa_thread_start(&t->thread, task_main, t, "task", 0);
}
static void join_all(void) {
    for (int i = 0; i < ntasks; i++)
        cfa_thread_destroy(&tasks[i].thread);
    ntasks = 0;
}
struct kjob { void (*body)(long); long arg; };
static void *kernel_main(void *arg) {
    struct kjob *job = arg;
    job->body(job->arg);
    free(job);
    return NULL;
}
static pthread_t kspawn(void (*body)(long), long arg) {
    struct kjob *job = malloc(sizeof *job);
    job->body = body;
    job->arg = arg;
    return kthread_start(kernel_main, job);
}

static void spin_for(int n) { for (volatile int i = 0; i < n; i++) ; }

static struct timespec in_ms(clockid_t clock, long ms) {
    struct timespec t;
    clock_gettime(clock, &t);
    t.tv_nsec += ms * 1000000;
    t.tv_sec += t.tv_nsec / 1000000000;
    t.tv_nsec %= 1000000000;
    return t;
}
static int passed(clockid_t clock, struct timespec at) {
    struct timespec now;
    clock_gettime(clock, &now);
    return now.tv_sec > at.tv_sec || (now.tv_sec == at.tv_sec && now.tv_nsec >= at.tv_nsec);
}

/* ---- mutex ---- */
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static int inside;
static void mutex_body(long n) {
    for (long i = 0; i < n; i++) {
        pthread_mutex_lock(&m);
        CHECK_EQ(++inside, 1);
        spin_for(100);
        counter++;
        inside--;
        pthread_mutex_unlock(&m);
    }
}
static void test_mutex(void) {
    pthread_t k = kspawn(mutex_body, N);
    for (int i = 0; i < USERS; i++) spawn(mutex_body, N);
    join_all();
    kthread_join(k);
    CHECK_EQ(counter, (USERS + 1) * N);
    pthread_mutex_lock(&m);
    CHECK_EQ(pthread_mutex_trylock(&m), EBUSY);
    struct timespec at = in_ms(CLOCK_REALTIME, 20);
    CHECK_EQ(pthread_mutex_timedlock(&m, &at), ETIMEDOUT);
    CHECK(passed(CLOCK_REALTIME, at));
    pthread_mutex_unlock(&m);
    pthread_mutex_t e = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
    CHECK_EQ(pthread_mutex_unlock(&e), EPERM);
    CHECK_EQ(pthread_mutex_lock(&e), 0);
    CHECK_EQ(pthread_mutex_lock(&e), EDEADLK);
    CHECK_EQ(pthread_mutex_unlock(&e), 0);
    CHECK_EQ(pthread_mutex_destroy(&e), 0);
    printf("mutex ok\n");
}

/* ---- cond ---- */
enum { SLOTS = 4 };
static pthread_mutex_t bm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER, not_empty = PTHREAD_COND_INITIALIZER;
static long buf[SLOTS], head, tail, consumed_sum, consumed_count;
static void produce(long base) {
    for (long i = 0; i < N; i++) {
        pthread_mutex_lock(&bm);
        while (tail - head == SLOTS) pthread_cond_wait(&not_full, &bm);
        buf[tail++ % SLOTS] = base + i;
        pthread_cond_signal(&not_empty);
        pthread_mutex_unlock(&bm);
    }
}
static void consume(long n) {
    for (long i = 0; i < n; i++) {
        pthread_mutex_lock(&bm);
        while (tail == head) pthread_cond_wait(&not_empty, &bm);
        consumed_sum += buf[head++ % SLOTS];
        consumed_count++;
        pthread_cond_broadcast(&not_full);
        pthread_mutex_unlock(&bm);
    }
}
static void test_cond(void) {
    pthread_t k = kspawn(produce, 1000000);
    spawn(produce, 0);
    spawn(consume, N);
    pthread_t kc = kspawn(consume, N);
    join_all();
    kthread_join(k);
    kthread_join(kc);
    long expect = 2 * ((long)N * (N - 1) / 2) + 1000000L * N;
    CHECK_EQ(consumed_count, 2 * N);
    CHECK_EQ(consumed_sum, expect);
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_t mono;
    pthread_cond_init(&mono, &a);
    pthread_mutex_lock(&bm);
    struct timespec at = in_ms(CLOCK_MONOTONIC, 20);
    CHECK_EQ(pthread_cond_timedwait(&mono, &bm, &at), ETIMEDOUT);
    CHECK(passed(CLOCK_MONOTONIC, at));
    at = in_ms(CLOCK_REALTIME, 10);
    CHECK_EQ(pthread_cond_clockwait(&mono, &bm, CLOCK_REALTIME, &at), ETIMEDOUT);
    CHECK(passed(CLOCK_REALTIME, at));
    pthread_mutex_unlock(&bm);
    pthread_cond_destroy(&mono);
    printf("cond ok\n");
}

/* ---- rwlock ---- */
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static _Atomic int readers, writers, max_readers;
static void rw_body(long writer_every) {
    for (long i = 0; i < N; i++) {
        if (i % writer_every == 0) {
            pthread_rwlock_wrlock(&rw);
            CHECK_EQ(atomic_fetch_add(&writers, 1), 0);
            CHECK_EQ(atomic_load(&readers), 0);
            spin_for(100);
            atomic_fetch_sub(&writers, 1);
        } else {
            pthread_rwlock_rdlock(&rw);
            int r = atomic_fetch_add(&readers, 1) + 1;
            int seen = atomic_load(&max_readers);
            while (r > seen && !atomic_compare_exchange_weak(&max_readers, &seen, r)) ;
            CHECK_EQ(atomic_load(&writers), 0);
            spin_for(100);
            atomic_fetch_sub(&readers, 1);
        }
        pthread_rwlock_unlock(&rw);
    }
}
static void test_rwlock(void) {
    pthread_t k = kspawn(rw_body, 5);
    for (int i = 0; i < USERS; i++) spawn(rw_body, 7);
    join_all();
    kthread_join(k);
    CHECK_EQ(pthread_rwlock_rdlock(&rw), 0);
    CHECK_EQ(pthread_rwlock_rdlock(&rw), 0); /* recursive read */
    CHECK_EQ(pthread_rwlock_trywrlock(&rw), EBUSY);
    struct timespec at = in_ms(CLOCK_REALTIME, 10);
    CHECK_EQ(pthread_rwlock_timedwrlock(&rw, &at), ETIMEDOUT);
    CHECK(passed(CLOCK_REALTIME, at));
    pthread_rwlock_unlock(&rw);
    pthread_rwlock_unlock(&rw);
    CHECK_EQ(pthread_rwlock_wrlock(&rw), 0);
    CHECK_EQ(pthread_rwlock_tryrdlock(&rw), EBUSY);
    CHECK_EQ(pthread_rwlock_wrlock(&rw), EDEADLK);
    at = in_ms(CLOCK_MONOTONIC, 10);
    CHECK_EQ(pthread_rwlock_clockrdlock(&rw, CLOCK_MONOTONIC, &at), EDEADLK);
    pthread_rwlock_unlock(&rw);
    printf("rwlock ok\n");
}

/* ---- spin ---- */
static pthread_spinlock_t sl;
static long spin_count;
static void spin_body(long n) {
    for (long i = 0; i < n; i++) {
        pthread_spin_lock(&sl);
        spin_for(300);
        spin_count++;
        pthread_spin_unlock(&sl);
    }
}
static void test_spin(void) {
    pthread_spin_init(&sl, PTHREAD_PROCESS_PRIVATE);
    pthread_t k = kspawn(spin_body, N);
    for (int i = 0; i < USERS; i++) spawn(spin_body, N);
    join_all();
    kthread_join(k);
    CHECK_EQ(spin_count, (USERS + 1) * N);
    pthread_spin_lock(&sl);
    CHECK_EQ(pthread_spin_trylock(&sl), EBUSY);
    pthread_spin_unlock(&sl);
    pthread_spin_destroy(&sl);
    printf("spin ok\n");
}

/* ---- barrier ---- */
enum { PARTIES = 4, ROUNDS = 500 };
static pthread_barrier_t bar;
static _Atomic long arrived[ROUNDS], serials[ROUNDS];
static void barrier_body(long id) {
    (void)id;
    for (int r = 0; r < ROUNDS; r++) {
        atomic_fetch_add(&arrived[r], 1);
        int s = pthread_barrier_wait(&bar);
        CHECK(s == 0 || s == PTHREAD_BARRIER_SERIAL_THREAD);
        if (s) atomic_fetch_add(&serials[r], 1);
        CHECK_EQ(atomic_load(&arrived[r]), PARTIES);
    }
}
static void test_barrier(void) {
    memset(arrived, 0, sizeof arrived);
    memset(serials, 0, sizeof serials);
    CHECK_EQ(pthread_barrier_init(&bar, NULL, 0), EINVAL);
    CHECK_EQ(pthread_barrier_init(&bar, NULL, PARTIES), 0);
    pthread_t k = kspawn(barrier_body, 0);
    for (int i = 1; i < PARTIES; i++) spawn(barrier_body, i);
    join_all();
    kthread_join(k);
    for (int r = 0; r < ROUNDS; r++) CHECK_EQ(atomic_load(&serials[r]), 1);
    CHECK_EQ(pthread_barrier_destroy(&bar), 0);
    printf("barrier ok\n");
}

/* ---- sem ---- */
static sem_t sem;
static _Atomic int in_sem, sem_passes;
static void sem_body(long n) {
    for (long i = 0; i < n; i++) {
        CHECK_EQ(sem_wait(&sem), 0);
        CHECK(atomic_fetch_add(&in_sem, 1) < 2);
        spin_for(200);
        atomic_fetch_sub(&in_sem, 1);
        atomic_fetch_add(&sem_passes, 1);
        CHECK_EQ(sem_post(&sem), 0);
    }
}
static void test_sem(void) {
    CHECK_EQ(sem_init(&sem, 0, 2), 0);
    pthread_t k = kspawn(sem_body, N);
    for (int i = 0; i < USERS; i++) spawn(sem_body, N);
    join_all();
    kthread_join(k);
    CHECK_EQ(atomic_load(&sem_passes), (USERS + 1) * N);
    int v;
    CHECK_EQ(sem_getvalue(&sem, &v), 0);
    CHECK_EQ(v, 2);
    CHECK_EQ(sem_wait(&sem), 0);
    CHECK_EQ(sem_wait(&sem), 0);
    errno = 0;
    CHECK_EQ(sem_trywait(&sem), -1);
    CHECK_EQ(errno, EAGAIN);
    struct timespec at = in_ms(CLOCK_REALTIME, 10);
    CHECK_EQ(sem_timedwait(&sem, &at), -1);
    CHECK_EQ(errno, ETIMEDOUT);
    CHECK(passed(CLOCK_REALTIME, at));
    CHECK_EQ(sem_destroy(&sem), 0);
    printf("sem ok\n");
}

int main(int argc, char **argv) {
    long repeat = arg_long(argc, argv, 1, 1);
    struct cfa_processor extra = {0};
    cfa_processor_start(&extra);
    for (long r = 0; r < repeat; r++) {
        counter = 0; consumed_sum = consumed_count = 0; head = tail = 0;
        spin_count = 0; atomic_store(&sem_passes, 0);
        test_mutex();
        test_cond();
        test_rwlock();
        cfa_processor_stop(&extra); /* spin: the only processor */
        test_spin();
        memset(&extra, 0, sizeof extra);
        cfa_processor_start(&extra);
        test_barrier();
        test_sem();
    }
    cfa_processor_stop(&extra);
    return 0;
}
