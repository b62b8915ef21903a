// Locks under load on 2 processors, 8 threads each, with invariant checks:
//   mutex     lock/unlock; at most one thread inside; an unprotected counter
//             ends exact
//   owner     the same with nesting 1 to 3; the depth is right inside
//   condvar   a 4-slot buffer (mutex_lock, two conditions): 4 producers, 4
//             consumers; every value taken exactly once; an owner_lock copy
//             whose waits use wait_for (timeouts race the notifies)
//   semaphore P/V on 3 permits: never more than 3 inside, none lost
//   barrier   phases: nobody leaves before all arrived, one last per phase
// Every thread ends with no park permit left over. Arguments: repeat count,
// kind, iterations per thread.
//
// RUN: %std-cc %s -o %t %std-link
// RUN: %timeout %t %stress mutex 100000 | FileCheck %s --check-prefix=MUTEX
// RUN: %timeout %t %stress owner 50000 | FileCheck %s --check-prefix=OWNER
// RUN: %timeout %t %stress condvar 50000 | FileCheck %s --check-prefix=CONDVAR
// RUN: %timeout %t %stress condvar_timed 20000 | FileCheck %s --check-prefix=TIMED
// RUN: %timeout %t %stress semaphore 50000 | FileCheck %s --check-prefix=SEM
// RUN: %timeout %t %stress barrier 10000 | FileCheck %s --check-prefix=BARRIER
// MUTEX: mutex: 8 threads x 100000 ok
// OWNER: owner: 8 threads x 50000 ok
// CONDVAR: condvar: 8 threads x 50000 ok
// TIMED: condvar_timed: 8 threads x 20000 ok
// SEM: semaphore: 8 threads x 50000 ok
// BARRIER: barrier: 8 threads x 10000 ok
#include "tasks.h"

#include <cfa/locks.hfa>

enum { THREADS = 8, SLOTS = 4, PERMITS = 3 };

/* Every wait consumed exactly its own wake-up: no permit is left over. */
static void no_stray_permit(void) { CHECK_EQ(atomic_load(&cfa_active_thread()->ticket), 0); }
static long iterations;

static mutex_lock  m;
static owner_lock  o;
static int         inside;     /* protected by the lock under test */
static long        counter;

static void mutex_worker(void *unused) {
    for (long i = 0; i < iterations; i++) {
        lock(&m);
        CHECK_EQ(inside++, 0);
        counter++;
        inside--;
        unlock(&m);
    }
    no_stray_permit();
}

static void owner_worker(void *p) {
    long id = (long)(intptr_t)p;
    for (long i = 0; i < iterations; i++) {
        unsigned depth = 1 + (unsigned)((i + id) % 3);
        for (unsigned d = 0; d < depth; d++) lock(&o);
        CHECK_EQ(inside++, 0);
        CHECK_EQ(cfa_owner_lock_depth(&o), depth);
        counter++;
        inside--;
        for (unsigned d = 0; d < depth; d++) unlock(&o);
    }
    no_stray_permit();
}

/* ---- bounded buffer ---- */
static condition_variable not_full, not_empty;
static long               buf[SLOTS], head, count;
static _Atomic char      *taken;
static bool               timed;

static void cv_wait(condition_variable *c) {
    if (!timed) {
        wait(c, &m);
        return;
    }
    wait_for(c, &o, us(50));             /* timeouts: the caller's loop looks again */
}
static void buf_lock(void) { if (timed) lock(&o); else lock(&m); }
static void buf_unlock(void) { if (timed) unlock(&o); else unlock(&m); }

static void producer(void *p) {
    long id = (long)(intptr_t)p;
    for (long i = 0; i < iterations; i++) {
        buf_lock();
        while (count == SLOTS) cv_wait(&not_full);
        buf[(head + count++) % SLOTS] = id * iterations + i;
        notify_one(&not_empty);
        buf_unlock();
    }
    no_stray_permit();
}
static void consumer(void *unused) {
    for (long i = 0; i < iterations; i++) {
        buf_lock();
        while (count == 0) cv_wait(&not_empty);
        long v = buf[head];
        head = (head + 1) % SLOTS;
        count--;
        notify_one(&not_full);
        buf_unlock();
        CHECK(atomic_fetch_add(&taken[v], 1) == 0, "value %ld taken twice", v);
    }
    no_stray_permit();
}

