/* kthread.h: the runtime's own pthread calls are glibc's.
 *
 * The runtime defines pthread_create, pthread_mutex_lock, ... for the
 * program (pthread_*.c: user threads, objects that park them). Its own
 * kernel threads (processors, the preemption ticker, the I/O poller and
 * pool) and the short locks among them are glibc's: inside the runtime
 * these names are redirected here (pthread_glibc.c), to glibc through a
 * sanitizer's interceptor when the program has one, so that the sanitizer
 * knows the threads and the locks. The files that define the interposed
 * functions define CFA_PTHREAD_INTERPOSED first.
 */
#ifndef CFA_KTHREAD_H
#define CFA_KTHREAD_H

#include <cfa/kernel_thread.h>
#include <pthread.h>

/* Starts one of the runtime's helper kernel threads (the preemption
 * ticker, the I/O poller, an I/O pool worker) with every signal blocked.
 * They run no program code, so a process signal goes to a processor or to
 * a kernel thread of the program's own, never to a helper; in particular
 * never to one that is ending (an I/O pool worker after its idle time):
 * ThreadSanitizer drops a signal delivered to a kernel thread it has
 * already finished (its SigCtx is gone, rtl_generic_sighandler returns).
 * A processor's kernel thread blocks every signal once it leaves its loop
 * for the same reason (processor.c). */
int       kthread_create_helper(pthread_t *t, const pthread_attr_t *attr, void *(*body)(void *), void *arg);
void      kthread_block_signals(void);
int       kthread_kill(pthread_t t, int sig);
pthread_t kthread_self(void);
int       kthread_mutex_lock(pthread_mutex_t *m);
int       kthread_mutex_unlock(pthread_mutex_t *m);
int       kthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr);
int       kthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime);
int       kthread_cond_signal(pthread_cond_t *c);

#ifndef CFA_PTHREAD_INTERPOSED
#define pthread_create         cfa_kernel_thread_create
#define pthread_join           cfa_kernel_thread_join
#define pthread_detach         cfa_kernel_thread_detach
#define pthread_kill           kthread_kill
#define pthread_self           kthread_self
#define pthread_mutex_lock     kthread_mutex_lock
#define pthread_mutex_unlock   kthread_mutex_unlock
#define pthread_cond_init      kthread_cond_init
#define pthread_cond_timedwait kthread_cond_timedwait
#define pthread_cond_signal    kthread_cond_signal
#endif

#endif
