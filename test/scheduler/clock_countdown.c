// The decision clock's sampling choice (runtime/src/processor.c,
// clock_countdown; docs/scheduler.md, "The decision clock"): after a TSC
// reading, the processor skips the most decisions, a power of two up to
// 16, whose time at the mean interval since the previous reading stays
// within the lag budget (2048 TSC cycles), so the clock lags about as far
// however fast decisions come:
//   - decisions 100 cycles apart (a yield): 16;
//   - 500 apart: 4; 1000 apart: 2; 2048 and more apart: every decision;
//   - the mean is over the decisions since the previous reading;
//   - the first reading (no decisions counted) and huge intervals
//     (after an idle spell) do not overflow.
//
// RUN: %cc %s -I%S/../runtime/include -o %t %cfa-link
// RUN: %t | FileCheck %s
// CHECK: 9 choices as expected
#include "check.h"

#include <cfa/testing.h>

struct choice {
    const char *what;
    unsigned long long elapsed;
    unsigned decisions;
    unsigned countdown;
};

static const struct choice choices[] = {
    { "yields, 100 cycles apart", 1600, 16, 16 },
    { "128 apart: 16 of them fill the budget", 2048, 16, 16 },
    { "500 apart", 2000, 4, 4 },
    { "1000 apart", 1000, 1, 2 },
    { "2048 apart", 2048, 1, 1 },
    { "5000 apart, after 16 skipped", 80000, 16, 1 },
    { "300 apart, after 2 skipped", 600, 2, 4 },
    { "no decision counted yet", 100, 0, 16 },
    { "after an idle spell", ~0ULL >> 1, 1, 1 },
};

int main(void) {
    int n = sizeof choices / sizeof choices[0];
    for (int i = 0; i < n; i++) {
        const struct choice *c = &choices[i];
        unsigned got = cfa_test_clock_countdown(c->elapsed, c->decisions);
        CHECK(got == c->countdown, "%s: read again after %u decisions, expected %u", c->what, got, c->countdown);
    }
    printf("%d choices as expected\n", n);
    return 0;
}
