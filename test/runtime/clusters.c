// Clusters: a second cluster with its own processor, cfa_migrate there
// and back (the thread then runs on that cluster's kernel thread and no
// other), a thread started on the creator's current cluster, processor
// counts per cluster, and destroying the emptied cluster.
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: default cluster: 1 processor, main on it
// CHECK-NEXT: cluster io: 1 processor
// CHECK-NEXT: migrated 100 times between 2 clusters ok
// CHECK-NEXT: child started on the creator's cluster ok
// CHECK-NEXT: 16 threads migrated concurrently ok
// CHECK-NEXT: cluster destroyed ok
#include "check.h"
#include <sys/syscall.h>
#include <unistd.h>

static pid_t tid(void) { return (pid_t)syscall(SYS_gettid); }

static pid_t main_tid;
static struct cfa_cluster io_cluster = { .name = "io" };
static _Atomic pid_t io_tid;

struct mover {
    int               index;
    long              trips;
    struct cfa_cluster *child_cluster;
    struct cfa_thread thread;
};

static void child_main(void *object) {
    struct mover *m = object;
    m->child_cluster = cfa_current_cluster();
}

static void mover_main(void *object) {
    struct mover *m = object;
    CHECK(cfa_current_cluster() == cfa_default_cluster(), "thread did not start on the default cluster");
    for (int i = 0; i < 100; i++) {
        cfa_migrate(&io_cluster);
        CHECK(cfa_current_cluster() == &io_cluster, "not on io after migrate");
        pid_t t = tid();
        pid_t expect = 0;
        /* only the io processor serves the io cluster */
        if (!atomic_compare_exchange_strong(&io_tid, &expect, t))
            CHECK(t == expect, "ran on kernel thread %d on io, its processor is %d", t, expect);
        CHECK(t != main_tid, "on io, but on the main processor");
        cfa_yield();
        CHECK_EQ(tid(), atomic_load(&io_tid));
        cfa_migrate(cfa_default_cluster());
        CHECK(cfa_current_cluster() == cfa_default_cluster(), "not back on default");
        CHECK(tid() == main_tid, "on default, but not on its only processor");
        m->trips++;
    }
    /* A thread starts on its creator's current cluster. */
    cfa_migrate(&io_cluster);
    struct mover child;
    memset(&child, 0, sizeof child);
    cfa_thread_start(&child.thread, child_main, &child, "Child", 0);
    cfa_thread_join(&child.thread);
    cfa_thread_destroy(&child.thread);
    CHECK(child.child_cluster == &io_cluster, "child started on another cluster");
    cfa_migrate(cfa_default_cluster());
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    main_tid = tid();
    struct cfa_cluster *dflt = cfa_default_cluster();
    CHECK(dflt != NULL && cfa_current_cluster() == dflt, "main is not on the default cluster");
    CHECK(cfa_active_thread()->cluster == dflt, "main's thread->cluster");
    CHECK_EQ(cfa_cluster_processor_count(dflt), 1);
    printf("default cluster: 1 processor, main on it\n");

    for (long r = 0; r < reps; r++) {
        memset(&io_cluster, 0, sizeof io_cluster);
        io_cluster.name = "io";
        atomic_store(&io_tid, 0);
        cfa_cluster_init(&io_cluster);
        CHECK_EQ(cfa_cluster_processor_count(&io_cluster), 0);
        struct cfa_processor p = { .cluster = &io_cluster, .name = "io-proc" };
        cfa_processor_start(&p);
        CHECK_EQ(cfa_cluster_processor_count(&io_cluster), 1);
        CHECK_EQ(cfa_cluster_processor_count(dflt), 1);
        if (r == 0) printf("cluster %s: 1 processor\n", io_cluster.name);

        struct mover m;
        memset(&m, 0, sizeof m);
        cfa_thread_start(&m.thread, mover_main, &m, "Mover", 0);
        cfa_thread_join(&m.thread);
        cfa_thread_destroy(&m.thread);
        CHECK_EQ(m.trips, 100);
        if (r == 0) printf("migrated 100 times between 2 clusters ok\n");
        if (r == 0) printf("child started on the creator's cluster ok\n");

        /* Many threads going back and forth at once. */
        enum { MOVERS = 16 };
        static struct mover ms[MOVERS];
        memset(ms, 0, sizeof ms);
        for (int i = 0; i < MOVERS; i++) {
            ms[i].index = i;
            cfa_thread_start(&ms[i].thread, mover_main, &ms[i], "Mover", 0);
        }
        for (int i = 0; i < MOVERS; i++) {
            cfa_thread_join(&ms[i].thread);
            CHECK_EQ(ms[i].trips, 100);
            cfa_thread_destroy(&ms[i].thread);
        }
        if (r == 0) printf("%d threads migrated concurrently ok\n", MOVERS);

        /* main itself visits io and comes back */
        cfa_migrate(&io_cluster);
        CHECK(tid() != main_tid, "main on io but on the main kernel thread");
        cfa_migrate(dflt);
        CHECK(tid() == main_tid, "main back but on another kernel thread");

        cfa_processor_stop(&p);
        CHECK_EQ(cfa_cluster_processor_count(&io_cluster), 0);
        cfa_cluster_destroy(&io_cluster);
        if (r == 0) printf("cluster destroyed ok\n");
    }
    return 0;
}
