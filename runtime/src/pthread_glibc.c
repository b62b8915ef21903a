/* pthread_glibc.c: glibc's pthread calls for the runtime itself
 * (kthread.h) and for the program's own kernel threads
 * (cfa/kernel_thread.h). A sanitizer's interceptor, when the program has
 * one, comes first: the sanitizer must see these threads and locks. */
#include "pthread_wait.h"

#include <pthread.h>
#include <signal.h>

PT_INTERCEPTOR(int, pthread_create, pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
PT_INTERCEPTOR(int, pthread_join, pthread_t, void **);
PT_INTERCEPTOR(int, pthread_detach, pthread_t);
PT_INTERCEPTOR(int, pthread_kill, pthread_t, int);
PT_INTERCEPTOR(int, pthread_mutex_lock, pthread_mutex_t *);
PT_INTERCEPTOR(int, pthread_mutex_unlock, pthread_mutex_t *);
PT_INTERCEPTOR(int, pthread_cond_init, pthread_cond_t *, const pthread_condattr_t *);
PT_INTERCEPTOR(int, pthread_cond_timedwait, pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
PT_INTERCEPTOR(int, pthread_cond_signal, pthread_cond_t *);

int cfa_kernel_thread_create(pthread_t *t, const pthread_attr_t *attr, void *(*body)(void *), void *arg)
{
    return pt_glibc_call(pthread_create, t, attr, body, arg);
}
int kthread_create_helper(pthread_t *t, const pthread_attr_t *attr, void *(*body)(void *), void *arg)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the new thread inherits it */
    int err = pt_glibc_call(pthread_create, t, attr, body, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return err;
}

void kthread_block_signals(void)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, NULL);
}

int cfa_kernel_thread_join(pthread_t t, void **result) { return pt_glibc_call(pthread_join, t, result); }
int cfa_kernel_thread_detach(pthread_t t) { return pt_glibc_call(pthread_detach, t); }
int kthread_kill(pthread_t t, int sig) { return pt_glibc_call(pthread_kill, t, sig); }
pthread_t kthread_self(void) { return pt_real(pthread_self)(); }
int kthread_mutex_lock(pthread_mutex_t *m) { return pt_glibc_call(pthread_mutex_lock, m); }
int kthread_mutex_unlock(pthread_mutex_t *m) { return pt_glibc_call(pthread_mutex_unlock, m); }
int kthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr)
{
    return pt_glibc_call(pthread_cond_init, c, attr);
}
int kthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime)
{
    return pt_glibc_call(pthread_cond_timedwait, c, m, abstime);
}
int kthread_cond_signal(pthread_cond_t *c) { return pt_glibc_call(pthread_cond_signal, c); }

/* Every interposing file is linked whenever the runtime is (PT_UNIT). */
extern const char pt_unit_mutex, pt_unit_cond, pt_unit_rwlock, pt_unit_spin, pt_unit_barrier, pt_unit_sem,
    pt_unit_stdio, pt_unit_key, pt_unit_thread, pt_unit_io, pt_unit_poll, pt_unit_signal;
__attribute__((used)) static const char *const interposing_units[] = {
    &pt_unit_mutex, &pt_unit_cond,  &pt_unit_rwlock, &pt_unit_spin,   &pt_unit_barrier, &pt_unit_sem,
    &pt_unit_stdio, &pt_unit_key,   &pt_unit_thread, &pt_unit_io,     &pt_unit_poll, &pt_unit_signal,
};
