/* cfa/std/waitq.h: the queue of blocked threads that every library object
 * embeds (channel, future, locks). Public only so that the objects can be
 * declared by value; its records are private (stdlib/src/waitq.h).
 *
 * Invariant: all-zero is an empty queue; it is only touched under the
 * lock of the object that embeds it.
 */
#ifndef CFA_STD_WAITQ_H
#define CFA_STD_WAITQ_H

#ifdef __cplusplus
extern "C" {
#endif

struct cfa_std_waiter;

struct cfa_std_waitq {
    struct cfa_std_waiter *head, *tail; /* oldest first */
};

#ifdef __cplusplus
}
#endif

#endif
