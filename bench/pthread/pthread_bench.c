/* pthread_bench.c: the cost of each pthread call on cfa-lite threads
 * against glibc's (docs/pthreads.md has the table; bench/pthread/suite
 * lists every call for the harness).
 *
 * Uncontended calls, on the program's main thread (a user thread; glibc's
 * calls run there as on any kernel thread); then two hand-offs between
 * two threads: a mutex and condition variable ping-pong (cfa: two user
 * threads on one processor; glibc: two kernel threads), and create+join.
 *
 *   pthread_bench <call> cfa|glibc [scale]
 *
 * measures one call on one side, iteration counts times scale, and prints
 * "RESULT <ns per call>" (the protocol of bench/README.md).
 */
#define GLIBC_PTHREAD_EXPLICIT
#include "../include/glibc_pthread.h"
#include <cfa/runtime.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

/* Uncontended calls are timed in the kernel thread's CPU time (the main
 * thread does not move while only one processor exists): other programs
 * on the machine do not inflate them. Calls between threads take the
 * wall clock. */
static double clock_ns(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}
static double now_ns(void) { return clock_ns(CLOCK_MONOTONIC); }

#define MEASURE_ON(clock, n, body)                                 \
    ({                                                             \
        double t0_ = clock_ns(clock);                              \
        for (long i_ = 0; i_ < (n); i_++) { body; }                \
        (clock_ns(clock) - t0_) / (n);                             \
    })
#define MEASURE(n, body) MEASURE_ON(CLOCK_THREAD_CPUTIME_ID, n, body)

static long scale = 1;
static const char *wanted;  /* the call to measure */
static bool glibc_side;     /* measure glibc's, not cfa-lite's */
static bool measured;

/* Evaluates (times) only the wanted call's wanted side. */
#define ROW(name, ours, theirs)                                            \
    do {                                                                   \
        if (!strcmp(wanted, name)) {                                       \
            printf("RESULT %.1f\n", glibc_side ? (theirs) : (ours));       \
            measured = true;                                               \
        }                                                                  \
    } while (0)

static pthread_mutex_t pm = PTHREAD_MUTEX_INITIALIZER, gm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pc = PTHREAD_COND_INITIALIZER, gc = PTHREAD_COND_INITIALIZER;
static long turn;
static long pingpongs;

static void *ours_partner(void *arg)
{
    long me = (long)arg;
    pthread_mutex_lock(&pm);
    for (long i = 0; i < pingpongs; i++) {
        while (turn % 2 != me) pthread_cond_wait(&pc, &pm);
        turn++;
        pthread_cond_signal(&pc);
    }
    pthread_mutex_unlock(&pm);
    return NULL;
}

static void *glibc_partner(void *arg)
{
    long me = (long)arg;
    GLIBC(pthread_mutex_lock)(&gm);
    for (long i = 0; i < pingpongs; i++) {
        while (turn % 2 != me) GLIBC(pthread_cond_wait)(&gc, &gm);
        turn++;
        GLIBC(pthread_cond_signal)(&gc);
    }
    GLIBC(pthread_mutex_unlock)(&gm);
    return NULL;
}

