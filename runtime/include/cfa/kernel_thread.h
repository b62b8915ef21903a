/* cfa/kernel_thread.h: kernel threads that are not processors.
 *
 * In a program linked with the runtime, pthread_create makes a user
 * thread (LANGUAGE.md section 13, docs/pthreads.md). A program that wants
 * a kernel thread of its own (to wait for signals with sigwait, to run
 * code that must not share a processor, ...) makes it with these: the same
 * arguments and results as glibc's pthread_create, pthread_join and
 * pthread_detach. On that thread every pthread object and cfa-lite call
 * that blocks blocks the kernel thread; pthread_join and pthread_detach
 * also accept the thread it returns.
 */
#ifndef CFA_KERNEL_THREAD_H
#define CFA_KERNEL_THREAD_H

#include <pthread.h>

#ifdef __cplusplus
extern "C" {
#endif

int cfa_kernel_thread_create(pthread_t *thread, const pthread_attr_t *attr,
                             void *(*body)(void *), void *arg);
int cfa_kernel_thread_join(pthread_t thread, void **result);
int cfa_kernel_thread_detach(pthread_t thread);

#ifdef __cplusplus
}
#endif
#endif
