/* pthread_cond.pml: the pthread condition variable and mutex protocols
 * on user threads and kernel threads (runtime/src/pthread_cond.c,
 * pthread_mutex.c, pthread_wait.[ch]), checked exhaustively by SPIN.
 *
 * What it models, each step named after the C it stands for:
 *   mutex    the word's bits LOCKED, WAITERS and the queue lock QLOCK;
 *            lock: the fast compare-and-swap 0 -> LOCKED, else lock_slow
 *            (under QLOCK: take a free mutex, or queue and wait);
 *            unlock: the fast compare-and-swap LOCKED -> 0, else
 *            unlock_slow (under QLOCK: hand the mutex to the oldest
 *            waiter, LOCKED staying set, and grant it after QLOCK);
 *   cond     wait: W1 queue under the condition's QLOCK, W2 let the mutex
 *            go, W3 let QLOCK go and wait, W4 retake the mutex; signal
 *            and broadcast: S1 the head read without QLOCK (empty: done),
 *            S2 under QLOCK take the oldest (all) off, grant after QLOCK;
 *   waiting  pt_wait and pt_grant for both kinds of waiter: a user thread
 *            parks until a permit (cfa_unpark gives one; it parks again
 *            while not `granted`), a kernel thread waits on the futex of
 *            `granted` (FUTEX_WAIT compares and sleeps atomically,
 *            FUTEX_WAKE wakes a sleeper).
 * Waiters take one item each (lock; while no item: wait; take; unlock);
 * signallers add one item each under the mutex and signal or broadcast,
 * inside the mutex section or after it (POSIX allows both).
 *
 * Checked: mutual exclusion (assert), that a waiter never leaves its
 * wait while a waker is still in pt_grant for it (assert: the waiter's
 * thread may end there), and that every thread ends: a waiter left asleep
 * with its item available (a lost wake-up) is an invalid end state, which
 * SPIN reports.
 *
 * Memory: SPIN interleaves whole statements (sequential consistency). The
 * C code gets the orders the protocol needs from the mutex's
 * release/acquire and the queue lock's (pthread_cond.c's invariant).
 * Timed waits are not modelled.
 *
 * Parameters (spin -D...): NK kernel-thread waiters, NU user-thread
 * waiters (NW = NK + NU <= 3), SIGNALLERS (1-2), BROADCAST (0/1),
 * OUTSIDE (1: signal after the mutex section), STRAY (a stray permit
 * for the first user-thread waiter). BUGGY lets the mutex go before
 * queueing (W2 before W1): SPIN must find the lost wake-up. GRANT_EARLY
 * stores GRANTED before the unpark: SPIN must find the waiter leaving
 * while its waker still reaches it.
 */
#ifndef NK
#define NK 1
#endif
#ifndef NU
#define NU 1
#endif
#ifndef SIGNALLERS
#define SIGNALLERS 1
#endif
#ifndef BROADCAST
#define BROADCAST 0
#endif
#ifndef OUTSIDE
#define OUTSIDE 0
#endif

#define NW (NK + NU)
#define NT (NW + SIGNALLERS)
#define NONE 255

/* the mutex */
bool m_locked, m_waiters, m_qlock;
byte mq[NT]; byte mq_len;
/* the condition variable */
bool c_qlock;
byte cq[NT]; byte cq_len;
/* per thread: its waiter record and its wake-up means */
#define GRANTED  1
#define GRANTING 2      /* pt_grant is unparking the user thread */
byte granted[NT];       /* 0, GRANTING, GRANTED */
bool touching[NT];      /* a waker is in pt_grant for the thread's record */
bool permit[NT];        /* a user thread's park permit */
bool futex_asleep[NT];  /* a kernel thread asleep in FUTEX_WAIT on granted */
bool is_kernel[NT];
/* the program */
byte items;             /* under the mutex */
byte inside;            /* threads in a mutex section */
byte consumed;

inline qlock(l) { atomic { !l -> l = true } }
inline qunlock(l) { l = false }

/* Q_push(t) and Q_pop(w) for the FIFO Q (length Q_len): the oldest
 * record into w, NONE if Q is empty. */
