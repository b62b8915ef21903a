/* sleep_lateness: how late cfa_sleep_ns wakes its sleepers, the statistic
 * that test/io/sleep.c prints but never asserts (it depends on the
 * machine's load as much as on the runtime).
 *
 *   build/bench/sleep_lateness [sleepers [processors]]   (default 10000 2)
 *
 * Each sleeper sleeps a random 1-20 ms; twice: with the processors idle
 * (their armed wake-ups end the sleeps), then beside a thread that keeps
 * yielding (busy processors end them in their polls). Prints, per phase,
 * the median, 99th percentile and worst lateness in microseconds. */
#include <cfa/runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct sleeper { int64_t ns, deadline, woke; struct cfa_thread thread; };

static void sleeper_main(void *object) {
    struct sleeper *s = object;
    s->deadline = cfa_clock_ns() + s->ns;
    cfa_sleep_ns(s->ns);
    s->woke = cfa_clock_ns();
}

static _Atomic int stop_yielding;
static void yielder(void *unused) {
    (void)unused;
    while (!atomic_load(&stop_yielding)) cfa_yield();
}

static int by_value(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 10000, procs = argc > 2 ? atoi(argv[2]) : 2;
    if (n < 1 || procs < 1 || procs > 64) {
        fprintf(stderr, "usage: sleep_lateness [sleepers >= 1 [processors 1-64]]\n");
        return 2;
    }
    struct cfa_processor extra[64] = {0};
    for (int i = 1; i < procs; i++) cfa_processor_start(&extra[i]);
    struct sleeper *s = calloc((size_t)n, sizeof *s);
    int64_t *late = calloc((size_t)n, sizeof *late);
    if (!s || !late) return 1;
    uint32_t x = 12345;
    for (int busy = 0; busy < 2; busy++) {
        struct cfa_thread y = {0};
        atomic_store(&stop_yielding, 0);
        if (busy) cfa_thread_start(&y, yielder, NULL, "Yielder", 0);
        for (int i = 0; i < n; i++) {
            x ^= x << 13; x ^= x >> 17; x ^= x << 5;
            s[i] = (struct sleeper){ .ns = (1 + (int64_t)(x % 20)) * 1000000 + (int64_t)(x % 1000) * 1000 };
            cfa_thread_start(&s[i].thread, sleeper_main, &s[i], "Sleeper", 64 * 1024);
        }
        for (int i = 0; i < n; i++) cfa_thread_destroy(&s[i].thread);
        atomic_store(&stop_yielding, 1);
        if (busy) cfa_thread_destroy(&y);
        for (int i = 0; i < n; i++) late[i] = s[i].woke - s[i].deadline;
        qsort(late, (size_t)n, sizeof *late, by_value);
        printf("%s processors, %d sleepers on %d: lateness median %lld us, p99 %lld us, worst %lld us\n",
               busy ? "busy" : "idle", n, procs, (long long)late[n / 2] / 1000,
               (long long)late[(int)(n * 0.99)] / 1000, (long long)late[n - 1] / 1000);
    }
    for (int i = 1; i < procs; i++) cfa_processor_stop(&extra[i]);
    free(s);
    free(late);
    return 0;
}
