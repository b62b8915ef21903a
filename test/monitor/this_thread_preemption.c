// The inline read of the running thread (cfa_this_thread, which every
// mutex call makes first, cfa/mutex_call.h) survives preemption: five
// threads on three processors read it in a tight loop for a second with
// a time slice of 1 ms, and each must always read itself. The read loads
// the processor from thread-local storage, then the thread that processor
// runs; a preemption between the two loads could resume the thread on
// another processor with the first one's address, whose thread is then
// another spinner (or none, and a mutex call would take the thread for a
// kernel thread that is not a processor). About a thousand slices end in
// the loop, a tenth of them between the two loads, and a preempted thread
// often resumes on another processor.
// (Sanitizer builds run without preemption.)
//
// UNSUPPORTED: sanitizer
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: env CFA_PREEMPTION_MS=1 CFA_STATS=1 %timeout %t 2>&1 | FileCheck %s
// CHECK: wrong reads 0, reads made 1
// CHECK: cfa stats: preemption: signals {{[1-9][0-9]*}}, yields {{[1-9][0-9]*}}
#include "mutex_call.h"
#include <stdatomic.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

struct spinner { long reads, wrong; struct cfa_thread thread; };
static double until;

static void spinner_main(void *object) {
    struct spinner *s = object;
    struct cfa_thread *me = cfa_active_thread(); /* out of line: runtime code is never preempted */
    while (now() < until)
        for (int i = 0; i < 10000; i++, s->reads++)
            if (cfa_this_thread() != me)
                s->wrong++;
}

int main(void) {
    struct cfa_processor extra[2] = { { .name = "second" }, { .name = "third" } };
    for (int i = 0; i < 2; i++) cfa_processor_start(&extra[i]);
    until = now() + 1.0;
    struct spinner s[5] = {0};
    for (int i = 0; i < 5; i++) cfa_thread_start(&s[i].thread, spinner_main, &s[i], "Spinner", 0);
    long wrong = 0, made = 1;
    for (int i = 0; i < 5; i++) {
        cfa_thread_destroy(&s[i].thread);
        wrong += s[i].wrong;
        made = made && s[i].reads > 0;
    }
    for (int i = 0; i < 2; i++) cfa_processor_stop(&extra[i]);
    printf("wrong reads %ld, reads made %ld\n", wrong, made);
    fflush(stdout);
    return 0;
}