static void *nothing(void *arg) { return arg; }
static void once_init(void) {}

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[2], "cfa") && strcmp(argv[2], "glibc"))) {
        fprintf(stderr, "usage: pthread_bench <call> cfa|glibc [scale]\n");
        return 2;
    }
    wanted = argv[1];
    glibc_side = !strcmp(argv[2], "glibc");
    if (argc > 3) scale = atol(argv[3]);
    long n = 2000000 * scale;
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER, g = PTHREAD_MUTEX_INITIALIZER;
    ROW("mutex_lock_unlock", MEASURE(n, pthread_mutex_lock(&m); pthread_mutex_unlock(&m)),
        MEASURE(n, GLIBC(pthread_mutex_lock)(&g); GLIBC(pthread_mutex_unlock)(&g)));
    pthread_mutex_t rm = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP, rg = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
    ROW("recursive_lock_unlock", MEASURE(n, pthread_mutex_lock(&rm); pthread_mutex_unlock(&rm)),
        MEASURE(n, GLIBC(pthread_mutex_lock)(&rg); GLIBC(pthread_mutex_unlock)(&rg)));
    ROW("mutex_trylock_unlock", MEASURE(n, pthread_mutex_trylock(&m); pthread_mutex_unlock(&m)),
        MEASURE(n, GLIBC(pthread_mutex_trylock)(&g); GLIBC(pthread_mutex_unlock)(&g)));
    pthread_cond_t c = PTHREAD_COND_INITIALIZER, cg = PTHREAD_COND_INITIALIZER;
    ROW("cond_signal_nobody", MEASURE(n, pthread_cond_signal(&c)), MEASURE(n, GLIBC(pthread_cond_signal)(&cg)));
    pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER, lg = PTHREAD_RWLOCK_INITIALIZER;
    ROW("rwlock_rdlock_unlock", MEASURE(n, pthread_rwlock_rdlock(&l); pthread_rwlock_unlock(&l)),
        MEASURE(n, GLIBC(pthread_rwlock_rdlock)(&lg); GLIBC(pthread_rwlock_unlock)(&lg)));
    ROW("rwlock_wrlock_unlock", MEASURE(n, pthread_rwlock_wrlock(&l); pthread_rwlock_unlock(&l)),
        MEASURE(n, GLIBC(pthread_rwlock_wrlock)(&lg); GLIBC(pthread_rwlock_unlock)(&lg)));
    pthread_spinlock_t s, sg;
    pthread_spin_init(&s, 0);
    GLIBC(pthread_spin_init)(&sg, 0);
    ROW("spin_lock_unlock", MEASURE(n, pthread_spin_lock(&s); pthread_spin_unlock(&s)),
        MEASURE(n, GLIBC(pthread_spin_lock)(&sg); GLIBC(pthread_spin_unlock)(&sg)));
    sem_t se, seg;
    sem_init(&se, 0, 0);
    GLIBC(sem_init)(&seg, 0, 0);
    ROW("sem_post_wait", MEASURE(n, sem_post(&se); sem_wait(&se)), MEASURE(n, GLIBC(sem_post)(&seg); GLIBC(sem_wait)(&seg)));
    pthread_key_t k;
    pthread_key_create(&k, NULL);
    pthread_setspecific(k, &k);
    GLIBC(pthread_setspecific)(k, &k);
    volatile void *sink;
    ROW("getspecific", MEASURE(n, sink = pthread_getspecific(k)), MEASURE(n, sink = GLIBC(pthread_getspecific)(k)));
    ROW("setspecific", MEASURE(n, pthread_setspecific(k, &k)), MEASURE(n, GLIBC(pthread_setspecific)(k, &k)));
    volatile pthread_t self; /* pthread_self is declared const: glibc's loop may be hoisted */
    ROW("self", MEASURE(n, self = pthread_self()), MEASURE(n, self = GLIBC(pthread_self)()));
    (void)self;
    (void)sink;
    pthread_once_t o = PTHREAD_ONCE_INIT, og = PTHREAD_ONCE_INIT;
    ROW("once_done", MEASURE(n, pthread_once(&o, once_init)), MEASURE(n, GLIBC(pthread_once)(&og, once_init)));
    ROW("flockfile_funlockfile", MEASURE(n, flockfile(stdout); funlockfile(stdout)),
        MEASURE(n, GLIBC(flockfile)(stdout); GLIBC(funlockfile)(stdout)));

    long creates = 20000 * scale;
    ROW("create_join", MEASURE_ON(CLOCK_MONOTONIC, creates, { pthread_t t; pthread_create(&t, NULL, nothing, NULL); pthread_join(t, NULL); }),
        MEASURE_ON(CLOCK_MONOTONIC, creates, { pthread_t t; GLIBC(pthread_create)(&t, NULL, nothing, NULL); GLIBC(pthread_join)(t, NULL); }));

    pingpongs = 100000 * scale;
    pthread_setconcurrency(1); /* the user threads share one processor */
    if (!strcmp(wanted, "cond_handoff")) {
        pthread_t t[2];
        turn = 0;
        double t0 = now_ns();
        if (glibc_side) {
            for (long i = 0; i < 2; i++) GLIBC(pthread_create)(&t[i], NULL, glibc_partner, (void *)i);
            for (long i = 0; i < 2; i++) GLIBC(pthread_join)(t[i], NULL);
        } else {
            for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, ours_partner, (void *)i);
            for (long i = 0; i < 2; i++) pthread_join(t[i], NULL);
        }
        printf("RESULT %.1f\n", (now_ns() - t0) / (2 * pingpongs));
        measured = true;
    }
    if (!measured) {
        fprintf(stderr, "pthread_bench: no call named %s\n", wanted);
        return 2;
    }
    return 0;
}
