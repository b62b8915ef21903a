/* forkjoin_replace.pml: fork-join's replacement of a worker that parks in
 * a task group's wait, and its spares (runtime/src/forkjoin.c, invariant
 * 4: replace_waiter, retire_if_surplus).
 *
 * NP workers start available (running, ready, or asleep where the sleep
 * protocol of forkjoin_sleep.pml wakes them). An available worker may,
 * any number of times within the budget of NWAITS waits in all:
 *  - park in a wait: under the pool lock it counts itself in `waiting`
 *    and, if fewer than NP workers would be left available (nworkers -
 *    waiting - nspare), takes a spare off the list and unparks it, or
 *    counts and starts a new worker; then it parks, and later comes back
 *    (available again) and uncounts itself from `waiting` outside the
 *    lock;
 *  - after a stolen task, retire if surplus: a first look at the counts
 *    outside the lock, then, under the lock, the decision again; a
 *    surplus worker goes on the spare list and parks until a waiter takes
 *    it off (a permit, consumed by park).
 * A worker counts as unavailable from the moment it commits to a wait or
 * to the spare list (earlier than the thread really stops, so the check
 * is the stricter one).
 * Checked: at every moment at least NP workers are available (a monitor
 * asserts it at any interleaving point), and at every release of the
 * lock the counters match what they count (nworkers the workers started,
 * nspare the workers on the list, waiting at least the workers parked in
 * waits: a worker back from a wait uncounts itself a moment later).
 * -DBUGGY: the surplus decision is taken on the first look alone, outside
 * the lock (two workers back from waits both retire): must be caught.
 * Sizes: NP <= 2, NWAITS <= 3 (the worker array holds NP + NWAITS).
 */
#ifndef NP
#define NP 2
#endif
#ifndef NWAITS
#define NWAITS 2
#endif
#define MAXW (NP + NWAITS)

#define AVAILABLE 1
#define WAITING   2
#define SPARE     3

byte state[MAXW];      /* 0: not started */
bit  on_list[MAXW];    /* on the spare list (lock) */
bit  permit[MAXW];
bit  lock;
byte nworkers, waiting, nspare, started;
byte avail;            /* workers in state AVAILABLE */
bit  ready;            /* init has started the first workers */
byte waits = NWAITS;   /* waits left to take */

inline take_lock() { atomic { lock == 0 -> lock = 1 } }

inline check_counts() {
    n_spare = 0; n_wait = 0; k = 0;
    do
    :: k < MAXW ->
        if :: on_list[k] -> n_spare++ :: else -> skip fi;
        if :: state[k] == WAITING -> n_wait++ :: else -> skip fi;
        k++
    :: else -> break
    od;
    assert(nworkers == started && nspare == n_spare && waiting >= n_wait)
}

proctype worker(byte me)
{
    byte x, n_spare, n_wait, k;
    bit surplus;
    do
    :: atomic { waits > 0 -> waits-- };
        /* replace_waiter */
        take_lock();
        waiting++;
        if
        :: nworkers - waiting - nspare < NP ->
            x = 0;
            do
            :: x < MAXW && !on_list[x] -> x++
            :: x < MAXW && on_list[x] -> break
            :: x == MAXW -> break
            od;
            if
            :: x < MAXW ->
                on_list[x] = 0;
                nspare--;
                atomic { state[x] = AVAILABLE; avail++; permit[x] = 1 }
            :: else ->
                nworkers++;
                atomic { state[started] = AVAILABLE; avail++; run worker(started); started++ }
            fi
        :: else -> skip
        fi;
        atomic { check_counts(); state[me] = WAITING; avail--; lock = 0 };
        /* parked; the group's last task wakes it */
        atomic { state[me] = AVAILABLE; avail++ };
        waiting--
    :: /* retire_if_surplus, after a stolen task */
        if
        :: nworkers - waiting - nspare > NP ->
            take_lock();
#ifdef BUGGY
            surplus = 1;
#else
            surplus = nworkers - waiting - nspare > NP;
#endif
            if
            :: surplus ->
                on_list[me] = 1;
                nspare++;
                atomic { state[me] = SPARE; avail-- }
            :: else -> skip
            fi;
            atomic { check_counts(); lock = 0 };
            do
            :: surplus ->
end_spare:      atomic { permit[me] -> permit[me] = 0 };
                take_lock();
                surplus = on_list[me];
                lock = 0
            :: else -> break
            od
        :: else -> skip
        fi
    :: break
    od
}

init
{
    byte i = 0;
    atomic {
        do
        :: i < NP -> state[i] = AVAILABLE; avail++; nworkers++; run worker(i); i++; started++
        :: else -> break
        od;
        ready = 1
    }
}

active proctype monitor()
{
end: atomic { ready && avail < NP -> assert(false) }
}
