// Coroutines as generators: Fibonacci, a lazy stack, many generators
// interleaved, and the state machine INACTIVE -> ACTIVE -> HALTED.
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: fib: 0 1 1 2 3 5 8 13 21 34
// CHECK-NEXT: fib(90) = 2880067194370816120
// CHECK-NEXT: interleaved 1000 generators ok
// CHECK-NEXT: counted to 5 then halted
// CHECK-NEXT: ok
#include "check.h"

struct fib {
    long                 fn;
    struct cfa_coroutine cor;   /* last member */
};

static void fib_main(void *object) {
    struct fib *f = object;
    CHECK(cfa_coroutine_active() == &f->cor, "active coroutine is not the fib");
    long a = 0, b = 1;
    for (;;) {
        f->fn = a;
        cfa_coroutine_suspend();
        long t = a + b; a = b; b = t;
    }
}

static long fib_next(struct fib *f) {
    cfa_coroutine_resume(&f->cor);
    return f->fn;
}

/* A generator whose main returns after `limit` values. */
struct counter {
    int                  value, limit;
    struct cfa_coroutine cor;
};

static void counter_main(void *object) {
    struct counter *c = object;
    for (c->value = 1; c->value <= c->limit; c->value++) cfa_coroutine_suspend();
    c->value = -1;                     /* main returns to its starter */
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    struct cfa_coroutine *self = cfa_coroutine_active();
    CHECK(self != NULL && self == &cfa_active_thread()->self, "main's own coroutine");

    for (long r = 0; r < reps; r++) {
        /* One generator: the sequence, and the lazy stack. */
        struct fib f;
        memset(&f, 0, sizeof f);
        cfa_coroutine_setup(&f.cor, fib_main, &f, "Fib");
        CHECK_EQ(f.cor.state, CFA_COROUTINE_INACTIVE);
        CHECK(f.cor.stack.map == NULL, "stack allocated before the first resume");
        long seq[91];
        for (int i = 0; i <= 90; i++) {
            seq[i] = fib_next(&f);
            CHECK(cfa_coroutine_active() == self, "resume did not come back to main");
        }
        CHECK_EQ(f.cor.state, CFA_COROUTINE_ACTIVE);
        CHECK(f.cor.stack.map != NULL, "active coroutine without a stack");
        CHECK(f.cor.starter == self && f.cor.last == self, "starter/last is not main");
        for (int i = 2; i <= 90; i++) CHECK_EQ(seq[i], seq[i - 1] + seq[i - 2]);
        if (r == 0) {
            printf("fib:");
            for (int i = 0; i < 10; i++) printf(" %ld", seq[i]);
            printf("\nfib(90) = %ld\n", seq[90]);
        }
        cfa_coroutine_destroy(&f.cor);

        /* Many generators, resumed round robin: each keeps its own state. */
        enum { G = 1000, STEPS = 50 };
        struct fib *gs = calloc(G, sizeof *gs);
        CHECK(gs != NULL);
        for (int g = 0; g < G; g++) cfa_coroutine_setup(&gs[g].cor, fib_main, &gs[g], "Fib");
        for (int s = 0; s < STEPS; s++)
            for (int g = 0; g < G; g++) {
                /* generator g is g steps ahead: skip g values once */
                if (s == 0) for (int k = 0; k < g % 7; k++) fib_next(&gs[g]);
                long v = fib_next(&gs[g]);
                CHECK(v == seq[s + g % 7], "generator %d step %d: %ld", g, s, v);
            }
        for (int g = 0; g < G; g++) cfa_coroutine_destroy(&gs[g].cor);
        free(gs);
        if (r == 0) printf("interleaved %d generators ok\n", G);

        /* A generator that finishes: HALTED, stack can be destroyed. */
        struct counter c;
        memset(&c, 0, sizeof c);
        c.limit = 5;
        cfa_coroutine_setup(&c.cor, counter_main, &c, "Counter");
        int count = 0;
        for (;;) {
            cfa_coroutine_resume(&c.cor);
            if (c.value < 0) break;
            CHECK_EQ(c.value, count + 1);
            count++;
            CHECK(count <= 5, "counter ran past its limit");
        }
        CHECK_EQ(c.cor.state, CFA_COROUTINE_HALTED);
        cfa_coroutine_destroy(&c.cor);
        if (r == 0) printf("counted to %d then halted\n", count);

        /* Destroying a coroutine that never ran, and one suspended mid-way. */
        struct fib idle, mid;
        memset(&idle, 0, sizeof idle);
        memset(&mid, 0, sizeof mid);
        cfa_coroutine_setup(&idle.cor, fib_main, &idle, "Fib");
        cfa_coroutine_destroy(&idle.cor);
        cfa_coroutine_setup(&mid.cor, fib_main, &mid, "Fib");
        fib_next(&mid); fib_next(&mid);
        cfa_coroutine_destroy(&mid.cor);
    }
    printf("ok\n");
    return 0;
}
