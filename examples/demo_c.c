/* demo_c.c: cfa-lite's runtime from plain C, no compiler needed.
 *
 * Shows the three building blocks the language constructs become:
 *   1. a coroutine used as a generator (Fibonacci);
 *   2. two full coroutines passing control back and forth (ping-pong);
 *   3. user threads spread over extra processors (kernel threads),
 *      summing a range in parallel, then joined.
 *
 * Build and run: `make demo`. By hand:
 *   clang-19 -O2 -Iruntime/include examples/demo_c.c build/runtime/libcfa.a \
 *            -luring -lhwloc -lpthread -o demo && ./demo
 */
#include <cfa/runtime.h>
#include <stdio.h>
#include <string.h>

/* 1. A generator. The descriptor is the LAST member; main receives the
 *    object whose address was given to cfa_coroutine_setup. */
struct fib {
    long                 value;
    struct cfa_coroutine cor;
};

static void fib_main(void *object) {
    struct fib *f = object;
    long a = 0, b = 1;
    for (;;) {
        f->value = a;
        cfa_coroutine_suspend();          /* back to whoever resumed us */
        long t = a + b; a = b; b = t;
    }
}

/* 2. Ping-pong: each player resumes the other; when ping's main returns,
 *    control goes back to its starter (main). */
struct player {
    const char          *word;
    int                  rounds;
    struct player       *partner;
    struct cfa_coroutine cor;
};

static void player_main(void *object) {
    struct player *p = object;
    for (int i = 0; i < p->rounds; i++) {
        printf("%s%s", i ? " " : "  ", p->word);
        cfa_coroutine_resume(&p->partner->cor);
    }
}

/* 3. Threads: each sums a slice; they run on 4 processors. */
enum { WORKERS = 8, PROCESSORS = 4 };
struct worker {
    long              from, to, sum;
    struct cfa_thread thread;
};

static void worker_main(void *object) {
    struct worker *w = object;
    for (long i = w->from; i < w->to; i++) {
        w->sum += i;
        if (i % 100000 == 0) cfa_yield();  /* let the others run too */
    }
}

int main(void) {
    printf("cfa-lite demo (C API)\n");

    struct fib f;
    memset(&f, 0, sizeof f);
    cfa_coroutine_setup(&f.cor, fib_main, &f, "Fib");
    printf("generator: fibonacci:");
    for (int i = 0; i < 12; i++) {
        cfa_coroutine_resume(&f.cor);
        printf(" %ld", f.value);
    }
    printf("\n");
    cfa_coroutine_destroy(&f.cor);

    struct player ping = { .word = "ping", .rounds = 3 }, pong = { .word = "pong", .rounds = 3 };
    ping.partner = &pong;
    pong.partner = &ping;
    cfa_coroutine_setup(&ping.cor, player_main, &ping, "Ping");
    cfa_coroutine_setup(&pong.cor, player_main, &pong, "Pong");
    printf("coroutines: ping-pong:\n");
    cfa_coroutine_resume(&ping.cor);
    printf("\n");
    cfa_coroutine_destroy(&ping.cor);
    cfa_coroutine_destroy(&pong.cor);

    struct cfa_processor procs[PROCESSORS - 1];
    memset(procs, 0, sizeof procs);
    for (int i = 0; i < PROCESSORS - 1; i++) cfa_processor_start(&procs[i]);
    printf("threads: %d workers on %u processors\n", WORKERS,
           cfa_cluster_processor_count(cfa_current_cluster()));

    const long n = 10000000;
    struct worker ws[WORKERS];
    memset(ws, 0, sizeof ws);
    for (int i = 0; i < WORKERS; i++) {
        ws[i].from = n / WORKERS * i;
        ws[i].to = i == WORKERS - 1 ? n : n / WORKERS * (i + 1);
        cfa_thread_start(&ws[i].thread, worker_main, &ws[i], "Worker", 0);
    }
    long total = 0;
    for (int i = 0; i < WORKERS; i++) {
        cfa_thread_join(&ws[i].thread);
        total += ws[i].sum;
        cfa_thread_destroy(&ws[i].thread);
    }
    for (int i = PROCESSORS - 2; i >= 0; i--) cfa_processor_stop(&procs[i]);
    printf("  sum of 0..%ld = %ld (expected %ld)\n", n - 1, total, n * (n - 1) / 2);
    return total == n * (n - 1) / 2 ? 0 : 1;
}
