// flockfile gives exclusion between user threads (POSIX: between
// threads): three threads on two processors each print lines of 20
// tokens, one fputs per token, between flockfile(stdout) and
// funlockfile(stdout), preempted every millisecond. No line may mix two
// threads' tokens. The lock is recursive, and ftrylockfile fails while
// another thread holds it. Without the runtime's own FILE lock, glibc's
// lock belongs to the kernel thread, so the threads of one processor
// walk in together.
// (Sanitizer builds run without preemption: yields inside the section
// make the interleaving chance certain instead.)
//
// RUN: %cc %s -I%S/../runtime/include -o %t %cfa-link
// RUN: env CFA_PREEMPTION_MS=1 %timeout %t %stress > %t.out
// RUN: FileCheck %s < %t.out
// RUN: grep -c '^[abc]' %t.out | FileCheck %s --check-prefix=LINES
// RUN: not grep -E '^(a+[bc]|b+[ac]|c+[ab])' %t.out
// CHECK: trylock busy while held elsewhere: ok
// LINES: {{^}}6000{{$}}
#include "check.h"
#include <stdio.h>

enum { THREADS = 3, LINES = 2000, TOKENS = 20 };

struct worker { char token; struct cfa_thread thread; };
static _Atomic int holding, trylock_busy;

static void worker_main(void *object) {
    struct worker *w = object;
    char tok[2] = { w->token, 0 };
    for (int i = 0; i < LINES; i++) {
        flockfile(stdout);
        flockfile(stdout); /* recursive */
        for (int t = 0; t < TOKENS; t++) {
            fputs(tok, stdout);
            if (t == TOKENS / 2 && i % 50 == 0)
                cfa_yield();
        }
        funlockfile(stdout);
        fputs("\n", stdout);
        funlockfile(stdout);
    }
}

static void probe_main(void *object) {
    (void)object;
    atomic_store(&trylock_busy, ftrylockfile(stdout) != 0);
}

int main(int argc, char **argv) {
    (void)argc;
    (void)argv;
    struct cfa_processor extra = {0};
    cfa_processor_start(&extra);
    struct worker w[THREADS];
    memset(w, 0, sizeof w);
    for (int i = 0; i < THREADS; i++) {
        w[i].token = 'a' + i;
        cfa_thread_start(&w[i].thread, worker_main, &w[i], "worker", 0);
    }
    for (int i = 0; i < THREADS; i++)
        cfa_thread_destroy(&w[i].thread);
    flockfile(stdout);
    struct cfa_thread probe = {0};
    cfa_thread_start(&probe, probe_main, NULL, "probe", 0);
    cfa_thread_destroy(&probe);
    funlockfile(stdout);
    CHECK(atomic_load(&trylock_busy));
    CHECK_EQ(ftrylockfile(stdout), 0);
    funlockfile(stdout);
    printf("trylock busy while held elsewhere: ok\n");
    cfa_processor_stop(&extra);
    return 0;
}
