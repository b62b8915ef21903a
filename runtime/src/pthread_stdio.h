/* pthread_stdio.h: what the rest of the runtime asks of pthread_stdio.c
 * (the FILE locks of flockfile). */
#ifndef CFA_PTHREAD_STDIO_H
#define CFA_PTHREAD_STDIO_H

/* In a child made by fork() (fork.c, step C2): a FILE lock that a thread
 * other than the caller held is free, as glibc frees its own FILE locks
 * in the child; one the caller holds stays held; no thread waits. */
void stdio_locks_fork_child(void);

#endif
