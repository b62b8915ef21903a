/* forkjoin_sleep.pml: fork-join's spawn against a worker going to sleep
 * and against a processor going idle (runtime/src/forkjoin.c, protocols
 * "Spawn", "Worker sleep" and "Idle processor").
 *
 * NP processors run NS spawners and NW workers. The spawners start on
 * processors of their own; the other processors start idle; the workers
 * start asleep (listed, counted in `sleeping`). A spawner pushes TASKS
 * tasks into its own deque (modelled as a count; spawners never pop them
 * here, so only workers can run them) and, after each push, if `sleeping`
 * says a worker sleeps and a processor is idle, wakes a listed sleeper;
 * when it is done its processor goes idle. A woken worker runs on an idle
 * processor (it takes one: the ready queue and idle sleep, checked in
 * idle_sleep.pml, are abstracted to that). A worker takes tasks from any
 * deque; one that finds none lists itself as a sleeper (pool lock), looks
 * at every deque again and either unlists itself (work found; or,
 * unlisted by a waker meanwhile, takes that waker's permit) or parks until
 * a waker unlists and unparks it; its processor then goes idle. A
 * processor going idle registers (`idle`), then, if a worker sleeps and a
 * deque holds a task, wakes one. A spawn sees the idle processors through
 * the idle list's `first`, which a notifier (-DNOTIFIER: another thread
 * made ready) takes to wake the top sleeper, leaving it NULL until that
 * processor leaves the list (I4) and looks at the deques in its pass-on
 * (I5) if another processor is still idle. -DSPAWNERS_STAY: a spawner's
 * processor stays busy after its pushes (it goes on with other work), so
 * only the idle processors can answer them. Park and unpark are the
 * runtime's: a permit, consumed by park.
 * Promela's memory is sequentially consistent: that is what the
 * asymmetric fences (asym_fence.h) give spawn's push against the
 * sleeper's listing and against the idle processor's `first`.
 * Checked: no task is left while every worker sleeps (every end state has
 * every task run: a worker parked for good while a task waits is an
 * invalid end state), a worker is listed iff counted in `sleeping`, a
 * task runs once, and a worker runs only on a processor it took.
 * -DBUGGY: the idle processor does not look at the deques (a spawn that
 * found every processor busy is then never answered); -DBUGGY_PASS_ON:
 * the processor a notifier took does not look in I5 (a spawn that found
 * `first` taken is then never answered); both must be caught.
 * Abstracted: a worker's FJ_IDLE_ROUNDS failed rounds before it sleeps
 * are one (they change no shared state), and a stolen task's run is
 * `ran++`. Sizes: NS <= 2, NW <= 3 (take() and wake_one's choice are
 * written out for those), NP >= NS (NP > NS with -DSPAWNERS_STAY).
 */
#ifndef NS
#define NS 2
#endif
#ifndef NW
#define NW 2
#endif
#ifndef NP
#define NP 2
#endif
#ifndef TASKS
#define TASKS 2
#endif
#define TOTAL (NS * TASKS)

byte deque[NS];         /* tasks waiting in each spawner's deque */
byte ran;               /* tasks run */
bit  lock;              /* the pool lock */
bit  listed[NW];        /* on the sleeper list */
byte sleeping;          /* listed workers */
bit  permit[NW];        /* park/unpark permit */
byte idle;              /* processors registered idle (on the idle list) */
bit  first_taken;            /* a notifier took `first`: NULL until its processor's I4 */

inline pool_lock()   { atomic { lock == 0 -> lock = 1 } }
inline pool_unlock() { lock = 0 }

inline check_list() {
    byte c = 0, k = 0;
    do
    :: k < NW -> c = c + listed[k]; k++
    :: else -> break
    od;
    assert(c == sleeping)
}

#define tasks_waiting() (deque[0] > 0 || (NS > 1 && deque[1] > 0))

/* wake_one: unlist a listed sleeper, if any, and unpark it. */
inline wake_one() {
    pool_lock();
    w = NW;
    if
    :: listed[0] -> w = 0
    :: NW > 1 && listed[1] -> w = 1
    :: NW > 2 && listed[2] -> w = 2
    :: else -> skip
    fi;
    if
    :: w < NW -> listed[w] = 0; sleeping--
    :: else -> skip
    fi;
    check_list();
    pool_unlock();
    if
    :: w < NW -> permit[w] = 1          /* cfa_unpark */
    :: else -> skip
    fi
}

