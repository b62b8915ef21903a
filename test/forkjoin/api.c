// The fork-join C API (cfa/forkjoin.h) on 1 and 2 processors:
// parallel_for calls its body on disjoint sub-ranges covering [lo, hi)
// exactly once (every index counted once, for many shapes and grains), as
// one call on 1 processor and split on 2;
// parallel_reduce equals the sequential result, with a non-commutative
// combine that checks the sub-ranges arrive in index order; task groups:
// recursive fib with a group per call, a group reused, tasks that spawn
// into their own group; and all of it from several user threads at once.
// Waits also hold under stray wake-ups (legal: a pest thread unparks the
// waiting thread at random moments while it waits on groups).
//
// RUN: %cc %s -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress 1 | FileCheck %s
// RUN: %timeout %t %stress 2 | FileCheck %s
// CHECK: parallel_for: every index exactly once
// CHECK-NEXT: parallel_reduce: equals the sequential result, in index order
// CHECK-NEXT: task groups: fib(24) = 46368
// CHECK-NEXT: from 4 threads at once: ok
// CHECK-NEXT: stray wake-ups: ok
#include "check.h"
#include "task.h"

#include <cfa/forkjoin.h>

enum { MAX_N = 200000 };
static _Atomic unsigned char seen[MAX_N];
static _Atomic long          calls;
static int                   processors;

struct shape { int64_t lo, hi, grain; };

static void mark(int64_t first, int64_t last, void *arg) {
    int64_t base = *(int64_t *)arg;
    CHECK(first < last, "empty sub-range [%lld, %lld)", (long long)first, (long long)last);
    for (int64_t i = first; i < last; i++)
        atomic_fetch_add(&seen[i - base], 1);
    atomic_fetch_add(&calls, 1);
}

static void check_for(struct shape s) {
    memset(seen, 0, sizeof seen);
    atomic_store(&calls, 0);
    int64_t base = s.lo;
    cfa_parallel_for(s.lo, s.hi, s.grain, mark, &base);
    for (int64_t i = s.lo; i < s.hi; i++)
        CHECK_EQ(atomic_load(&seen[i - base]), 1);
    if (s.hi <= s.lo)
        CHECK_EQ(atomic_load(&calls), 0);
    if (processors == 1 && s.hi > s.lo) /* nothing could run a second leaf */
        CHECK_EQ(atomic_load(&calls), 1);
    if (processors == 2 && s.hi - s.lo >= 1000 && s.grain <= 10) /* work for both */
        CHECK(atomic_load(&calls) >= 2, "[%lld, %lld) in %ld call", (long long)s.lo, (long long)s.hi, atomic_load(&calls));
    if (s.grain > 0 && s.hi > s.lo) /* no sub-range below the grain: at most range/grain calls */
        CHECK(atomic_load(&calls) <= (s.hi - s.lo + s.grain - 1) / s.grain, "%ld calls", atomic_load(&calls));
}

/* Sum of squares, and an ordered interval that only joins neighbours. */
struct acc { long long sum; int64_t first, last; int joined_out_of_order; };

static void acc_body(int64_t first, int64_t last, void *accp, void *arg) {
    struct acc *a = accp;
    for (int64_t i = first; i < last; i++) a->sum += i * i;
    if (a->first == a->last) { a->first = first; a->last = last; }
    else { if (a->last != first) a->joined_out_of_order = 1; a->last = last; }
}

static void acc_combine(void *intop, const void *fromp, void *arg) {
    struct acc *into = intop;
    const struct acc *from = fromp;
    into->sum += from->sum;
    into->joined_out_of_order |= from->joined_out_of_order;
    if (from->first == from->last) return;
    if (into->first == into->last) { into->first = from->first; into->last = from->last; return; }
    if (into->last != from->first) into->joined_out_of_order = 1;
    into->last = from->last;
}

static void check_reduce(int64_t lo, int64_t hi, int64_t grain) {
    struct acc identity = { 0, 0, 0, 0 }, result;
    memset(&result, 0x5a, sizeof result);
    cfa_parallel_reduce(lo, hi, grain, &identity, &result, sizeof result, acc_body, acc_combine, NULL);
    long long expect = 0;
    for (int64_t i = lo; i < hi; i++) expect += i * i;
    CHECK_EQ(result.sum, expect);
    CHECK_EQ(result.joined_out_of_order, 0);
    if (hi > lo) { CHECK_EQ(result.first, lo); CHECK_EQ(result.last, hi); }
    else CHECK_EQ(result.first, result.last);
}

struct fib { int n; long result; };

