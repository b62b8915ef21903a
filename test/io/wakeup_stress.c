// No lost wake-up between an I/O completion and idle sleep. Every round
// trip below lets the processors run out of work, so each one ends with a
// processor woken from (or on its way into) idle sleep by its ring's
// eventfd (io_uring) or by the poller (fallback). A lost wake-up hangs
// the test (the timeout), or, if something rescues the sleeper late (a
// timer, the deadlock check), shows as a round trip of seconds. The bound,
// 30 s per round trip, is 30,000x the normal latency and still over 20x
// the slowest round trip seen under ThreadSanitizer on a loaded 2-CPU
// machine (0.3-1.4 s): only a lost wake-up can trip it.
//
//   pairs    4 pairs of user threads ping-pong a byte over two pipes on 2
//            processors, 5,000 round trips each;
//   foreign  a pthread answers each byte a user thread writes after a
//            random 0-50 us pause, 5,000 round trips, so the completion
//            comes in while the processors are going to sleep.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress default | FileCheck %s
// RUN: env CFA_IO=fallback %timeout %t %stress fallback | FileCheck %s
// CHECK: pairs: 20000 round trips, none slower than 30 s
// CHECK: foreign: 5000 round trips, none slower than 30 s
#include "iotest.h"

#include <pthread.h>
#include <time.h>

enum { PAIRS = 4, TRIPS = 5000 };
static const double BOUND_S = 30.0;

struct pair {
    int ping[2], pong[2];   /* ping: pinger -> ponger; pong: back */
    double slowest;
    long trips;
};

static void pinger(void *arg) {
    struct pair *p = arg;
    char c = 'x';
    for (int i = 0; i < TRIPS; i++) {
        double t0 = now_seconds();
        write_all(p->ping[1], &c, 1);
        CHECK_EQ(cfa_read(p->pong[0], &c, 1), 1);
        double dt = now_seconds() - t0;
        if (dt > p->slowest) p->slowest = dt;
        p->trips++;
    }
}

static void ponger(void *arg) {
    struct pair *p = arg;
    char c;
    for (int i = 0; i < TRIPS; i++) {
        CHECK_EQ(cfa_read(p->ping[0], &c, 1), 1);
        write_all(p->pong[1], &c, 1);
    }
}

static void *foreign_answerer(void *arg) {
    struct pair *p = arg;
    unsigned seed = 7;
    char c;
    for (int i = 0; i < TRIPS; i++) {
        CHECK_EQ(read(p->ping[0], &c, 1), 1);
        struct timespec pause = { 0, (long)(rand_r(&seed) % 50) * 1000 };
        nanosleep(&pause, NULL);
        CHECK_EQ(write(p->pong[1], &c, 1), 1);
    }
    return NULL;
}

static void open_pair(struct pair *p) {
    memset(p, 0, sizeof *p);
    CHECK(pipe(p->ping) == 0 && pipe(p->pong) == 0);
}

static void close_pair(struct pair *p) {
    close(p->ping[0]); close(p->ping[1]); close(p->pong[0]); close(p->pong[1]);
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    check_engine(argc, argv);
    struct extra_procs procs;
    procs_start(&procs, 2);
    for (long rep = 0; rep < reps; rep++) {
        struct pair pairs[PAIRS];
        struct task tasks[2 * PAIRS];
        for (int i = 0; i < PAIRS; i++) {
            open_pair(&pairs[i]);
            task_start(&tasks[2 * i], pinger, &pairs[i], "pinger");
            task_start(&tasks[2 * i + 1], ponger, &pairs[i], "ponger");
        }
        long trips = 0;
        double slowest = 0;
        for (int i = 0; i < 2 * PAIRS; i++)
            cfa_thread_join(&tasks[i].thread);
        for (int i = 0; i < PAIRS; i++) {
            trips += pairs[i].trips;
            if (pairs[i].slowest > slowest) slowest = pairs[i].slowest;
            close_pair(&pairs[i]);
        }
        CHECK(slowest < BOUND_S, "a round trip took %.3f s: lost wake-up?", slowest);
        if (rep == 0) printf("pairs: %ld round trips, none slower than 30 s\n", trips);

        struct pair f;
        open_pair(&f);
        pthread_t kt;
        CHECK(cfa_kernel_thread_create(&kt, NULL, foreign_answerer, &f) == 0);
        struct task t;
        task_start(&t, pinger, &f, "pinger");
        cfa_thread_join(&t.thread);
        CHECK(cfa_kernel_thread_join(kt, NULL) == 0);
        CHECK(f.slowest < BOUND_S, "a round trip with a pthread took %.3f s: lost wake-up?", f.slowest);
        if (rep == 0) printf("foreign: %ld round trips, none slower than 30 s\n", f.trips);
        close_pair(&f);
    }
    procs_stop(&procs);
    return 0;
}
