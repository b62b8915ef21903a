/* task.h: a user thread that runs fn(arg), the C spelling of a cfa-lite
 * `thread`, for the C-API suites that start many (io, stdlib). The caller
 * owns the storage; task_start fills and starts it, cfa_thread_join on
 * t->thread waits for it.
 */
#ifndef CFA_TEST_TASK_H
#define CFA_TEST_TASK_H

#include <cfa/runtime.h>
#include <string.h>

struct task {
    void            (*fn)(void *);
    void             *arg;
    struct cfa_thread thread;
};

static inline void task_main(void *object) {
    struct task *t = object;
    t->fn(t->arg);
}

/* `type` is what the runtime's reports call the thread's type; `name`,
 * if not NULL, its name. */
static inline void task_start_named(struct task *t, void (*fn)(void *), void *arg,
                                    const char *type, const char *name) {
    memset(t, 0, sizeof *t);
    t->fn = fn;
    t->arg = arg;
    if (name)
        cfa_thread_set_name(&t->thread, name);
    cfa_thread_start(&t->thread, task_main, t, type, 0);
}

static inline void task_start(struct task *t, void (*fn)(void *), void *arg, const char *type) {
    task_start_named(t, fn, arg, type, NULL);
}

#endif
