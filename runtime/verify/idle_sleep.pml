/* idle_sleep.pml: the idle-sleep / wake-up protocol of one cluster
 * (docs/idle-sleep.md), checked exhaustively by SPIN.
 *
 * What it models, each step named after the C it stands for and numbered
 * as the protocol's steps (idle.h, docs/idle-sleep.md: I1-I5, N1-N2):
 *   Processor  processor_loop and idle() (runtime/src/processor.c),
 *              idle_search_then_sleep with idle_try_register /
 *              idle_sleep / idle_unregister (runtime/src/idle.c),
 *              ready_pop / ready_pop_exhaustive
 *              (runtime/src/ready_queue.c), io_idle (io_processor.c) with
 *              ready_hold_notify / ready_release_notify, and the pass-on
 *              after leaving idle (idle_pass_on, idle.c);
 *   Notifier   a thread of ANOTHER cluster making threads of this one
 *              ready: ready_push's append, then idle_notify (idle.h,
 *              idle.c: idle_notify_slow, wake_sleeper);
 *   Kernel     io_uring completions posted to a processor's ring (which
 *              end its sleep: io_sleep waits in the ring) and the timer heap's earliest timer,
 *              whose armed timeout completes in the ring of every
 *              processor that armed it (io_idle's io_ring_arm).
 * A processor that takes a thread runs it for ever (the Transfer
 * benchmark's leader spinning with preemption off) or, at most MAXRUNS
 * times, runs a thread that blocks and comes back to look for work.
 *
 * The invariant, checked when nothing can move any more (`timeout`): no
 * thread waits in a lane while a processor of the cluster sleeps in
 * io_sleep. With processors that never come back, that is exactly
 * "no ready thread is stranded behind a spinning thread while a processor
 * could run it".
 *
 * Memory: SPIN interleaves whole statements (sequential consistency). The
 * C code gets that order where the protocol needs it from its fences and
 * lock RMWs (idle.h and docs/idle-sleep.md say which, for x86-TSO).
 *
 * Parameters (spin -D...): NP processors (2-3), NN notifiers (1-2), PUSH
 * threads per notifier, NIO I/O completions, TIMER (0/1), MAXRUNS.
 * BUGGY leaves the pass-on out: SPIN must then find a violation.
 */
#ifndef NP
#define NP 2
#endif
#ifndef NN
#define NN 1
#endif
#ifndef PUSH
#define PUSH 2
#endif
#ifndef NIO
#define NIO 1
#endif
#ifndef TIMER
#define TIMER 1
#endif
#ifndef MAXRUNS
#define MAXRUNS 1
#endif

#define NONE 255
/* enum idle_state (idle.h) */
#define SEARCH 0
#define SLEEP  1
#define AWAKE  2

byte lane[NP];          /* threads in each lane (one lane per processor here) */
bool listed[NP];        /* on the idle stack (idle_sleeper.listed) */
byte first = NONE;      /* idle_list.first */
byte stk[NP];           /* idle_list: the stack of idle processors, stk[nstk-1] on top */
byte nstk = 0;
byte state[NP];         /* idle_sleeper.state */
bool efd[NP];           /* a wake-up waits for p: its eventfd written (the fallback's read,
                         * or the ring's read of it completed) or a completion posted */
byte cq[NP];            /* completions in each processor's ring, not yet reaped */
bool asleep[NP];        /* blocked in io_sleep */
bool armed[NP];         /* a wake-up timeout for the timer is in the ring */
bool timer_expired = false, timer_serviced = false;

#if NP > 2
#define LANES_ANY (lane[0] + lane[1] + lane[2] > 0)
#define ANY_ASLEEP (asleep[0] || asleep[1] || asleep[2])
#else
#define LANES_ANY (lane[0] + lane[1] > 0)
#define ANY_ASLEEP (asleep[0] || asleep[1])
#endif

/* idle_notify (idle.h) + idle_notify_slow (idle.c): the relaxed load of
 * `first` and its exchange with NULL, as one step (a load that sees
 * NULL, and an exchange that returns NULL, both end the notification).
 * `first` is NULL or the top of the stack: checked here. */
