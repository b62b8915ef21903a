// Free stacks beyond the warm pool give their memory back to the kernel
// (stack.c, trim). N threads each touch TOUCH bytes of their stack and
// park; main wakes the even-numbered ones first, then the odd, so that
// stacks end out of address order and no batch of free stacks is one
// contiguous range, then joins and destroys them all.
//
// `run` checks that resident memory fell by at least half of what the
// stacks held beyond the pools. `verify` reads CFA_STATS: every stack that
// went cold was counted, in at least as many ranges as batches, and, where
// the kernel takes a vector of ranges in one call (process_madvise with
// MADV_DONTNEED, Linux 6.13+), in at most one system call per batch, not
// one per range: each call is a TLB flush on every CPU of the program.
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: env CFA_STATS=1 %timeout %t 1 run > %t.out 2> %t.err
// RUN: %timeout %t 1 verify %t.out %t.err | FileCheck %s
// RUN: env CFA_STATS=1 %timeout %t 2 run > %t.out 2> %t.err
// RUN: %timeout %t 2 verify %t.out %t.err | FileCheck %s
// CHECK: stacks returned ok
#include "check.h"
#include "stats_read.h"
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef __has_feature
#define __has_feature(x) 0
#endif

enum { N = 6000, TOUCH = 32 * 1024 };

struct worker {
    long              index;
    struct cfa_thread thread;
};

static _Atomic long parked;

static void worker_main(void *object) {
    struct worker *w = object;
    char frame[TOUCH];
    memset(frame, (char)w->index, TOUCH);
    __asm__ volatile("" : : "r"(frame) : "memory"); /* the pages are written */
    atomic_fetch_add(&parked, 1);
    cfa_park();
    CHECK(frame[0] == (char)w->index && frame[TOUCH - 1] == (char)w->index, "thread %ld's stack changed while it was parked", w->index);
}

static long resident_kb(void) {
    FILE *f = fopen("/proc/self/status", "r");
    CHECK(f != NULL);
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
            break;
    fclose(f);
    CHECK(kb > 0);
    return kb;
}

static void run(int nprocs) {
    struct extra_procs procs;
    procs_start(&procs, nprocs);
    struct worker *ws = calloc(N, sizeof *ws);
    CHECK(ws != NULL);
    for (long i = 0; i < N; i++) {
        ws[i].index = i;
        cfa_thread_start(&ws[i].thread, worker_main, &ws[i], "Worker", 0);
    }
    while (atomic_load(&parked) != N)
        cfa_yield();
    for (long i = 0; i < N; i++)
        wait_until_blocked(&ws[i].thread);
    long before = resident_kb();
    for (long odd = 0; odd < 2; odd++)
        for (long i = odd; i < N; i += 2)
            cfa_unpark(&ws[i].thread);
    for (long odd = 0; odd < 2; odd++)
        for (long i = odd; i < N; i += 2) {
            cfa_thread_join(&ws[i].thread);
            cfa_thread_destroy(&ws[i].thread);
        }
    long after = resident_kb();
    /* The warm pool and the caches keep at most a few thousand stacks.
     * Under ASan a frame's locals live on its fake stack, on the heap, and
     * the stacks' shadow stays resident: only the counters are checked. */
    long returnable_kb = (N - 2048) * (TOUCH / 1024);
#if !defined(__SANITIZE_ADDRESS__) && !__has_feature(address_sanitizer)
    CHECK(before - after >= returnable_kb / 2, "resident %ld kB with %d threads parked, %ld kB after: "
          "less than %ld kB returned", before, N, after, returnable_kb / 2);
#endif
    procs_stop(&procs);
    free(ws);
    printf("returned %ld kB\n", before - after);
}

/* Whether this kernel takes MADV_DONTNEED through process_madvise. */
static bool kernel_batches(void) {
    char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(page != MAP_FAILED);
    page[0] = 1;
    struct iovec range = { page, 4096 };
    int self = (int)syscall(SYS_pidfd_open, getpid(), 0);
    long done = self < 0 ? -1 : syscall(SYS_process_madvise, self, &range, 1, MADV_DONTNEED, 0);
    if (self >= 0)
        close(self);
    bool batches = done == 4096 && page[0] == 0;
    munmap(page, 4096);
    return batches;
}

static void verify(const char *out_path, const char *err_path) {
    char *out = stats_slurp(out_path), *err = stats_slurp(err_path);
    (void)stats_find(out, "returned "); /* run finished and checked the resident memory */
    long stacks = stats_find(err, "memory returned: stacks "), ranges = stats_find(err, "ranges "),
         calls = stats_find(err, "system calls ");
    long cold = stats_find(err, "cold ");
    CHECK_EQ(stacks, cold);
    CHECK(stacks >= N / 2, "only %ld of %d stacks returned their memory", stacks, N);
    /* Woken evens first: a batch of neighbours freed together is rare. */
    CHECK(ranges >= stacks / 4, "%ld stacks in only %ld ranges: the test did not scatter them", stacks, ranges);
    if (kernel_batches())
        CHECK(calls * 8 <= ranges, "%ld ranges returned in %ld system calls: not batched", ranges, calls);
    else
        CHECK_EQ(calls, ranges);
    printf("stacks returned ok\n");
}

int main(int argc, char **argv) {
    CHECK(argc > 2, "usage: stack_trim PROCS run | stack_trim PROCS verify OUT ERR");
    if (!strcmp(argv[2], "run"))
        run((int)arg_long(argc, argv, 1, 1));
    else if (!strcmp(argv[2], "verify") && argc > 4)
        verify(argv[3], argv[4]);
    else
        CHECK(false, "unknown mode %s", argv[2]);
    return 0;
}
