// Stack cache colouring (runtime/src/stack.h): threads' first frames do
// not all sit at the same offset of a page, and the colour takes nothing
// from the stack size a thread asked for.
//  1. 64 threads alive at once, default stacks: the offsets within a page
//     of their main functions' frames take at least 8 distinct values (one
//     value, for every thread, without colours).
//  2. Threads started with a 64 KiB stack (and the default one): at least
//     the size asked for lies below each one's main frame, less the few
//     frames above it (at most 512 bytes), counted down to the lowest
//     usable byte that pthread_getattr_np reports.
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: colours: 64 threads, {{[0-9]+}} distinct page offsets
// CHECK-NEXT: room: every thread has the stack it asked for below its frames
#include "check.h"

#include <pthread.h>

enum { THREADS = 64, ASKED = 64 * 1024, FRAMES_ABOVE_MAIN = 512 };

struct probe {
    size_t            asked;        /* 0: the default size */
    uintptr_t         frame;        /* the main function's frame address */
    uintptr_t         lowest;       /* lowest usable byte of the stack */
    struct cfa_thread thread;
};

static _Atomic int arrived, leave;

static void probe_main(void *object) {
    struct probe *p = object;
    p->frame = (uintptr_t)__builtin_frame_address(0);
    pthread_attr_t attr;
    CHECK_EQ(pthread_getattr_np(pthread_self(), &attr), 0);
    void *base;
    size_t size;
    CHECK_EQ(pthread_attr_getstack(&attr, &base, &size), 0);
    pthread_attr_destroy(&attr);
    p->lowest = (uintptr_t)base;
    atomic_fetch_add(&arrived, 1);
    while (!atomic_load(&leave)) /* all alive at once: 64 distinct stacks */
        cfa_yield();
}

static void run_all(struct probe *probes, size_t asked) {
    atomic_store(&arrived, 0);
    atomic_store(&leave, 0);
    for (int i = 0; i < THREADS; i++) {
        probes[i].asked = asked;
        cfa_thread_start(&probes[i].thread, probe_main, &probes[i], "Probe", asked);
    }
    while (atomic_load(&arrived) < THREADS)
        cfa_yield();
    atomic_store(&leave, 1);
    for (int i = 0; i < THREADS; i++)
        cfa_thread_destroy(&probes[i].thread);
}

static void check_room(const struct probe *probes) {
    for (int i = 0; i < THREADS; i++) {
        size_t asked = probes[i].asked ? probes[i].asked : cfa_default_stack_size();
        size_t below = probes[i].frame - probes[i].lowest;
        CHECK(below + FRAMES_ABOVE_MAIN >= asked, "thread %d asked for %zu bytes of stack, has %zu below its main frame",
              i, asked, below);
    }
}

int main(int argc, char **argv) {
    long rounds = repeat_count(argc, argv);
    static struct probe probes[THREADS];
    int distinct = 0;
    for (long r = 0; r < rounds; r++) {
        run_all(probes, 0);
        check_room(probes);
        bool seen[4096 / 16] = { false };
        distinct = 0;
        for (int i = 0; i < THREADS; i++) {
            unsigned slot = (probes[i].frame & 4095) / 16;
            distinct += !seen[slot];
            seen[slot] = true;
        }
        CHECK(distinct >= 8, "the main frames of %d threads take %d page offsets", THREADS, distinct);
        run_all(probes, ASKED);
        check_room(probes);
    }
    printf("colours: %d threads, %d distinct page offsets\n", THREADS, distinct);
    printf("room: every thread has the stack it asked for below its frames\n");
    return 0;
}
