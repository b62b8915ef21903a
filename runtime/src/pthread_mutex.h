/* pthread_mutex.h: what pthread_cond.c needs of a mutex: to let it go
 * entirely (a recursive one too) while waiting, and to take it back. */
#ifndef CFA_PTHREAD_MUTEX_H
#define CFA_PTHREAD_MUTEX_H

#include <pthread.h>

/* EPERM if the caller does not hold an owner-checking mutex. */
int pt_mutex_release_for_wait(pthread_mutex_t *m, unsigned *count);
void pt_mutex_retake_after_wait(pthread_mutex_t *m, unsigned count);

#endif
