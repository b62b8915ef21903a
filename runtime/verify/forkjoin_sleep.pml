/* forkjoin_sleep.pml: fork-join's spawn against a worker going to sleep
 * (runtime/src/forkjoin.c, protocols "Spawn" and "Worker sleep").
 *
 * NS spawners push TASKS tasks each into their own deque (modelled as a
 * count; their owners never pop them here, so only workers can run them)
 * and, after each push, wake a listed sleeper if `sleeping` says there is
 * one. NW workers take tasks from any deque; one that finds none lists
 * itself as a sleeper (pool lock), looks at every deque again and either
 * unlists itself (work found; or, unlisted by a waker meanwhile, takes
 * that waker's permit) or parks until a waker unlists and unparks it.
 * Park and unpark are the runtime's: a permit, consumed by park.
 * Promela's memory is sequentially consistent: that is what the
 * asymmetric fences (asym_fence.h) give spawn's store-then-load (push,
 * then `sleeping`) against the sleeper's (list itself, then the deques).
 * Checked: no lost wake-up (every end state has every task run: a worker
 * parked for good while a task waits is an invalid end state), a worker
 * is listed iff counted in `sleeping`, and a task runs once.
 * -DBUGGY: the sleeper does not look at the deques after listing itself,
 * which must be caught. Abstracted: a worker's FJ_IDLE_ROUNDS failed
 * rounds before it sleeps are one (they change no shared state), and a
 * stolen task's run is `ran++`. Sizes: NS <= 2, NW <= 3 (take() and
 * wake_one's choice are written out for those).
 */
#ifndef NS
#define NS 2
#endif
#ifndef NW
#define NW 2
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

proctype spawner(byte s)
{
    byte n = 0, w;
    do
    :: n < TASKS ->
        deque[s]++;                         /* (2) push (release) */
        /* (3) light fence */
        if                                  /* (4) */
        :: sleeping > 0 ->
            pool_lock();                    /* wake_one */
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
            :: w < NW -> permit[w] = 1      /* cfa_unpark */
            :: else -> skip
            fi
        :: else -> skip
        fi;
        n++
    :: else -> break
    od
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

proctype worker(byte w)
{
    bit got, still, seen;
    do
    :: ran == TOTAL -> break
    :: else ->
        take();
        if
        :: got -> ran++; assert(ran <= TOTAL)
        :: else ->
            pool_lock();                    /* (1) list itself */
            listed[w] = 1;
            sleeping++;
            check_list();
            pool_unlock();
            /* (2) heavy fence */
#ifdef BUGGY
            seen = 0;
#else
            seen = (deque[0] > 0 || (NS > 1 && deque[1] > 0));   /* (3) */
#endif
            if
            :: seen ->
                pool_lock();
                still = listed[w];
                if
                :: still -> listed[w] = 0; sleeping--
                :: else -> skip
                fi;
                check_list();
                pool_unlock();
                if
                :: !still -> atomic { permit[w] == 1 -> permit[w] = 0 }  /* the waker's unpark is ours */
                :: else -> skip
                fi
            :: else ->
                do                          /* (4) park until unlisted */
                :: atomic { permit[w] == 1 || ran == TOTAL -> permit[w] = 0 };
                   if
                   :: ran == TOTAL -> break
                   :: else -> skip
                   fi;
                   pool_lock();
                   still = listed[w];
                   pool_unlock();
                   if
                   :: !still -> break
                   :: else -> skip
                   fi
                od
            fi
        fi
    od
}

init
{
    byte k;
    atomic {
        k = 0;
        do
        :: k < NS -> run spawner(k); k++
        :: else -> break
        od;
        k = 0;
        do
        :: k < NW -> run worker(k); k++
        :: else -> break
        od
    }
}