#define FIFO(Q)                                                             \
inline Q##_push(t) { Q[Q##_len] = t; Q##_len++ }                            \
inline Q##_pop(w)                                                           \
{                                                                           \
    atomic {                                                                \
        if                                                                  \
        :: Q##_len == 0 -> w = NONE                                         \
        :: else ->                                                          \
            w = Q[0];                                                       \
            j = 0;                                                          \
            do                                                              \
            :: j + 1 < Q##_len -> Q[j] = Q[j + 1]; j++                      \
            :: else -> break                                                \
            od;                                                             \
            Q##_len--;                                                      \
            Q[Q##_len] = 0                                                  \
        fi                                                                  \
    }                                                                       \
}
FIFO(mq)
FIFO(cq)

/* pt_grant: its last touch of a user thread's record (and of the
 * thread) is the store of GRANTED. GRANT_EARLY stores it before the
 * unpark, as a broken pt_grant would: with a stray permit, the waiter
 * returns while the waker still reaches it. */
inline grant(w)
{
    if
    :: is_kernel[w] ->
        granted[w] = GRANTED;
        futex_asleep[w] = false            /* FUTEX_WAKE: any address will do */
    :: else ->
        touching[w] = true;
#ifdef GRANT_EARLY
        granted[w] = GRANTED;
        permit[w] = true;                  /* cfa_unpark */
        touching[w] = false
#else
        granted[w] = GRANTING;
        permit[w] = true;                  /* cfa_unpark */
        atomic { granted[w] = GRANTED; touching[w] = false }
#endif
    fi
}

/* pt_wait, with the queue lock l held and the record queued. */
inline wait_granted(l)
{
    qunlock(l);
    if
    :: is_kernel[me] ->
        do
        :: granted[me] -> break
        :: else ->
            atomic {                       /* FUTEX_WAIT: compare, sleep */
                if
                :: !granted[me] -> futex_asleep[me] = true
                :: else -> skip
                fi
            };
            !futex_asleep[me]
        od
    :: else ->
        do
        :: atomic { permit[me] -> permit[me] = false };  /* cfa_park */
           if
           :: granted[me] -> break
           :: else -> skip
           fi
        od;
        granted[me] == GRANTED             /* await_granted */
    fi;
    assert(!touching[me])                  /* the waiter may end here */
}

inline mutex_lock()
{
    granted[me] = 0;                       /* pt_waiter_init */
    if
    :: atomic { !m_locked && !m_waiters && !m_qlock -> m_locked = true }
    :: else ->
        qlock(m_qlock);                    /* lock_slow */
        if
        :: !m_locked -> m_locked = true; qunlock(m_qlock)
        :: else ->
            mq_push(me);
            m_waiters = true;
            wait_granted(m_qlock)          /* handed over: LOCKED stayed */
        fi
    fi;
    atomic { inside++; assert(inside == 1) }
}

inline mutex_unlock()
{
    inside--;
    if
    :: atomic { m_locked && !m_waiters && !m_qlock -> m_locked = false }
    :: else ->
        qlock(m_qlock);                    /* unlock_slow */
        mq_pop(w);
        if
        :: w == NONE -> m_locked = false; m_waiters = false; qunlock(m_qlock)
        :: else ->
            if
            :: mq_len == 0 -> m_waiters = false
            :: else -> skip
            fi;
            qunlock(m_qlock);
            grant(w)
        fi
    fi
}

inline cond_wait()
{
    granted[me] = 0;                       /* pt_waiter_init */
    qlock(c_qlock);
#ifdef BUGGY
    mutex_unlock();                        /* W2 before W1 */
    cq_push(me);
#else
    cq_push(me);                  /* W1 */
    mutex_unlock();                        /* W2 */
#endif
    wait_granted(c_qlock);                 /* W3 */
    mutex_lock()                           /* W4 */
}

inline cond_signal()
{
    if
    :: cq_len == 0 -> skip                 /* S1 */
    :: else ->
        qlock(c_qlock);                    /* S2 */
#if BROADCAST
        n = 0;
        do
        :: cq_len > 0 -> cq_pop(w); all[n] = w; n++
        :: else -> break
        od;
        qunlock(c_qlock);
        do
        :: n > 0 -> n--; grant(all[n])
        :: else -> break
        od
#else
        cq_pop(w);
        qunlock(c_qlock);
        if
        :: w != NONE -> grant(w)
        :: else -> skip
        fi
#endif
    fi
}

proctype Waiter(byte me)
{
    byte w, j;
    mutex_lock();
    do
    :: items > 0 -> break
    :: else -> cond_wait()
    od;
    items--;
    consumed++;
    mutex_unlock()
}

proctype Signaller(byte me)
{
    byte w, j, k = 0, n;
    byte all[NT];
    do
    :: k < NW / SIGNALLERS + (me == NW -> NW % SIGNALLERS : 0) ->
        mutex_lock();
        items++;
#if OUTSIDE
        mutex_unlock();
        cond_signal();
#else
        cond_signal();
        mutex_unlock();
#endif
        k++
    :: else -> break
    od
}

#ifdef STRAY
/* Anyone may unpark a thread: a stray permit for the first user-thread
 * waiter, at any moment. */
proctype Stray()
{
    permit[NK] = true
}
#endif

init
{
    byte i;
    atomic {
#ifdef STRAY
        run Stray();
#endif
        i = 0;
        do
        :: i < NK -> is_kernel[i] = true; i++
        :: else -> break
        od;
        i = 0;
        do
        :: i < NW -> run Waiter(i); i++
        :: else -> break
        od;
        do
        :: i < NT -> run Signaller(i); i++
        :: else -> break
        od
    }
}
