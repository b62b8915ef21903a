/* sched_test.h: helpers of the scheduler suite (test/scheduler), on top of
 * the runtime suite's check.h (CHECK, CHECK_EQ, repeat_count, procs_start;
 * the RUN lines add test/runtime/include to the include path) and
 * sched_sync.h (the benchmarks' blocking objects).
 *
 * A test repeats its body %stress times; REPORT prints a result line on the
 * first repetition only, so that FileCheck sees one block whatever the
 * count, while every repetition checks every invariant.
 */
#ifndef CFA_SCHED_TEST_H
#define CFA_SCHED_TEST_H

#include "check.h"
#include "sched_sync.h"

static long rep_index;

#define REPORT(...)                                                        \
    do {                                                                   \
        if (rep_index == 0) {                                              \
            printf(__VA_ARGS__);                                           \
            fflush(stdout);                                                \
        }                                                                  \
    } while (0)

/* Cache-line-aligned zeroed array of n objects. */
static inline void *zalloc_aligned(size_t n, size_t size) {
    size_t bytes = ((n * size + 63) / 64) * 64;
    void *p = aligned_alloc(64, bytes ? bytes : 64);
    CHECK(p != NULL, "out of memory (%zu bytes)", bytes);
    memset(p, 0, bytes);
    return p;
}

#endif
