/* cfa/test_hook.h: the runtime's protocol test hook, for its own tests.
 *
 * The runtime calls cfa_test_hook(step) at each step of the idle-sleep /
 * wake-up protocol (docs/scheduler.md, "Idle sleep") and at the step of
 * pthread_cond_wait between letting the mutex go and blocking
 * (runtime/src/pthread_cond.c), at a waker's step between taking on a
 * parked thread's wake-up and unparking it (monitors, fork-join groups,
 * pthread objects), and in ThreadSanitizer builds at every
 * context switch and around the creation and destruction of a context's
 * TSan fiber (runtime/src/context.h), if the program defines the function; it is
 * a weak reference, NULL otherwise, so a program that does not define it
 * pays one predicted branch on those slow paths and nothing on the push
 * path (no hook sits there). A test defines it to delay or yield at chosen
 * steps and so force the orders that are rare on their own.
 *
 * The hook runs on a processor's kernel thread (or a notifier's thread, or
 * the waiting thread) in the middle of a protocol: it may spin,
 * sched_yield or nanosleep, and must not call the runtime (no park, yield
 * or unpark).
 */
#ifndef CFA_TEST_HOOK_H
#define CFA_TEST_HOOK_H

#ifdef __cplusplus
extern "C" {
#endif

enum cfa_test_step {
    CFA_STEP_POLLED = 1,   /* idle(): io_idle found nothing; about to register */
    CFA_STEP_REGISTERED,   /* registered (SEARCH, `first`); about to search every lane */
    CFA_STEP_SEARCHED,     /* the search found nothing; about to spin and sleep */
    CFA_STEP_WOKEN,        /* the spin or the sleep ended (found work, notified, woken); about to unregister */
    CFA_STEP_UNREGISTERED, /* off the idle list, `first` republished; about to pop */
    CFA_STEP_PASS_ON,      /* left idle with a thread; about to check the lanes and pass the wake-up on */
    CFA_STEP_NOTIFY_TOOK,  /* a notifier took a sleeper from `first`; about to flip its state */
    CFA_STEP_COND_RELEASED, /* pthread_cond_wait let the mutex go; about to block */
    CFA_STEP_FIBER_SWITCH, /* ThreadSanitizer builds only: about to switch TSan's fiber (context.h) */
    CFA_STEP_FIBER_CREATED, /* ThreadSanitizer builds only: a context's TSan fiber was just created */
    CFA_STEP_FIBER_DESTROY, /* ThreadSanitizer builds only: about to destroy a context's TSan fiber */
    CFA_STEP_PROCESSOR_LEFT, /* a processor's kernel thread left its loop; about to tear the processor down */
    CFA_STEP_HALTING,       /* a thread's last switch is done; about to close its joiner list */
    CFA_STEP_JOINERS_TAKEN, /* a halted thread's joiners were taken, HALTED stored; about to release them */
    CFA_STEP_JOIN_QUEUED,   /* a joiner queued on a running thread; about to wait for its release */
    CFA_STEP_SLEEPING,      /* committed to sleep (SLEEP), the deadlock check done; about to block */
    CFA_STEP_WAKE_CLAIMED,  /* a monitor hand-off, a fork-join group's last task or a pthread object's
                               grant took on waking a parked thread; about to unpark it */
};

void cfa_test_hook(enum cfa_test_step step) __attribute__((weak));

#ifdef __cplusplus
}
#endif
#endif
