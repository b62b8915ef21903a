// join_release: a joiner queued on a thread returns from join only once
// the halting side has unparked it, so the halting side can still follow
// the joiner's record to the joiners behind it, and a joiner that runs on
// (or is preempted) between queueing and parking does not disturb the list.
// Forced with the test hooks: the joiners call join in the window where
// the target's main has let its monitor go but its processor has not yet
// closed the joiner list (CFA_STEP_HALTING, where the processor waits
// until both have queued, the second behind the first); the head of the
// list runs on at CFA_STEP_JOIN_QUEUED (spinning) until the processor has
// taken the list and stored HALTED (CFA_STEP_JOINERS_TAKEN), where the
// processor waits a bounded time for that joiner to return from its join.
// A joiner that returned on seeing HALTED would end its record there, and
// the joiner behind it would never be woken. The head joiner also holds a
// stray permit (it unparks itself before joining), so its park returns at
// once: it must still not return before the halting side has released its
// record, and once back it overwrites the stack where the record was, so
// a halting side that read it later would follow garbage. Two processors:
// the target halts on one while the head joiner spins on the other.
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: both joiners returned after the target halted, {{[0-9]+}} rounds
#include "check.h"

#include <cfa/test_hook.h>

static struct cfa_thread target, first, second;
static _Atomic int go, halting, queued_both, queued, taken, first_returned, second_returned;

static void wait_bounded(_Atomic int *flag, double seconds) {
    double until = now_seconds() + seconds;
    while (!atomic_load(flag) && now_seconds() < until) {}
}

void cfa_test_hook(enum cfa_test_step step) {
    if (step == CFA_STEP_JOIN_QUEUED) {
        if (atomic_fetch_add(&queued, 1) == 1)
            atomic_store(&queued_both, 1);
        if (cfa_active_thread() == &first)
            wait_bounded(&taken, 5);
    } else if (step == CFA_STEP_HALTING && atomic_load(&go) && !atomic_exchange(&halting, 1)) {
        /* the round's first thread to halt: the joiners wait for it */
        wait_bounded(&queued_both, 5);
    } else if (step == CFA_STEP_JOINERS_TAKEN && atomic_load(&go) && !atomic_exchange(&taken, 1)) {
        wait_bounded(&first_returned, 0.5);
    }
}

static void target_main(void *arg) {
    (void)arg;
    while (!atomic_load(&go)) cfa_yield();
}

/* Covers the frame cfa_thread_join had, where the joiner's record was. */
static __attribute__((noinline)) void overwrite_stack(void) {
    volatile unsigned char junk[4096];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = 0xa5;
}

static void joiner_main(void *arg) {
    bool head = arg == &first_returned;
    int behind = head ? 1 : 0; /* queue after this many */
    while (!atomic_load(&halting) || atomic_load(&queued) < behind) cfa_yield();
    if (head)
        cfa_unpark(cfa_active_thread()); /* a stray permit for the join's park */
    cfa_thread_join(&target);
    CHECK_EQ(atomic_load(&target.state), CFA_THREAD_HALTED);
    overwrite_stack();
    atomic_store((_Atomic int *)arg, 1);
}

int main(int argc, char **argv) {
    long rounds = 5 * repeat_count(argc, argv);
    struct extra_procs procs;
    procs_start(&procs, 2);
    for (long r = 0; r < rounds; r++) {
        atomic_store(&queued, 0); atomic_store(&queued_both, 0); atomic_store(&taken, 0);
        atomic_store(&first_returned, 0); atomic_store(&second_returned, 0);
        cfa_thread_start(&target, target_main, NULL, "Target", 0);
        cfa_thread_start(&second, joiner_main, (void *)&second_returned, "Second", 0);
        cfa_thread_start(&first, joiner_main, (void *)&first_returned, "First", 0);
        atomic_store(&go, 1);
        double until = now_seconds() + 20;
        while (!(atomic_load(&first_returned) && atomic_load(&second_returned)) && now_seconds() < until)
            cfa_yield();
        CHECK(atomic_load(&second_returned), "round %ld: the joiner behind the first was never woken", r);
        CHECK(atomic_load(&first_returned), "round %ld: the first joiner never returned", r);
        cfa_thread_destroy(&first);
        cfa_thread_destroy(&second);
        cfa_thread_destroy(&target);
        atomic_store(&go, 0);
        atomic_store(&halting, 0);
    }
    procs_stop(&procs);
    printf("both joiners returned after the target halted, %ld rounds\n", rounds);
    return 0;
}
