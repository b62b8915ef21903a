// Names and identities: a thread's name defaults to its type name, and
// cfa_thread_set_name replaces it (the string is not copied); ids are
// unique; the program's main runs as a user thread with its own
// coroutine; a coroutine keeps its type name; processor and cluster
// handles keep their names.
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: main thread: id {{[0-9]+}}, coroutine is its own
// CHECK-NEXT: default name: Worker
// CHECK-NEXT: set name: worker-0 .. worker-99, seen from inside
// CHECK-NEXT: ids: 100 unique
// CHECK-NEXT: coroutine type name: Gen
// CHECK-NEXT: ok
#include "check.h"

struct worker {
    int               index;
    char              name[32];
    const char       *seen_name;
    struct cfa_thread *seen_self;
    struct cfa_thread thread;
};

static void worker_main(void *object) {
    struct worker *w = object;
    w->seen_self = cfa_active_thread();
    w->seen_name = cfa_thread_name(cfa_active_thread());
}

struct gen { struct cfa_coroutine cor; };
static void gen_main(void *object) { (void)object; for (;;) cfa_coroutine_suspend(); }

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    struct cfa_thread *self = cfa_active_thread();
    CHECK(self != NULL, "main is not a user thread");
    CHECK(cfa_coroutine_active() == &self->self, "main's coroutine");
    CHECK(cfa_thread_name(self) != NULL, "main has no name");
    printf("main thread: id %llu, coroutine is its own\n", (unsigned long long)self->id);

    for (long r = 0; r < reps; r++) {
        enum { N = 100 };
        static struct worker ws[N];
        memset(ws, 0, sizeof ws);

        /* default name: the type name */
        cfa_thread_start(&ws[0].thread, worker_main, &ws[0], "Worker", 0);
        cfa_thread_join(&ws[0].thread);
        CHECK(ws[0].seen_self == &ws[0].thread, "cfa_active_thread inside the thread");
        CHECK(ws[0].seen_name && strcmp(ws[0].seen_name, "Worker") == 0, "default name %s",
              ws[0].seen_name ? ws[0].seen_name : "(null)");
        CHECK(strcmp(cfa_thread_name(&ws[0].thread), "Worker") == 0, "name after halt");
        if (r == 0) printf("default name: %s\n", ws[0].seen_name);
        cfa_thread_destroy(&ws[0].thread);
        memset(&ws[0], 0, sizeof ws[0]);

        /* set names: before the thread runs (1 processor: it runs at join) */
        for (int i = 0; i < N; i++) {
            ws[i].index = i;
            snprintf(ws[i].name, sizeof ws[i].name, "worker-%d", i);
            cfa_thread_start(&ws[i].thread, worker_main, &ws[i], "Worker", 0);
            cfa_thread_set_name(&ws[i].thread, ws[i].name);
            CHECK(cfa_thread_name(&ws[i].thread) == ws[i].name, "name is copied, not kept");
        }
        for (int i = 0; i < N; i++) cfa_thread_join(&ws[i].thread);
        for (int i = 0; i < N; i++) {
            CHECK(ws[i].seen_name == ws[i].name, "thread %d saw name %s", i,
                  ws[i].seen_name ? ws[i].seen_name : "(null)");
            for (int j = 0; j < i; j++)
                CHECK(ws[i].thread.id != ws[j].thread.id, "threads %d and %d share id %llu", i, j,
                      (unsigned long long)ws[i].thread.id);
            CHECK(ws[i].thread.id != self->id, "thread %d has main's id", i);
        }
        if (r == 0) printf("set name: worker-0 .. worker-%d, seen from inside\n", N - 1);
        if (r == 0) printf("ids: %d unique\n", N);
        for (int i = 0; i < N; i++) cfa_thread_destroy(&ws[i].thread);

        struct gen g;
        memset(&g, 0, sizeof g);
        cfa_coroutine_setup(&g.cor, gen_main, &g, "Gen");
        cfa_coroutine_resume(&g.cor);
        CHECK(strcmp(g.cor.type_name, "Gen") == 0, "coroutine type name");
        if (r == 0) printf("coroutine type name: %s\n", g.cor.type_name);
        cfa_coroutine_destroy(&g.cor);

        struct cfa_processor p = { .name = "helper" };
        cfa_processor_start(&p);
        CHECK(strcmp(p.name, "helper") == 0, "processor name");
        cfa_processor_stop(&p);
    }
    printf("ok\n");
    return 0;
}
