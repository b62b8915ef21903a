/* Helpers of the runtime suite (the C programs in test/runtime).
 *
 * Every test checks invariants with CHECK(): a violation prints
 * "VIOLATION file:line: condition (details)" on stderr and exits 1, so the
 * test fails even if FileCheck would not have noticed. Results that the
 * RUN lines check are printed on stdout.
 *
 * Arguments of every test: argv[1] = repeat count (%stress, default 1),
 * further arguments as each test documents.
 */
#ifndef CFA_TEST_CHECK_H
#define CFA_TEST_CHECK_H

#include <cfa/runtime.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "VIOLATION %s:%d: %s (", __FILE__, __LINE__,   \
                    #cond);                                                \
            fprintf(stderr, "" __VA_ARGS__);                               \
            fprintf(stderr, ")\n");                                        \
            fflush(stdout);                                                \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

#define CHECK_EQ(a, b)                                                     \
    do {                                                                   \
        long long _a = (long long)(a), _b = (long long)(b);                \
        CHECK(_a == _b, "%s = %lld, %s = %lld", #a, _a, #b, _b);           \
    } while (0)

static inline long arg_long(int argc, char **argv, int i, long dflt) {
    if (argc <= i) return dflt;
    char *end;
    long v = strtol(argv[i], &end, 10);
    if (*end || v < 0) {
        fprintf(stderr, "bad argument %d: %s\n", i, argv[i]);
        exit(2);
    }
    return v;
}

static inline long repeat_count(int argc, char **argv) {
    long n = arg_long(argc, argv, 1, 1);
    return n < 1 ? 1 : n;
}

/* Waits until t has parked (yielding the processor, or the CPU from a
 * kernel thread that is not one): a test that needs t blocked forces it
 * this way instead of sleeping and hoping t got there meanwhile. */
static inline void wait_until_blocked(struct cfa_thread *t) {
    int state;
    while ((state = atomic_load(&t->state)) != CFA_THREAD_BLOCKED) {
        CHECK(state != CFA_THREAD_HALTED, "thread %s ended without blocking", cfa_thread_name(t));
        if (cfa_active_thread())
            cfa_yield();
        else
            sched_yield();
    }
}

static inline double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Extra processors on the caller's cluster: `n` processors in total. */
struct extra_procs {
    int                  count;
    struct cfa_processor p[16];
};

static inline void procs_start(struct extra_procs *x, int total) {
    CHECK(total >= 1 && total <= 17, "processor count %d", total);
    memset(x, 0, sizeof *x);
    x->count = total - 1;
    for (int i = 0; i < x->count; i++) cfa_processor_start(&x->p[i]);
}

static inline void procs_stop(struct extra_procs *x) {
    for (int i = x->count - 1; i >= 0; i--) cfa_processor_stop(&x->p[i]);
    x->count = 0;
}

#endif
