// Futures under load on 2 processors: per round, 64 empty futures, 6
// getters that each get all of them in a different order and 2 fulfillers
// that fulfil them interleaved; every getter sees every value the
// fulfillers wrote, no future is fulfilled twice (that would be fatal), no
// waiter is left behind, and reset makes all of them reusable for the next
// round. Arguments: repeat count, rounds.
//
// RUN: %std-cc %s -o %t %std-link
// RUN: %timeout %t %stress 500 | FileCheck %s
// CHECK: 500 rounds x 64 futures, 6 getters, 2 fulfillers ok
#include "tasks.h"

#include <cfa/future.hfa>

future_type(Cell, long);

enum { FUTURES = 64, GETTERS = 6, FULFILLERS = 2 };
static Cell cells[FUTURES];
static long round_no;

struct getter { int id; long sum; };
static void getter_main(void *p) {
    struct getter *g = p;
    for (int k = 0; k < FUTURES; k++) {
        int i = (k * (2 * g->id + 1) + g->id) % FUTURES;   /* a different order per getter */
        long v = get(&cells[i]);
        CHECK_EQ(v, round_no * 1000 + i);
        g->sum += v;
    }
}
struct fulfiller { int id; };
static void fulfiller_main(void *p) {
    int id = ((struct fulfiller *)p)->id;
    for (int i = id; i < FUTURES; i += FULFILLERS) {
        fulfil(&cells[i], round_no * 1000 + i);
        if (i % 8 == id) cfa_yield();
    }
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    long rounds = arg_long(argc, argv, 2, 500);
    struct extra_procs procs;
    procs_start(&procs, 2);
    for (long r = 0; r < reps; r++) {
        for (round_no = 0; round_no < rounds; round_no++) {
            struct getter    g[GETTERS];
            struct fulfiller f[FULFILLERS];
            struct task     *tg[GETTERS], *tf[FULFILLERS];
            for (int i = 0; i < GETTERS; i++) {
                g[i] = (struct getter){ i, 0 };
                tg[i] = task_spawn(getter_main, &g[i], "getter");
            }
            for (int i = 0; i < FULFILLERS; i++) {
                f[i].id = i;
                tf[i] = task_spawn(fulfiller_main, &f[i], "fulfiller");
            }
            for (int i = 0; i < FULFILLERS; i++) task_join(tf[i]);
            for (int i = 0; i < GETTERS; i++) {
                task_join(tg[i]);
                CHECK_EQ(g[i].sum, round_no * 1000 * FUTURES + FUTURES * (FUTURES - 1) / 2);
            }
            for (int i = 0; i < FUTURES; i++) {
                CHECK(available(&cells[i]) && !cells[i].__fut.waiters.head, "future %d", i);
                reset(&cells[i]);
            }
        }
    }
    procs_stop(&procs);
    printf("%ld rounds x %d futures, %d getters, %d fulfillers ok\n", rounds, FUTURES, GETTERS,
           FULFILLERS);
    return 0;
}
