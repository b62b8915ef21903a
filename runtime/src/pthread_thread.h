/* pthread_thread.h: what the rest of the runtime asks of pthread_thread.c
 * (pthread_create and its bookkeeping). */
#ifndef CFA_PTHREAD_THREAD_H
#define CFA_PTHREAD_THREAD_H

struct cfa_thread;

/* In a child made by fork() (fork.c, step C2): the pthreads alive are
 * `survivor` if it is one, and nobody holds or waits for the lock that
 * sizes the main cluster. */
void pthread_fork_child(struct cfa_thread *survivor);

#endif
