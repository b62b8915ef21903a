/* all_list.h: the "every live X" lists (threads, processors, I/O contexts).
 *
 * Each is a doubly linked list threaded through the element's own
 * all_prev/all_next fields, headed by a plain pointer and guarded by the
 * caller's lock: insertion at the head and removal from anywhere are O(1),
 * and a walker holding the lock follows all_next from the head. Macros so
 * that one definition serves every element type.
 */
#ifndef CFA_ALL_LIST_H
#define CFA_ALL_LIST_H

#define ALL_LIST_PUSH(head, x) do {                                    \
        (x)->all_prev = NULL;                                          \
        (x)->all_next = (head);                                        \
        if (head)                                                      \
            (head)->all_prev = (x);                                    \
        (head) = (x);                                                  \
    } while (0)

#define ALL_LIST_REMOVE(head, x) do {                                  \
        if ((x)->all_prev)                                             \
            (x)->all_prev->all_next = (x)->all_next;                   \
        else                                                           \
            (head) = (x)->all_next;                                    \
        if ((x)->all_next)                                             \
            (x)->all_next->all_prev = (x)->all_prev;                   \
        (x)->all_prev = (x)->all_next = NULL;                          \
    } while (0)

#endif
