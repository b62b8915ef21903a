// park/unpark: permits (an unpark before the park is kept, so the park
// returns at once), strict ping-pong between two threads on 2 processors,
// and one waker unparking many sleepers. (Unpark from a pthread that is
// not a processor: unpark_from_pthread.c.)
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: permit: unpark before park returns at once ok
// CHECK-NEXT: ping-pong 100000 exchanges on 2 processors ok
// CHECK-NEXT: waker: 100 sleepers x 100 wake-ups ok
#include "check.h"

/* ---------- permits ---------- */
struct sleeper {
    int               index;
    long              wakeups;
    _Atomic int       parked;      /* about to park / parked */
    struct cfa_thread thread;
};

static void self_permit_main(void *object) {
    struct sleeper *s = object;
    /* Give ourselves a permit: park must consume it and not block. */
    cfa_unpark(cfa_active_thread());
    cfa_park();
    s->wakeups++;
    /* Two permits given by main before we run (see below): two parks. */
    cfa_park();
    cfa_park();
    s->wakeups += 2;
}

/* ---------- ping-pong ---------- */
enum { EXCHANGES = 100000 };
struct player {
    int               id;
    struct player    *partner;
    struct cfa_thread thread;
};
static _Atomic int whose_turn;
static void player_main(void *object) {
    struct player *p = object;
    for (int i = 0; i < EXCHANGES; i++) {
        if (p->id == 1 || i > 0) cfa_park();
        CHECK(atomic_load(&whose_turn) == p->id, "player %d runs out of turn", p->id);
        atomic_store(&whose_turn, 1 - p->id);
        cfa_unpark(&p->partner->thread);
    }
    if (p->id == 0) cfa_park();       /* the partner's last unpark */
}

/* ---------- one waker, many sleepers ---------- */
enum { SLEEPERS = 100, WAKES = 100 };
static _Atomic long woken;
static void sleeper_main(void *object) {
    struct sleeper *s = object;
    for (int i = 0; i < WAKES; i++) {
        atomic_store(&s->parked, 1);
        cfa_park();
        s->wakeups++;
        atomic_fetch_add(&woken, 1);
    }
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    for (long r = 0; r < reps; r++) {
        /* permits */
        struct sleeper s;
        memset(&s, 0, sizeof s);
        cfa_thread_start(&s.thread, self_permit_main, &s, "Permit", 0);
        cfa_unpark(&s.thread);           /* before it ever ran: kept */
        cfa_unpark(&s.thread);
        cfa_thread_join(&s.thread);
        CHECK_EQ(s.wakeups, 3);
        cfa_thread_destroy(&s.thread);
        /* main's own permit */
        cfa_unpark(cfa_active_thread());
        cfa_park();
        if (r == 0) printf("permit: unpark before park returns at once ok\n");

        /* ping-pong on 2 processors */
        struct extra_procs procs;
        procs_start(&procs, 2);
        struct player pl[2];
        memset(pl, 0, sizeof pl);
        atomic_store(&whose_turn, 0);
        for (int i = 0; i < 2; i++) { pl[i].id = i; pl[i].partner = &pl[1 - i]; }
        for (int i = 0; i < 2; i++) cfa_thread_start(&pl[i].thread, player_main, &pl[i], "Player", 0);
        for (int i = 0; i < 2; i++) cfa_thread_join(&pl[i].thread);
        for (int i = 0; i < 2; i++) cfa_thread_destroy(&pl[i].thread);
        if (r == 0) printf("ping-pong %d exchanges on 2 processors ok\n", EXCHANGES);

        /* one waker, many sleepers (still 2 processors) */
        static struct sleeper ss[SLEEPERS];
        memset(ss, 0, sizeof ss);
        atomic_store(&woken, 0);
        for (int i = 0; i < SLEEPERS; i++) {
            ss[i].index = i;
            cfa_thread_start(&ss[i].thread, sleeper_main, &ss[i], "Sleeper", 0);
        }
        for (int w = 0; w < WAKES; w++) {
            for (int i = 0; i < SLEEPERS; i++) {
                /* wait until sleeper i is about to park for wake-up w */
                while (!atomic_load(&ss[i].parked)) cfa_yield();
                atomic_store(&ss[i].parked, 0);
                cfa_unpark(&ss[i].thread);
            }
        }
        for (int i = 0; i < SLEEPERS; i++) cfa_thread_join(&ss[i].thread);
        for (int i = 0; i < SLEEPERS; i++) {
            CHECK_EQ(ss[i].wakeups, WAKES);
            cfa_thread_destroy(&ss[i].thread);
        }
        CHECK_EQ(atomic_load(&woken), (long)SLEEPERS * WAKES);
        if (r == 0) printf("waker: %d sleepers x %d wake-ups ok\n", SLEEPERS, WAKES);
        procs_stop(&procs);
    }
    return 0;
}
