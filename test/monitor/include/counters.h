/* counters.h: two monitors a and b whose mutex calls count themselves and
 * check mutual exclusion, for the mutex-call race tests (fast_path_race.c,
 * one_processor.c). Each call runs enter_check on each monitor it holds,
 * then decrements `inside` before returning; two threads ever inside one
 * monitor at once count an overlap. */
#ifndef CFA_TEST_COUNTERS_H
#define CFA_TEST_COUNTERS_H

#include "mutex_call.h"

struct counter { long calls, pairs, nested; int inside; struct cfa_monitor mon; };
static struct counter a, b;
static _Atomic long overlaps;

static void enter_check(struct counter *c) {
    if (++c->inside != 1)
        overlaps++;
}

/* A two-monitor call; callers pass the monitors in either order. */
static void pair(struct counter *x, struct counter *y) {
    MUTEX_CALL(pair, &x->mon, &y->mon);
    enter_check(x);
    enter_check(y);
    x->pairs++;
    x->inside--;
    y->inside--;
}

#endif