inline take_first(s)
{
    atomic {
        assert(first == NONE || (nstk > 0 && first == stk[nstk - 1]));
        s = first; first = NONE
    }
}

/* wake_sleeper (idle.c): exchange the state to AWAKE; write the eventfd
 * only if it was SLEEP (the system call cannot be told apart from the
 * exchange by anyone: the sleeper is blocked in between). */
inline wake(s)
{
    atomic {
        if
        :: s != NONE ->
            if
            :: state[s] == SLEEP -> efd[s] = true
            :: else -> skip
            fi;
            state[s] = AWAKE
        :: else -> skip
        fi;
        s = NONE
    }
}

proctype Notifier()
{
    byte k = 0, s = NONE;
    do
    :: k < PUSH ->
        atomic {                 /* N1 ready_push: lane_append + hint_store under a lane's lock */
            if
            :: lane[0]++
            :: lane[1]++
#if NP > 2
            :: lane[2]++
#endif
            fi;
            k++
        };
        take_first(s);           /* N2 ready_push: idle_notify(&cs->idle) */
        wake(s)
    :: else -> break
    od
}

proctype Kernel()
{
    byte n = 0;
    do
    :: n < NIO ->                /* a completion in p's ring ends p's sleep */
        if
        :: atomic { cq[0]++; efd[0] = true; n++ }
        :: atomic { cq[1]++; efd[1] = true; n++ }
#if NP > 2
        :: atomic { cq[2]++; efd[2] = true; n++ }
#endif
        fi
    :: TIMER && !timer_expired -> /* the earliest timer's deadline passes: each armed timeout completes */
        atomic {
            timer_expired = true;
            if :: armed[0] -> armed[0] = false; efd[0] = true :: else fi;
            if :: armed[1] -> armed[1] = false; efd[1] = true :: else fi;
#if NP > 2
            if :: armed[2] -> armed[2] = false; efd[2] = true :: else fi;
#endif
        }
    :: else -> break
    od
}

/* ready_pop: takes a thread from some lane, or misses (try-locks and a
 * few random steals are not exhaustive). A steal that also moves threads
 * to the thief's lane is a take followed by pushes, each a notifier's
 * N1-N2 (lane_steal), which the running processors' pushes model. */
#if NP > 2
#define TRY_POP \
        if \
        :: lane[0] > 0 -> lane[0]--; got = true \
        :: lane[1] > 0 -> lane[1]--; got = true \
        :: lane[2] > 0 -> lane[2]--; got = true \
        :: true -> skip \
        fi
#else
#define TRY_POP \
        if \
        :: lane[0] > 0 -> lane[0]--; got = true \
        :: lane[1] > 0 -> lane[1]--; got = true \
        :: true -> skip \
        fi
#endif