/* ---- semaphore ---- */
static semaphore   sem;
static _Atomic int in_sem, max_in_sem;
static void sem_worker(void *unused) {
    for (long i = 0; i < iterations; i++) {
        P(&sem);
        int now = atomic_fetch_add(&in_sem, 1) + 1;
        CHECK(now <= PERMITS, "%d threads hold %d permits", now, PERMITS);
        int seen = atomic_load(&max_in_sem);
        while (now > seen && !atomic_compare_exchange_weak(&max_in_sem, &seen, now)) {}
        if (i % 16 == 0) cfa_yield();
        atomic_fetch_sub(&in_sem, 1);
        V(&sem);
    }
    no_stray_permit();
}

/* ---- barrier ---- */
static barrier      bar;
static _Atomic long arrived;
static _Atomic long lasts;
static void barrier_worker(void *unused) {
    for (long phase = 0; phase < iterations; phase++) {
        atomic_fetch_add(&arrived, 1);
        if (wait(&bar)) atomic_fetch_add(&lasts, 1);
        long a = atomic_load(&arrived);
        CHECK(a >= (phase + 1) * THREADS, "left phase %ld with %ld arrivals", phase, a);
        CHECK(a <= (phase + 2) * THREADS, "phase %ld: %ld arrivals, some thread ran ahead", phase, a);
    }
    no_stray_permit();
}

static void run(void (*fn)(void *), int n, bool ids) {
    struct task *t[THREADS];
    for (int i = 0; i < n; i++) t[i] = task_spawn(fn, ids ? (void *)(intptr_t)i : NULL, "worker");
    for (int i = 0; i < n; i++) task_join(t[i]);
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    const char *kind = argc > 2 ? argv[2] : "mutex";
    iterations = arg_long(argc, argv, 3, 10000);
    struct extra_procs procs;
    procs_start(&procs, 2);
    for (long r = 0; r < reps; r++) {
        counter = 0;
        if (!strcmp(kind, "mutex")) {
            run(mutex_worker, THREADS, false);
            CHECK_EQ(counter, THREADS * iterations);
        } else if (!strcmp(kind, "owner")) {
            run(owner_worker, THREADS, true);
            CHECK_EQ(counter, THREADS * iterations);
            CHECK(!holds(&o) && try_lock(&o), "owner_lock free at the end");
            unlock(&o);
        } else if (!strcmp(kind, "condvar") || !strcmp(kind, "condvar_timed")) {
            timed = !strcmp(kind, "condvar_timed");
            long values = THREADS / 2 * iterations;
            taken = calloc(values, 1);
            struct task *t[THREADS];
            for (int i = 0; i < THREADS / 2; i++) {
                t[i] = task_spawn(consumer, NULL, "consumer");
                t[THREADS / 2 + i] = task_spawn(producer, (void *)(intptr_t)i, "producer");
            }
            for (int i = 0; i < THREADS; i++) task_join(t[i]);
            for (long v = 0; v < values; v++) CHECK(taken[v] == 1, "value %ld taken %d times", v, taken[v]);
            CHECK(count == 0 && empty(&not_full) && empty(&not_empty), "buffer and conditions empty");
            free((void *)taken);
        } else if (!strcmp(kind, "semaphore")) {
            init(&sem, PERMITS);
            run(sem_worker, THREADS, false);
            CHECK_EQ(permits(&sem), PERMITS);
            CHECK(atomic_load(&max_in_sem) >= 1, "nobody got in");
        } else if (!strcmp(kind, "barrier")) {
            init(&bar, THREADS);
            atomic_store(&arrived, 0);
            atomic_store(&lasts, 0);
            run(barrier_worker, THREADS, false);
            CHECK_EQ(atomic_load(&lasts), iterations);
        } else {
            CHECK(0, "unknown kind %s", kind);
        }
    }
    procs_stop(&procs);
    printf("%s: %d threads x %ld ok\n", kind, THREADS, iterations);
    return 0;
}
