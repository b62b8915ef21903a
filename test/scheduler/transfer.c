// The Transfer experiment of thesis 7.7 as a correctness test. One thread,
// the leader, spins (never yielding) until every other thread has
// acknowledged its leadership, then picks the next leader at random. The
// others acknowledge and then either yield ("yield" variant) or block on
// their own semaphore until the next leader is picked ("park" variant).
// 100 threads per processor on 2 processors, preemption off as in the
// thesis (CFA_PREEMPTION_MS=0): in the yield variant no processor ever
// runs out of work, so only helping (thesis 4.4) can move the threads
// queued behind the spinning leader; a classic work-stealing scheduler
// never completes it (thesis Table 7.1). A transfer not acknowledged
// within LIMIT_S seconds fails the test ("did not complete").
//
// Invariants: transfers are acknowledged in order by every thread, none
// skipped and none twice (a thread acknowledges only lead_idx == seen + 1);
// every thread led or acknowledged each transfer; every semaphore V has
// its P. With CFA_STATS=1 the yield variant shows that helping happened.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: env CFA_PREEMPTION_MS=0 %timeout %t %stress yield | FileCheck %s --check-prefix=YIELD
// RUN: env CFA_PREEMPTION_MS=0 %timeout %t %stress park | FileCheck %s --check-prefix=PARK
// RUN: env CFA_PREEMPTION_MS=0 CFA_STATS=1 %timeout %t 1 yield 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS
// YIELD: transfer yield: 200 threads, 300 transfers on 2 processors completed, acknowledgements exact
// PARK: transfer park: 200 threads, 300 transfers on 2 processors completed, acknowledgements exact
// STATS: cfa stats: cluster {{.*}}: processors 1, lanes 2
// STATS: pop: local {{[0-9]+}}, helped {{[1-9][0-9]*}}, stolen
#include "sched_test.h"

enum { PROCS = 2, PER_PROC = 100, TRANSFERS = 300, LIMIT_S = 20 };

struct member {
    int               id;
    _Atomic long      seen;      /* last transfer acknowledged (or led) */
    long              acks, leads, rechecks;
    struct csem       sem;       /* park variant */
    struct cfa_thread thread;
};

static struct member *members;
static int nmembers;
static bool park_variant;
static _Atomic long lead_idx;
static _Atomic int leader, done;
static uint64_t lead_rng;        /* only the leader touches it */
static struct csem main_sem;

static void lead(struct member *me) {
    long idx = atomic_load(&lead_idx) + 1;
    atomic_store(&me->seen, idx);
    me->leads++;
    atomic_store(&lead_idx, idx);
    if (idx > TRANSFERS) {
        atomic_store(&done, 1);
        if (park_variant)
            for (int i = 0; i < nmembers; i++)
                if (i != me->id) csem_v(&members[i].sem, 0);
        csem_v(&main_sem, 0);
        return;
    }
    double start = now_seconds();
    for (int i = 0; i < nmembers; i++)
        while (atomic_load_explicit(&members[i].seen, memory_order_acquire) != idx) {
            __builtin_ia32_pause();
            CHECK(now_seconds() - start < LIMIT_S, "did not complete: transfer %ld not acknowledged by thread %d "
                  "after %d s (it saw %ld)", idx, i, LIMIT_S, atomic_load(&members[i].seen));
        }
    atomic_store(&leader, (int)(prng_next(&lead_rng) % nmembers));
    if (park_variant)
        for (int i = 0; i < nmembers; i++)
            if (i != me->id) csem_v(&members[i].sem, 0);
}

static void wait_leader(struct member *me) {
    cfa_yield();
    long idx = atomic_load(&lead_idx), seen = atomic_load(&me->seen);
    if (idx == seen) {
        me->rechecks++;
        return;
    }
    CHECK(idx == seen + 1, "thread %d sees transfer %ld after %ld", me->id, idx, seen);
    atomic_store_explicit(&me->seen, idx, memory_order_release);
    me->acks++;
    if (park_variant && idx <= TRANSFERS)
        CHECK(csem_p(&me->sem, NULL) >= 0, "thread %d woke without a V", me->id);
}

static void member_main(void *object) {
    struct member *me = object;
    cfa_park(); /* start gate */
    while (!atomic_load(&done)) {
        if (atomic_load(&leader) == me->id) lead(me);
        else wait_leader(me);
    }
}

static void run(void) {
    struct extra_procs extra;
    procs_start(&extra, PROCS);
    nmembers = PER_PROC * PROCS;
    members = zalloc_aligned(nmembers, sizeof *members);
    memset(&main_sem, 0, sizeof main_sem);
    atomic_store(&lead_idx, 0);
    atomic_store(&done, 0);
    lead_rng = prng_seed(rep_index + 12345);
    atomic_store(&leader, (int)(prng_next(&lead_rng) % nmembers));
    for (int i = 0; i < nmembers; i++) {
        members[i].id = i;
        cfa_thread_start(&members[i].thread, member_main, &members[i], "Member", 0);
    }
    for (int i = 0; i < nmembers; i++) cfa_unpark(&members[i].thread);
    CHECK(csem_p(&main_sem, NULL) >= 0);
    for (int i = 0; i < nmembers; i++) cfa_thread_join(&members[i].thread);
    procs_stop(&extra);

    long leads = 0;
    for (int i = 0; i < nmembers; i++) {
        struct member *m = &members[i];
        long seen = atomic_load(&m->seen);
        CHECK(seen == TRANSFERS || seen == TRANSFERS + 1, "thread %d saw %ld transfers", i, seen);
        CHECK(m->acks + m->leads == seen, "thread %d: %ld acknowledged + %ld led != %ld", i, m->acks, m->leads, seen);
        if (park_variant) {
            CHECK(m->sem.blocks == m->sem.wakes && m->sem.head == NULL, "thread %d's semaphore", i);
            CHECK(m->sem.count == m->sem.vs - m->sem.ps, "thread %d's semaphore count", i);
        }
        CHECK_EQ(atomic_load(&m->thread.ticket), 0);
        leads += m->leads;
        cfa_thread_destroy(&m->thread);
    }
    CHECK_EQ(leads, TRANSFERS + 1);
    CHECK_EQ(atomic_load(&lead_idx), TRANSFERS + 1);
    free(members);
    REPORT("transfer %s: %d threads, %d transfers on %d processors completed, acknowledgements exact\n",
           park_variant ? "park" : "yield", nmembers, TRANSFERS, PROCS);
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    CHECK(argc > 2 && (!strcmp(argv[2], "yield") || !strcmp(argv[2], "park")), "usage: transfer N yield|park");
    park_variant = !strcmp(argv[2], "park");
    for (rep_index = 0; rep_index < reps; rep_index++) run();
    return 0;
}