/* The caller's processor goes idle: registers (I1, full fence), then
 * forkjoin_idle between I2 and I3. */
inline go_idle() {
    idle++;
#ifndef BUGGY
    if
    :: sleeping > 0 && tasks_waiting() -> wake_one()
    :: else -> skip
    fi
#endif
}

#ifdef NOTIFIER
/* A thread of the cluster made ready (idle_sleep.pml's notifier): it takes
 * the top sleeper from `first` (N2), which leaves `first` NULL until that
 * processor unregisters and republishes it (I4); the processor then runs
 * the thread for good, after its pass-on (I5). */
proctype notifier()
{
    byte w;
end:    /* with no processor idle the thread waits in a lane: a valid end */
    atomic { idle > 0 && !first_taken -> first_taken = 1 }    /* N2 */
    atomic { idle--; first_taken = 0 }                   /* I4 */
#ifndef BUGGY_PASS_ON
    if                                              /* I5: forkjoin_idle */
    :: idle > 0 && sleeping > 0 && tasks_waiting() -> wake_one()
    :: else -> skip
    fi
#endif
}
#endif

proctype spawner(byte s)
{
    byte n = 0, w;
    do
    :: n < TASKS ->
        deque[s]++;                         /* (2) push (release) */
        /* (3) light fence */
        if                                  /* (4), (5) */
        :: sleeping > 0 && idle > 0 && !first_taken -> wake_one()   /* `first` set */
        :: else -> skip
        fi;
        n++
    :: else -> break
    od;
#ifndef SPAWNERS_STAY
    go_idle()
#endif
}

/* Takes a task from some deque into the worker's hands; `got` says so. */
inline take() {
    got = 0;
    atomic {
        if
        :: deque[0] > 0 -> deque[0]--; got = 1
        :: NS > 1 && deque[1] > 0 -> deque[1]--; got = 1
        :: else -> skip
        fi
    }
}

proctype worker(byte me)
{
    bit got, still, seen, running;
    byte w;
    do
    :: ran == TOTAL -> break
    :: else ->
        if
        :: !running ->                      /* asleep: until unlisted and unparked */
            do
            :: atomic { permit[me] == 1 || ran == TOTAL -> permit[me] = 0 };
               if
               :: ran == TOTAL -> break
               :: else -> skip
               fi;
               pool_lock();
               still = listed[me];
               pool_unlock();
               if
               :: !still -> break
               :: else -> skip
               fi
            od;
            if
            :: ran == TOTAL -> break
            :: else -> skip
            fi;
            atomic {                        /* ready: an idle processor runs it */
                idle > first_taken || ran == TOTAL ->
                if
                :: idle > first_taken -> idle--; running = 1
                :: else -> skip
                fi
            };
            if
            :: !running -> break            /* every task ran meanwhile */
            :: else -> skip
            fi
        :: else -> skip
        fi;
        take();
        if
        :: got -> assert(running); ran++; assert(ran <= TOTAL)
        :: else ->
            pool_lock();                    /* (1) list itself */
            listed[me] = 1;
            sleeping++;
            check_list();
            pool_unlock();
            /* (2) heavy fence */
            seen = tasks_waiting();         /* (3) */
            if
            :: seen ->
                pool_lock();
                still = listed[me];
                if
                :: still -> listed[me] = 0; sleeping--
                :: else -> skip
                fi;
                check_list();
                pool_unlock();
                if
                :: !still -> atomic { permit[me] == 1 -> permit[me] = 0 }  /* the waker's unpark is ours */
                :: else -> skip
                fi
            :: else ->                      /* (4) park: its processor goes idle */
                running = 0;
                go_idle()
            fi
        fi
    od
}

init
{
    byte k;
    atomic {
        idle = NP - NS;
        k = 0;
        do
        :: k < NW -> listed[k] = 1; k++
        :: else -> break
        od;
        sleeping = NW;
        k = 0;
        do
        :: k < NS -> run spawner(k); k++
        :: else -> break
        od;
        k = 0;
        do
        :: k < NW -> run worker(k); k++
        :: else -> break
        od;
#ifdef NOTIFIER
        run notifier()
#endif
    }
}
