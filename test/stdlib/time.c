// Time and Duration: arithmetic and comparison for every pairing, scaling
// by integers and doubles, wrapping instead of undefined overflow,
// conversions, exact printing, the monotonic clock, sleep_until.
//
// RUN: %std-cc %s -o %t %std-link
// RUN: %timeout %t | FileCheck %s
// CHECK: 1.5s 250ms -3us 17ns 0s 1.000000001s 2.5ms 9223372036.854775807s -9223372036.854775808s
// CHECK-NEXT: time 1234.000000001s -0.000000005s
// CHECK-NEXT: arithmetic ok
// CHECK-NEXT: comparisons ok
// CHECK-NEXT: conversions ok
// CHECK-NEXT: clock and sleep_until ok
#include "tasks.h"

#include <cfa/time.hfa>

static void printing(void) {
    Duration ds[] = { ms(1500), ms(250), us(-3), ns(17), s(0), ns(1000000001), us(2500),
                      ns(INT64_MAX), ns(INT64_MIN) };
    for (unsigned i = 0; i < sizeof ds / sizeof ds[0]; i++) {
        if (i) printf(" ");
        fflush(stdout);
        print(ds[i]);
    }
    printf("\ntime ");
    print((Time){ 1234000000001 });
    printf(" ");
    fprint(stdout, (Time){ -5 });
    printf("\n");
    char small[4];
    CHECK_EQ(format(small, sizeof small, ms(250)), 5);       /* full length, truncated text */
    CHECK(strcmp(small, "250") == 0, "truncated to '%s'", small);
}

static void arithmetic(void) {
    Time t = { 1000 };
    CHECK_EQ(add(ms(1), us(500)).tn, 1500000);
    CHECK_EQ(add(t, ns(5)).tn, 1005);
    CHECK_EQ(add(ns(5), t).tn, 1005);
    CHECK_EQ(sub(ms(1), us(1)).tn, 999000);
    CHECK_EQ(sub((Time){ 5000 }, t).tn, 4000);
    CHECK_EQ(sub(t, ns(1)).tn, 999);
    CHECK_EQ(neg(s(2)).tn, -2000000000);
    CHECK_EQ(mul(ms(3), 4).tn, 12000000);
    CHECK_EQ(mul(4u, ms(3)).tn, 12000000);
    CHECK_EQ(mul(ms(3), 4LL).tn, 12000000);
    CHECK_EQ(mul(s(1), 0.25).tn, 250000000);
    CHECK_EQ(mul(1.5, ms(1)).tn, 1500000);
    CHECK_EQ(div(s(1), 4).tn, 250000000);
    CHECK_EQ(div(s(1), 2.5).tn, 400000000);
    CHECK_EQ(div(s(1), ms(10)), 100);
    CHECK_EQ(div(ms(-25), ms(10)), -2);                       /* toward zero, as C */
    CHECK_EQ(mod(ms(25), ms(10)).tn, 5000000);
    CHECK_EQ(add(ns(INT64_MAX), ns(1)).tn, INT64_MIN);        /* wraps, defined */
    div_t q = div(7, 2);                                      /* the C library's div still works */
    CHECK(q.quot == 3 && q.rem == 1, "libc div");
    printf("arithmetic ok\n");
}

static void comparisons(void) {
    CHECK(lt(ms(1), ms(2)) && le(ms(2), ms(2)) && gt(s(1), ms(999)) && ge(us(1), ns(1000)), "<");
    CHECK(eq(ms(1), us(1000)) && ne(ms(1), us(1001)), "==");
    CHECK(cmp(ms(1), ms(2)) == -1 && cmp(ms(2), ms(2)) == 0 && cmp(ms(3), ms(2)) == 1, "cmp");
    Time a = { 10 }, b = { 20 };
    CHECK(lt(a, b) && le(a, a) && gt(b, a) && ge(b, b) && eq(a, a) && ne(a, b), "Time");
    CHECK(cmp(b, a) == 1, "Time cmp");
    printf("comparisons ok\n");
}

static void conversions(void) {
    CHECK_EQ(to_ns(us(3)), 3000);
    CHECK(to_seconds(ms(1500)) == 1.5, "to_seconds");
    struct timespec ts = to_timespec(ms(-1500));
    CHECK(ts.tv_sec == -2 && ts.tv_nsec == 500000000, "negative timespec %ld %ld", (long)ts.tv_sec,
          ts.tv_nsec);
    CHECK_EQ(from_timespec(ts).tn, -1500000000);
    CHECK_EQ(from_timespec(to_timespec(ns(123456789012))).tn, 123456789012);
    printf("conversions ok\n");
}

static void clock_and_sleep(void) {
    Time t0 = time_now(), prev = t0;
    for (int i = 0; i < 1000; i++) {
        Time t = time_now();
        CHECK(ge(t, prev), "the clock went back");
        prev = t;
    }
    Time deadline = add(time_now(), ms(20));
    sleep_until(deadline);
    CHECK(ge(time_now(), deadline), "woke before the deadline");
    sleep_until(sub(time_now(), s(1)));                       /* in the past: returns */
    CHECK(lt(sub(time_now(), t0), s(10)), "took too long");
    printf("clock and sleep_until ok\n");
}

int main(void) {
    printing();
    arithmetic();
    comparisons();
    conversions();
    clock_and_sleep();
    return 0;
}