proctype Processor(byte me)
{
    bool got = false, went_idle = false, pass = false;
    byte i = 0, s = NONE, held = 0, runs = 0;

look:
    atomic { TRY_POP; if :: got -> goto running :: else -> skip fi };  /* processor_loop: ready_pop */

idle:
    /* idle_search_then_sleep -> io_idle: reaps completions and services the timer heap;
     * the threads they make ready go to this processor's lane and notify
     * nobody (ready_hold_notify) */
    atomic {
        went_idle = true;
        held = cq[me]; lane[me] = lane[me] + cq[me]; cq[me] = 0;
        if
        :: TIMER && timer_expired && !timer_serviced -> timer_serviced = true; lane[me]++; held++
        :: else -> skip
        fi
    };
    if
    :: held > 1 -> take_first(s); wake(s)     /* ready_release_notify: one wake-up for two or more */
    :: else -> skip
    fi;
    atomic {
        if
        :: held > 0 -> held = 0; goto look    /* io_idle returned true: idle_search_then_sleep returns NULL, pop again */
        :: else -> skip
        fi;
        if                                     /* io_idle: io_ring_arm for the earliest timer */
        :: TIMER && !timer_serviced && timer_expired -> efd[me] = true  /* a past deadline completes at once */
        :: TIMER && !timer_serviced && !timer_expired -> armed[me] = true
        :: else -> skip
        fi
    };

    /* I1 idle_try_register: state := SEARCH, push on the stack, first := me
     * (then a full fence) */
    atomic { state[me] = SEARCH; stk[nstk] = me; nstk++; listed[me] = true; first = me };

    /* I2 ready_pop_exhaustive: every lane, each under its lock; another
     * processor's head inside the steal grace, its owner busy, may be left
     * to it, and then the processor does not sleep (it looks again) */
    do
    :: atomic { i < NP && lane[i] > 0 -> lane[i]--; got = true; i = 0; goto unregister }
    :: atomic { i < NP && i != me && lane[i] > 0 && !listed[i] -> i = 0; goto unregister }
    :: atomic { i < NP && lane[i] == 0 -> i++ }
    :: atomic { i == NP -> i = 0; break }
    od;

    /* idle_search_then_sleep: the spin's cheap checks (notified? a hint? a completion?),
     * any of which ends it; or it runs out */
    if
    :: atomic { state[me] == AWAKE -> goto unregister }
    :: atomic { LANES_ANY -> goto unregister }
    :: atomic { cq[me] > 0 -> goto unregister }
    :: true -> skip
    fi;

    /* I3 idle_sleep: CAS SEARCH -> SLEEP, and io_sleep only if it succeeded */
    atomic {
        if
        :: state[me] == SEARCH -> state[me] = SLEEP; asleep[me] = true
        :: else -> goto unregister
        fi
    };
end_asleep:
    atomic { efd[me] -> efd[me] = false; asleep[me] = false };  /* io_sleep returns */
    state[me] = AWAKE;                                          /* idle_sleep, after the read */

unregister:
    /* I4 idle_unregister: off the stack, first := the new top */
    atomic {
        do
        :: i < nstk && stk[i] != me -> i++
        :: else -> break
        od;
        assert(i < nstk);
        do
        :: i + 1 < nstk -> stk[i] = stk[i + 1]; i++
        :: else -> break
        od;
        nstk--;
        stk[nstk] = 0;
        listed[me] = false;
        first = (nstk > 0 -> stk[nstk - 1] : NONE);
        i = 0
    };
    atomic {
        if
        :: !got -> TRY_POP                     /* processor_loop: idle() returned NULL, pop again */
        :: else -> skip
        fi;
        if
        :: !got -> goto idle
        :: else -> skip
        fi
    };

running:
#ifndef BUGGY
    /* I5 idle_pass_on (processor_loop): a processor that went idle and now
     * has a thread wakes another if a lane still holds one. Notifiers that
     * found `first` NULL while it was being woken counted on it, and so
     * did the pushes io_idle held (it may have taken another thread). */
    atomic { pass = went_idle && first != NONE };   /* fence; nobody idle (or taken): done */
    if
    :: pass -> atomic { pass = LANES_ANY }            /* ready_queue_may_hold */
    :: else -> skip
    fi;
    if
    :: pass -> take_first(s); wake(s)                 /* idle_notify */
    :: else -> skip
    fi;
#endif
    atomic {
        went_idle = false; got = false; pass = false;
        if
        :: true -> skip                        /* runs it for ever: a spinner */
        :: runs < MAXRUNS -> runs++; goto look /* the thread blocks: look for work again */
        fi
    }
}

/* When nothing can move: no thread in a lane while a processor sleeps. */
active proctype Invariant()
{
    timeout -> assert(!(LANES_ANY && ANY_ASLEEP))
}

init
{
    atomic {
        state[0] = AWAKE; state[1] = AWAKE;   /* idle_sleeper_init */
#if NP > 2
        state[2] = AWAKE;
#endif
        run Processor(0);
        run Processor(1);
#if NP > 2
        run Processor(2);
#endif
        run Notifier();
#if NN > 1
        run Notifier();
#endif
        run Kernel()
    }
}
