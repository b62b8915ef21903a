/* Helpers of the monitor suite: C programs on the runtime's monitor API,
 * written the way cfacc lowers a mutex function (see docs/compiler.md):
 * the monitors of the mutex parameters, a group on the stack, enter in the
 * prologue and leave on every exit (the cleanup attribute).
 */
#ifndef CFA_TEST_MUTEX_CALL_H
#define CFA_TEST_MUTEX_CALL_H

#include "../../runtime/include/check.h"
#include <stdbool.h>

static inline void mutex_call_leave(struct cfa_mutex_group *g) { cfa_mutex_leave(g); }

/* MUTEX_CALL(function, &a->mon, &b->mon ...): the rest of the enclosing
 * block runs holding those monitors, as a call of `function`. */
#define MUTEX_CALL(function, ...)                                                     \
    struct cfa_monitor *mutex_monitors_[] = { __VA_ARGS__ };                          \
    struct cfa_mutex_group mutex_group_ __attribute__((cleanup(mutex_call_leave)));   \
    cfa_mutex_enter(&mutex_group_, mutex_monitors_,                                   \
                    sizeof mutex_monitors_ / sizeof mutex_monitors_[0], (const void *)(function))

/* WAITFOR_CLAUSE(function, &a->mon, &b->mon ...): a clause on those
 * monitors; its array lives as long as the enclosing block. */
#define WAITFOR_CLAUSE(function, ...)                                                 \
    ((struct cfa_waitfor_clause){ (const void *)(function), (struct cfa_monitor *[]){ __VA_ARGS__ }, \
                                  sizeof((struct cfa_monitor *[]){ __VA_ARGS__ }) / sizeof(struct cfa_monitor *) })

#endif
