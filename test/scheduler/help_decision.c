// The helping step's decision (runtime/src/ready_queue.c, worth_helping;
// docs/scheduler.md, "Pop", step 1) on lane states built for it through
// cfa_test_worth_helping, ages and averages in TSC cycles against the
// defaults: steal grace 8192, floor 2^18, bias 8.
//   - a head aged by a stall of its processor, in a lane whose threads
//     normally barely wait, is not helped under the floor;
//   - a lane whose threads keep waiting longer than the grace, beside a
//     helper whose own barely wait (a processor with many threads next to
//     one with few: yield many at 2 processors), is helped under the floor;
//   - two busy processors are level: neither helps the other;
//   - nor is a lane whose threads wait less than the grace;
//   - nor is a helper whose own threads wait an eighth of the grace;
//   - anything over the floor and the bias is helped, an empty lane never.
// Without the floor's exception the second case is declined.
//
// RUN: %cc %s -I%S/../runtime/include -o %t %cfa-link
// RUN: %t | FileCheck %s
// CHECK: 8 decisions as expected
#include "check.h"

#include <cfa/testing.h>

struct decision {
    const char *what;
    unsigned long long target_age, target_avg, own_age, own_avg;
    bool helped;
};

static const struct decision decisions[] = {
    { "a stalled head, threads that barely wait", 200000, 500, 100, 100, false },
    { "a standing imbalance under the floor", 20000, 20000, 50, 50, true },
    { "a standing imbalance, the helper's lane empty", 20000, 20000, 0, 0, true },
    { "two busy processors", 20000, 20000, 5000, 5000, false },
    { "a helper whose threads wait 1/8 of the grace", 20000, 20000, 3000, 1024, false },
    { "threads that wait less than the grace", 6000, 6000, 0, 0, false },
    { "over the floor", 600000, 100, 100, 100, true },
    { "an empty lane", 0, 20000, 0, 0, false },
};

int main(void) {
    int n = sizeof decisions / sizeof decisions[0];
    for (int i = 0; i < n; i++) {
        const struct decision *d = &decisions[i];
        bool helped = cfa_test_worth_helping(d->target_age, d->target_avg, d->own_age, d->own_avg);
        CHECK(helped == d->helped, "%s: %s", d->what, helped ? "helped" : "declined");
    }
    printf("%d decisions as expected\n", n);
    return 0;
}
