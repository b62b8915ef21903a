// Timed park (cfa/sleep.h): the timeout and a waker race for one claim.
//  - no waker: times out, not before the deadline;
//  - a waker before the deadline: woken, the waker gets true;
//  - a deadline already past: times out at once; a claim made before the
//    wait began: the wait returns woken at once;
//  - 20,000 races on 2 processors with the waker aiming at the deadline:
//    exactly one side wins each time (the waker's result agrees with the
//    waiter's), and the thread never holds a leftover permit afterwards;
//  - permits from elsewhere are neither consumed nor lost: a permit held
//    before a timed park or a sleep, or given during one, does not end it
//    early and is still there for the next park.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress default | FileCheck %s
// RUN: env CFA_IO=fallback %timeout %t %stress fallback | FileCheck %s
// CHECK: timeout alone: timed out after >= 5 ms
// CHECK-NEXT: waker first: woken, waker true
// CHECK-NEXT: past deadline: timed out at once; claimed before the wait: woken at once
// CHECK-NEXT: 20000 races: each claimed once, no leftover permit
// CHECK-NEXT: permits kept across timed park and sleep
#include "iotest.h"

static _Atomic int slot_lock;   /* guards `slot`, as a monitor's lock would */
static struct cfa_timed_park *slot;

static void lock(void) { while (atomic_exchange(&slot_lock, 1)) cfa_yield(); }
static void unlock(void) { atomic_store(&slot_lock, 0); }

static int ticket(void) { return atomic_load(&cfa_active_thread()->ticket); }

/* ---- a waker that fires after `delay_ns` ---- */
struct waker { int64_t delay_ns; int result; };
static void waker_main(void *arg) {
    struct waker *w = arg;
    int64_t until = cfa_clock_ns() + w->delay_ns;
    while (cfa_clock_ns() < until) cfa_yield();
    lock();
    w->result = slot ? cfa_unpark_timed(slot) : -1;
    slot = NULL;
    unlock();
}

/* ---- the race ---- */
enum { RACES = 20000 };
static _Atomic int race_go, race_done;
static _Atomic long waker_wins;
static void racer(void *arg) {
    (void)arg;
    for (int i = 0; i < RACES; i++) {
        while (atomic_load(&race_go) <= i) cfa_yield();
        /* aim at the waiter's deadline (it parks for 20-60 us) */
        int64_t until = cfa_clock_ns() + 20000 + (i % 5) * 10000;
        while (cfa_clock_ns() < until) ;
        lock();
        if (slot && cfa_unpark_timed(slot)) atomic_fetch_add(&waker_wins, 1);
        slot = NULL;
        unlock();
        atomic_store(&race_done, i + 1);
    }
}

static void sleepy_permit(void *arg) {
    (void)arg;
    struct cfa_timed_park w;
    /* a permit held before the timed park */
    cfa_unpark(cfa_active_thread());
    cfa_timed_park_init(&w);
    int64_t t0 = cfa_clock_ns();
    CHECK_EQ(cfa_park_timeout_ns(&w, 3000000), CFA_PARK_TIMED_OUT);
    CHECK(cfa_clock_ns() - t0 >= 3000000, "a permit ended the timed park early");
    CHECK_EQ(ticket(), 1);
    cfa_park();                              /* consumes it at once */
    CHECK_EQ(ticket(), 0);
    /* a permit held before a sleep */
    cfa_unpark(cfa_active_thread());
    t0 = cfa_clock_ns();
    cfa_sleep_ns(3000000);
    CHECK(cfa_clock_ns() - t0 >= 3000000, "a permit ended the sleep early");
    CHECK_EQ(ticket(), 1);
    cfa_park();
}

/* A permit given during a sleep: the sleeper says when it is in its
 * sleep; main unparks it and then looks whether it still was. If main
 * came too late (a loaded machine), the attempt is repeated with a sleep
 * twice as long, so the case is tested on any machine. */
static struct cfa_thread *sleeper_thread;
static _Atomic int sleeper_asleep, sleeper_in_sleep, sleeper_unparked;
static void sleeper_main(void *arg) {
    int64_t ns = *(int64_t *)arg;
    atomic_store(&sleeper_in_sleep, 1);
    atomic_store(&sleeper_asleep, 1);
    int64_t t0 = cfa_clock_ns();
    cfa_sleep_ns(ns);                        /* main unparks us at ~ns / 4 */
    atomic_store(&sleeper_in_sleep, 0);
    CHECK(cfa_clock_ns() - t0 >= ns, "an unpark ended the sleep early");
    while (!atomic_load(&sleeper_unparked)) cfa_yield();
    CHECK_EQ(ticket(), 1);                   /* ... and its permit was kept */
    cfa_park();
}

