/* idle.h: processors without work sleep here instead of spinning.
 *
 * Each processor has an eventfd (so that, later, its io_uring can wake it
 * too). A cluster keeps a LIFO list of the processors that are idle and
 * its length; ready_queue_push reads the length inside its critical
 * section and, when non-zero, the pusher wakes one listed processor.
 *
 * The handshake that loses no wake-up: a processor registers on the list,
 * then rechecks the ready queue under the queue's lock, then sleeps. Either
 * the recheck sees the new thread or the pusher sees the registration.
 * A wake-up that arrives before the sleep stays in the eventfd's counter.
 */
#ifndef CFA_IDLE_H
#define CFA_IDLE_H

#include <stdatomic.h>
#include <stdbool.h>

struct idle_sleeper {
    int                  fd;      /* eventfd */
    bool                 listed;  /* on the list; guarded by the list lock */
    struct idle_sleeper *next;
};

struct idle_list {
    _Atomic int          lock;
    struct idle_sleeper *head;
    _Atomic unsigned     count;   /* listed sleepers */
    _Atomic unsigned long sleeps, wakeups;  /* statistics */
};

void idle_sleeper_init(struct idle_sleeper *s);
void idle_sleeper_fini(struct idle_list *l, struct idle_sleeper *s);

void idle_register(struct idle_list *l, struct idle_sleeper *s);
void idle_unregister(struct idle_list *l, struct idle_sleeper *s);

/* Blocks the kernel thread until woken. */
void idle_sleep(struct idle_list *l, struct idle_sleeper *s);

/* Wakes the most recently idle processor, if any (a warm cache first). */
void idle_wake_one(struct idle_list *l);

/* Wakes this sleeper whether or not it is listed. */
void idle_wake(struct idle_sleeper *s);

/* Sets *flag and wakes s, both under the list lock: the sleeper may leave
 * and close its fd as soon as it sees the flag, and idle_sleeper_fini
 * passes through that lock before closing. */
void idle_raise_and_wake(struct idle_list *l, struct idle_sleeper *s, _Atomic bool *flag);

#endif
