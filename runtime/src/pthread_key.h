/* pthread_key.h: thread-specific data (pthread_key.c) at the end of a
 * thread. */
#ifndef CFA_PTHREAD_KEY_H
#define CFA_PTHREAD_KEY_H

struct cfa_thread;

/* Runs the key destructors of a thread whose main returned, on the
 * thread, and frees its values. */
void pt_specific_thread_exit(struct cfa_thread *t);

#endif