/* Whether main's unpark came while the sleeper slept. */
static bool unpark_during_sleep(int64_t ns) {
    struct task sl;
    atomic_store(&sleeper_asleep, 0);
    atomic_store(&sleeper_unparked, 0);
    task_start(&sl, sleeper_main, &ns, "Sleeper");
    sleeper_thread = &sl.thread;
    while (!atomic_load(&sleeper_asleep)) cfa_yield();
    cfa_sleep_ns(ns / 4);
    cfa_unpark(sleeper_thread);
    bool during = atomic_load(&sleeper_in_sleep);
    atomic_store(&sleeper_unparked, 1);
    cfa_thread_join(&sl.thread);
    return during;
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    check_engine(argc, argv);
    for (long rep = 0; rep < reps; rep++) {
        struct cfa_timed_park w;
        /* timeout alone */
        cfa_timed_park_init(&w);
        int64_t t0 = cfa_clock_ns();
        CHECK_EQ(cfa_park_timeout_ns(&w, 5000000), CFA_PARK_TIMED_OUT);
        CHECK(cfa_clock_ns() - t0 >= 5000000);
        CHECK_EQ(ticket(), 0);
        if (rep == 0) printf("timeout alone: timed out after >= 5 ms\n");

        /* a waker first (the timeout is 10 s away) */
        struct waker wk = { .delay_ns = 1000000 };
        cfa_timed_park_init(&w);
        lock(); slot = &w; unlock();
        struct task t;
        task_start(&t, waker_main, &wk, "Waker");
        t0 = cfa_clock_ns();
        CHECK_EQ(cfa_park_timeout_ns(&w, 10000000000ll), CFA_PARK_WOKEN);
        CHECK(cfa_clock_ns() - t0 < 5000000000ll);
        cfa_thread_join(&t.thread);
        CHECK_EQ(wk.result, 1);
        CHECK_EQ(ticket(), 0);
        if (rep == 0) printf("waker first: woken, waker true\n");

        /* a deadline in the past; a claim before the wait */
        cfa_timed_park_init(&w);
        CHECK_EQ(cfa_park_deadline_ns(&w, cfa_clock_ns() - 1), CFA_PARK_TIMED_OUT);
        CHECK(!cfa_unpark_timed(&w));           /* too late: no permit left */
        CHECK_EQ(ticket(), 0);
        cfa_timed_park_init(&w);
        CHECK(cfa_unpark_timed(&w));
        CHECK(!cfa_unpark_timed(&w));           /* claimed already */
        CHECK_EQ(cfa_park_timeout_ns(&w, 10000000000ll), CFA_PARK_WOKEN);
        CHECK_EQ(ticket(), 0);
        if (rep == 0) printf("past deadline: timed out at once; claimed before the wait: woken at once\n");

        /* races on 2 processors */
        struct extra_procs procs;
        procs_start(&procs, 2);
        atomic_store(&race_go, 0);
        atomic_store(&race_done, 0);
        atomic_store(&waker_wins, 0);
        task_start(&t, racer, NULL, "Racer");
        long woken = 0, timed_out = 0;
        for (int i = 0; i < RACES; i++) {
            cfa_timed_park_init(&w);
            lock(); slot = &w; unlock();
            atomic_store(&race_go, i + 1);
            int r = cfa_park_timeout_ns(&w, 20000 + (i % 7) * 7000);
            if (r == CFA_PARK_WOKEN) woken++; else timed_out++;
            lock(); slot = NULL; unlock();       /* unpublish before w goes */
            CHECK_EQ(ticket(), 0);
            while (atomic_load(&race_done) <= i) cfa_yield();
            CHECK_EQ(ticket(), 0);               /* a late waker gave nothing */
        }
        cfa_thread_join(&t.thread);
        CHECK_EQ(woken + timed_out, RACES);
        CHECK_EQ(atomic_load(&waker_wins), woken);
        fprintf(stderr, "races: %ld woken, %ld timed out\n", woken, timed_out);
        if (rep == 0) printf("%d races: each claimed once, no leftover permit\n", RACES);

        /* permits from elsewhere */
        task_start(&t, sleepy_permit, NULL, "Permit");
        cfa_thread_join(&t.thread);
        int64_t sleep_ns = 20000000;
        while (!unpark_during_sleep(sleep_ns)) {
            sleep_ns *= 2;
            CHECK(sleep_ns < 100 * (int64_t)1000000000, "never unparked during a sleep");
        }
        if (rep == 0) printf("permits kept across timed park and sleep\n");
        procs_stop(&procs);
    }
    return 0;
}
