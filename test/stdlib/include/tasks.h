/* Helpers of the stdlib suite's C programs: user threads that run a
 * function on an argument (the C spelling of a cfa-lite `thread`), on top
 * of the runtime suite's check.h (CHECK, repeat_count, procs_start).
 * A task is started by task_spawn and joined and freed by task_join.
 */
#ifndef CFA_STD_TEST_TASKS_H
#define CFA_STD_TEST_TASKS_H

#include "check.h"
#include "task.h"

#include <stdbool.h>

/* A heap-allocated task named `name` (the C-API suites' task.h), freed by
 * task_join. */
static inline struct task *task_spawn(void (*fn)(void *), void *arg, const char *name) {
    struct task *t = calloc(1, sizeof *t);
    CHECK(t != NULL, "out of memory");
    task_start_named(t, fn, arg, "task", name);
    return t;
}

static inline void task_join(struct task *t) {
    cfa_thread_destroy(&t->thread);
    free(t);
}

/* Lets other threads run until `cond` holds (bounded: a test that waits
 * for something that never happens fails instead of hanging). */
#define YIELD_UNTIL(cond)                                                  \
    do {                                                                   \
        long _spins = 0;                                                   \
        while (!(cond)) {                                                  \
            CHECK(++_spins < 100000000L, "gave up waiting for %s", #cond); \
            cfa_yield();                                                   \
        }                                                                  \
    } while (0)

#endif
