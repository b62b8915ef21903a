/* os_turns: how often the processors yield their CPU to the OS (OS turns,
 * docs/preemption.md), the statistic that test/scheduler/os_turns.c
 * bounds but never measures.
 *
 *   CFA_STATS=1 build/bench/os_turns alone|hogs [ms]     (default 300 ms)
 *
 * Four threads keep two processors busy, each spinning a little between
 * cfa_yield calls, alone or beside two CPU-spinning kernel threads per CPU
 * (cfa_kernel_thread_create: a pthread_create here would make user threads).
 * Prints the scheduling decisions made; CFA_STATS prints "os yields" at
 * exit. On an idle machine, alone: about one yield per 0.4 ms turn per
 * processor; among hogs the back-off brings it to about 10 in 300 ms. */
#include <cfa/runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SPINNERS = 4, MAX_HOGS = 64 };

static _Atomic long decisions;
static int64_t until;
static _Atomic int hogs_stop;

static void spinner(void *unused) {
    (void)unused;
    volatile unsigned sink = 0;
    long mine = 0;
    while (cfa_clock_ns() < until) {
        for (unsigned i = 0; i < 500; i++) sink += i;
        cfa_yield();
        mine++;
    }
    atomic_fetch_add(&decisions, mine);
}

static void *hog(void *unused) {
    (void)unused;
    while (!atomic_load_explicit(&hogs_stop, memory_order_relaxed))
        ;
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2 || (strcmp(argv[1], "alone") && strcmp(argv[1], "hogs"))) {
        fprintf(stderr, "usage: CFA_STATS=1 os_turns alone|hogs [ms]\n");
        return 2;
    }
    long ms = argc > 2 ? atol(argv[2]) : 300;
    pthread_t hogs[MAX_HOGS];
    long nhogs = 0, cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (!strcmp(argv[1], "hogs"))
        for (; nhogs < 2 * cpus && nhogs < MAX_HOGS; nhogs++)
            cfa_kernel_thread_create(&hogs[nhogs], NULL, hog, NULL);
    struct cfa_processor extra = {0};
    cfa_processor_start(&extra);
    until = cfa_clock_ns() + ms * 1000000;
    static struct cfa_thread th[SPINNERS];
    for (int i = 0; i < SPINNERS; i++) cfa_thread_start(&th[i], spinner, NULL, "Spinner", 0);
    for (int i = 0; i < SPINNERS; i++) cfa_thread_join(&th[i]);
    cfa_processor_stop(&extra);
    atomic_store(&hogs_stop, 1);
    for (long i = 0; i < nhogs; i++) cfa_kernel_thread_join(hogs[i], NULL);
    printf("%s, %ld ms on 2 processors: %ld scheduling decisions\n", argv[1], ms, atomic_load(&decisions));
    return 0;
}
