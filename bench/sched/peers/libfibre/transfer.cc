// Transfer (thesis 001 ch.7, sec. 7.7, Fig. 7.14, Table 7.1): one fibre
// leads at a time: it publishes a new leadership index and spins until
// every other fibre has acknowledged it, then picks the next leader at
// random and ("park") unparks all others. The others acknowledge, then
// Fibre::yield ("yield") or fibre_park ("park"; woken before the next
// index appears, they yield until it does). libfibre has no preemption
// and its yield never steals: fibres queued behind the spinning leader
// on its worker are reached only by the idle workers' stealing, so
// "yield" is expected not to finish (the thesis: DNC). Load: fibres per
// processor. Result: mean time of one transfer in us; "dnf" when one is
// not acknowledged within 5 s.
#include <string.h>
#include "common.h"

enum { DNF_SECONDS = 5 };

struct alignas(64) Member {
    int id;
    Fibre *self;
    std::atomic<long> seen{0};
};

static Member *members;
static int nmembers;
static bool park_variant;
static std::atomic<long> lead_idx;
static std::atomic<int> leader, done, finished;
static uint64_t rng = 42; /* touched by the leader only */
static double t_end;

static void lead(Member *me) {
    long idx = lead_idx.load() + 1;
    me->seen.store(idx);
    lead_idx.store(idx);
    if (done.load()) { /* the duration is over: report */
        t_end = bench_now();
        finished.store(1);
        return;
    }
    double start = bench_now();
    for (int i = 0; i < nmembers; i++)
        while (members[i].seen.load() != idx)
            if (bench_now() - start > DNF_SECONDS) bench_dnf();
    leader.store((int)(bench_rand(&rng) % nmembers));
    if (park_variant)
        for (int i = 0; i < nmembers; i++)
            if (i != me->id) fibre_unpark(members[i].self);
}

static void member(Member *me) {
    bench_gate();
    while (!finished.load()) {
        if (leader.load() == me->id) {
            lead(me);
            continue;
        } /* park only on a new index: the leader unparks once per index */
        long idx = lead_idx.load(), seen = me->seen.exchange(idx);
        if (park_variant && idx != seen) fibre_park();
        else Fibre::yield();
    }
}

int main(int argc, char **argv) {
    park_variant = bench_variant(argc, argv, "park", "yield");
    int procs = bench_arg(argc, argv, 1, "threads-per-processor park|yield");
    nmembers = bench_arg(argc, argv, 2, "threads-per-processor park|yield") * procs;
    bench_workers(procs);
    members = new Member[nmembers];
    for (int i = 0; i < nmembers; i++) {
        members[i].id = i;
        members[i].self = new Fibre(Context::CurrCluster());
    }
    for (int i = 0; i < nmembers; i++) members[i].self->run(member, &members[i]);
    bench_measure([](double t0) { /* on the measuring pthread, at the deadline */
        done.store(1);
        for (int w = 0; !finished.load(); w++) { /* the leader's own bound normally fires first */
            if (w > (DNF_SECONDS + 1) * 1000) bench_dnf();
            usleep(1000);
        }
        long transfers = lead_idx.load() - 1;
        if (transfers < 1) bench_dnf();
        return (t_end - t0) / transfers * 1e6;
    });
}
