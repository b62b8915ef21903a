// Processors added and removed 1,000 times while 64 threads yield: every
// thread finishes, no step is lost or run twice, and the processor count
// is right at every point. Each thread does exactly STEPS steps; a step is
// a yield and two increments (its own counter and a shared atomic one).
// A thread that ran on two processors at once, or was lost in a removed
// processor's queue, breaks the counts or hangs (the timeout).
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: churn 1000 processors, 64 threads, steps 128000 exact ok
#include "check.h"

enum { THREADS = 64, CHURN = 1000, STEPS = 2000 };

struct yielder {
    int               index;
    long              steps;
    _Atomic int       in_step;    /* 1 while a step runs: catches a double run */
    struct cfa_thread thread;
};

static _Atomic long total_steps;
static _Atomic int  churning, running;

static void yielder_main(void *object) {
    struct yielder *y = object;
    atomic_fetch_add(&running, 1);
    for (long i = 0; i < STEPS; i++) {
        CHECK(atomic_exchange(&y->in_step, 1) == 0, "thread %d runs twice at once", y->index);
        y->steps++;
        atomic_fetch_add(&total_steps, 1);
        atomic_store(&y->in_step, 0);
        cfa_yield();
        /* Spread the steps over the whole churn: wait while it lasts, but
         * do not depend on it (the steps stay exact either way). */
        if (i == STEPS / 2)
            while (atomic_load(&churning)) cfa_yield();
    }
    atomic_fetch_sub(&running, 1);
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    struct cfa_cluster *cl = cfa_current_cluster();
    static struct yielder ys[THREADS];
    for (long r = 0; r < reps; r++) {
        memset(ys, 0, sizeof ys);
        atomic_store(&total_steps, 0);
        atomic_store(&churning, 1);
        for (int i = 0; i < THREADS; i++) {
            ys[i].index = i;
            cfa_thread_start(&ys[i].thread, yielder_main, &ys[i], "Yielder", 0);
        }
        int max_running = 0;
        for (int k = 0; k < CHURN; k++) {
            struct cfa_processor p;
            memset(&p, 0, sizeof p);
            cfa_processor_start(&p);
            CHECK_EQ(cfa_cluster_processor_count(cl), 2);
            if (k % 2) cfa_yield();          /* main may move onto p, then stop it */
            int run = atomic_load(&running);
            if (run > max_running) max_running = run;
            cfa_processor_stop(&p);
            CHECK_EQ(cfa_cluster_processor_count(cl), 1);
        }
        /* A heap processor too (the `new(processor)` form). */
        struct cfa_processor *hp = cfa_processor_new(NULL);
        CHECK(hp != NULL);
        CHECK_EQ(cfa_cluster_processor_count(cl), 2);
        atomic_store(&churning, 0);
        for (int i = 0; i < THREADS; i++) cfa_thread_join(&ys[i].thread);
        cfa_processor_delete(hp);
        CHECK_EQ(cfa_cluster_processor_count(cl), 1);
        long sum = 0;
        for (int i = 0; i < THREADS; i++) {
            CHECK(ys[i].steps == STEPS, "thread %d did %ld steps", i, ys[i].steps);
            CHECK_EQ(ys[i].thread.state, CFA_THREAD_HALTED);
            sum += ys[i].steps;
            cfa_thread_destroy(&ys[i].thread);
        }
        CHECK_EQ(atomic_load(&total_steps), (long)THREADS * STEPS);
        CHECK_EQ(sum, (long)THREADS * STEPS);
        CHECK(max_running > 0, "no thread was running during the churn");
        CHECK_EQ(atomic_load(&running), 0);
    }
    printf("churn %d processors, %d threads, steps %ld exact ok\n", CHURN, THREADS,
           atomic_load(&total_steps));
    return 0;
}
