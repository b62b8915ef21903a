// signal versus signal_block, traced in a log: with signal the signaller
// finishes its call first, then the waiter runs; with signal_block the
// waiter runs at once and the signaller resumes after it leaves. Also
// front (the wait info of the first waiter), empty, and the return value
// of signal on an empty condition. Waiters queue in FIFO order.
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: signal: S1 S2 W7
// CHECK-NEXT: signal_block: S1 W7 S2
// CHECK-NEXT: fifo fronts: 1 2 3, woken in order 1 2 3
// CHECK-NEXT: empty condition: signal 0, signal_block 0
#include "mutex_call.h"

struct gate { _Atomic int waiting; struct cfa_condition open; struct cfa_monitor mon; };
static char log_buf[256];
static void note(const char *s) { strcat(log_buf, s); strcat(log_buf, " "); }

static void pass(struct gate *g, uintptr_t ticket) {
    MUTEX_CALL(pass, &g->mon);
    g->waiting++;
    cfa_wait(&g->open, ticket);
    char s[16];
    snprintf(s, sizeof s, "W%lu", (unsigned long)ticket);
    note(s);
    g->waiting--;
}

static void release(struct gate *g, bool block) {
    MUTEX_CALL(release, &g->mon);
    note("S1");
    bool had = block ? cfa_signal_block(&g->open) : cfa_signal(&g->open);
    CHECK(had);
    note("S2");
}

struct passer { struct gate *gate; uintptr_t ticket; struct cfa_thread thread; };
static void passer_main(void *object) {
    struct passer *p = object;
    pass(p->gate, p->ticket);
}

static int fronts(struct gate *g, uintptr_t *out) {
    MUTEX_CALL(fronts, &g->mon);
    int n = 0;
    while (!cfa_condition_empty(&g->open)) {
        out[n++] = cfa_condition_front(&g->open);
        cfa_signal_block(&g->open);
    }
    return n;
}

static int signal_empty(struct gate *g, bool block) {
    MUTEX_CALL(signal_empty, &g->mon);
    return block ? cfa_signal_block(&g->open) : cfa_signal(&g->open);
}

int main(int argc, char **argv) {
    long repeat = repeat_count(argc, argv);
    for (long r = 0; r < repeat; r++) {
        for (int block = 0; block <= 1; block++) {
            struct gate g = {0};
            log_buf[0] = 0;
            struct passer a = { &g, 7 };
            cfa_thread_start(&a.thread, passer_main, &a, "Passer", 0);
            while (atomic_load(&g.waiting) == 0) cfa_yield();
            release(&g, block);
            cfa_thread_join(&a.thread);
            const char *want = block ? "S1 W7 S2 " : "S1 S2 W7 ";
            CHECK(strcmp(log_buf, want) == 0, "log '%s'", log_buf);
            if (r == 0) printf("%s: %.*s\n", block ? "signal_block" : "signal", (int)strlen(log_buf) - 1, log_buf);
        }
        struct gate g = {0};
        log_buf[0] = 0;
        struct passer p[3] = { { &g, 1 }, { &g, 2 }, { &g, 3 } };
        for (int i = 0; i < 3; i++) {
            cfa_thread_start(&p[i].thread, passer_main, &p[i], "Passer", 0);
            while (atomic_load(&g.waiting) != i + 1) cfa_yield();
        }
        uintptr_t f[3];
        CHECK_EQ(fronts(&g, f), 3);
        for (int i = 2; i >= 0; i--) cfa_thread_join(&p[i].thread);
        CHECK(f[0] == 1 && f[1] == 2 && f[2] == 3, "%lu %lu %lu", f[0], f[1], f[2]);
        CHECK(strcmp(log_buf, "W1 W2 W3 ") == 0, "log '%s'", log_buf);
        int e1 = signal_empty(&g, false), e2 = signal_empty(&g, true);
        CHECK(!e1 && !e2);
        if (r == 0) {
            printf("fifo fronts: %lu %lu %lu, woken in order 1 2 3\n", f[0], f[1], f[2]);
            printf("empty condition: signal %d, signal_block %d\n", e1, e2);
        }
    }
    return 0;
}
