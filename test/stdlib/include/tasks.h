/* Helpers of the stdlib suite's C programs: user threads that run a
 * function on an argument (the C spelling of a cfa-lite `thread`), on top
 * of the runtime suite's check.h (CHECK, repeat_count, procs_start).
 * A task is started by task_start and joined and freed by task_join.
 */
#ifndef CFA_STD_TEST_TASKS_H
#define CFA_STD_TEST_TASKS_H

#include "check.h"

#include <stdbool.h>

struct task {
    void            (*fn)(void *);
    void             *arg;
    struct cfa_thread thread;
};

static void task_main(void *object) {
    struct task *t = object;
    t->fn(t->arg);
}

static inline struct task *task_start(void (*fn)(void *), void *arg, const char *name) {
    struct task *t = calloc(1, sizeof *t);
    CHECK(t != NULL, "out of memory");
    t->fn = fn;
    t->arg = arg;
    cfa_thread_set_name(&t->thread, name);
    cfa_thread_start(&t->thread, task_main, t, "task", 0);
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