static void fib_task(void *arg) {
    struct fib *f = arg;
    if (f->n < 2) { f->result = f->n; return; }
    struct fib a = { f->n - 1, 0 }, b = { f->n - 2, 0 };
    cfa_task_group g;
    cfa_task_group_init(&g);
    cfa_task_spawn(&g, fib_task, &a);
    fib_task(&b);
    cfa_task_group_wait(&g);
    f->result = a.result + b.result;
}

/* Tasks that spawn more tasks into their own group: a tree of 3^6 leaves. */
struct tree { cfa_task_group *g; int depth; _Atomic long *leaves; };
static struct tree trees[2000];
static _Atomic int  next_tree;

static void tree_task(void *arg) {
    struct tree *t = arg;
    if (t->depth == 0) { atomic_fetch_add(t->leaves, 1); return; }
    for (int k = 0; k < 3; k++) {
        struct tree *c = &trees[atomic_fetch_add(&next_tree, 1)];
        *c = (struct tree){ t->g, t->depth - 1, t->leaves };
        cfa_task_spawn(t->g, tree_task, c);
    }
}

static void check_groups(void) {
    struct fib f = { 24, 0 };
    fib_task(&f);
    CHECK_EQ(f.result, 46368);
    cfa_task_group g;
    cfa_task_group_init(&g);
    cfa_task_group_wait(&g); /* nothing spawned: returns */
    for (int round = 0; round < 3; round++) { /* reused after wait */
        _Atomic long leaves = 0;
        atomic_store(&next_tree, 0);
        struct tree *root = &trees[atomic_fetch_add(&next_tree, 1)];
        *root = (struct tree){ &g, 6, &leaves };
        cfa_task_spawn(&g, tree_task, root);
        cfa_task_group_wait(&g);
        CHECK_EQ(atomic_load(&leaves), 729);
    }
}

/* Each thread sums its own range with parallel_for. */
struct worker_arg { int64_t lo, hi; _Atomic long long sum; };
static void add_range(int64_t first, int64_t last, void *arg) {
    struct worker_arg *w = arg;
    long long s = 0;
    for (int64_t i = first; i < last; i++) s += i;
    atomic_fetch_add(&w->sum, s);
}
static void summer(void *arg) {
    struct worker_arg *w = arg;
    for (int r = 0; r < 20; r++)
        cfa_parallel_for(w->lo, w->hi, 0, add_range, w);
}

struct pest { struct cfa_thread *target; _Atomic int stop; };
static void pester(void *arg) {
    struct pest *p = arg;
    while (!atomic_load(&p->stop)) {
        cfa_unpark(p->target);
        cfa_yield();
    }
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    struct extra_procs procs;
    processors = (int)arg_long(argc, argv, 2, 1);
    procs_start(&procs, processors);
    static const struct shape shapes[] = {
        { 0, 0, 0 }, { 5, 3, 0 }, { 0, 1, 0 }, { 0, 2, 1 }, { 0, 1000, 0 }, { 0, 1000, 1 },
        { 0, 1000, 7 }, { -500, 500, 3 }, { 0, 1000, 5000 }, { 0, MAX_N, 0 }, { 17, MAX_N, 1000 },
    };
    for (long r = 0; r < reps; r++) {
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) check_for(shapes[i]);
        if (r == 0) printf("parallel_for: every index exactly once\n");
        check_reduce(0, 0, 0);
        check_reduce(0, 1, 0);
        check_reduce(0, 100000, 0);
        check_reduce(-3000, 7001, 1);
        check_reduce(0, 1000000, 10);
        if (r == 0) printf("parallel_reduce: equals the sequential result, in index order\n");
        check_groups();
        if (r == 0) printf("task groups: fib(24) = 46368\n");
        struct worker_arg ws[4];
        struct task ts[4];
        for (int i = 0; i < 4; i++) {
            ws[i].lo = i * 10000; ws[i].hi = (i + 1) * 10000 + i;
            atomic_store(&ws[i].sum, 0);
            task_start(&ts[i], summer, &ws[i], "Summer");
        }
        for (int i = 0; i < 4; i++) {
            cfa_thread_join(&ts[i].thread);
            long long expect = 0;
            for (int64_t k = ws[i].lo; k < ws[i].hi; k++) expect += k;
            CHECK_EQ(atomic_load(&ws[i].sum), 20 * expect);
        }
        if (r == 0) printf("from 4 threads at once: ok\n");
        struct pest p = { cfa_active_thread(), 0 };
        struct task pt;
        task_start(&pt, pester, &p, "Pest");
        for (int k = 0; k < 5; k++) check_groups();
        atomic_store(&p.stop, 1);
        cfa_thread_join(&pt.thread);
        if (r == 0) printf("stray wake-ups: ok\n");
    }
    procs_stop(&procs);
    return 0;
}
