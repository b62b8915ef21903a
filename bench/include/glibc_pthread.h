/* glibc_pthread.h: glibc's pthread calls, for the benchmarks' peers.
 *
 * In a program linked with the runtime the pthread names are the
 * runtime's (they make and serve user threads, docs/pthreads.md). A
 * benchmark that measures glibc's kernel threads and locks as a peer
 * includes this header after <pthread.h> and <semaphore.h>: the names
 * below then call glibc's definitions, found once each past the program
 * (dlsym RTLD_NEXT). With GLIBC_PTHREAD_EXPLICIT defined first, the names
 * stay the runtime's and GLIBC(name)(...) calls glibc's.
 */
#ifndef CFA_BENCH_GLIBC_PTHREAD_H
#define CFA_BENCH_GLIBC_PTHREAD_H

#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

static inline void *glibc_function(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        fprintf(stderr, "glibc's %s not found\n", name);
        exit(2);
    }
    return f;
}

#define GLIBC(name)                                                   \
    ({                                                                \
        static void *glibc_fn_;                                       \
        if (!glibc_fn_) glibc_fn_ = glibc_function(#name);            \
        (__typeof__(&name))glibc_fn_;                                 \
    })

#ifndef GLIBC_PTHREAD_EXPLICIT
#define pthread_create(...)         GLIBC(pthread_create)(__VA_ARGS__)
#define pthread_join(...)           GLIBC(pthread_join)(__VA_ARGS__)
#define pthread_mutex_lock(...)     GLIBC(pthread_mutex_lock)(__VA_ARGS__)
#define pthread_mutex_unlock(...)   GLIBC(pthread_mutex_unlock)(__VA_ARGS__)
#define pthread_mutex_trylock(...)  GLIBC(pthread_mutex_trylock)(__VA_ARGS__)
#define pthread_cond_wait(...)      GLIBC(pthread_cond_wait)(__VA_ARGS__)
#define pthread_cond_signal(...)    GLIBC(pthread_cond_signal)(__VA_ARGS__)
#define pthread_rwlock_rdlock(...)  GLIBC(pthread_rwlock_rdlock)(__VA_ARGS__)
#define pthread_rwlock_wrlock(...)  GLIBC(pthread_rwlock_wrlock)(__VA_ARGS__)
#define pthread_rwlock_unlock(...)  GLIBC(pthread_rwlock_unlock)(__VA_ARGS__)
#define pthread_spin_lock(...)      GLIBC(pthread_spin_lock)(__VA_ARGS__)
#define pthread_spin_unlock(...)    GLIBC(pthread_spin_unlock)(__VA_ARGS__)
#define pthread_getspecific(...)    GLIBC(pthread_getspecific)(__VA_ARGS__)
#define pthread_setspecific(...)    GLIBC(pthread_setspecific)(__VA_ARGS__)
#define pthread_self(...)           GLIBC(pthread_self)(__VA_ARGS__)
#define pthread_once(...)           GLIBC(pthread_once)(__VA_ARGS__)
#define sem_init(...)               GLIBC(sem_init)(__VA_ARGS__)
#define sem_wait(...)               GLIBC(sem_wait)(__VA_ARGS__)
#define sem_post(...)               GLIBC(sem_post)(__VA_ARGS__)
#define flockfile(...)              GLIBC(flockfile)(__VA_ARGS__)
#define funlockfile(...)            GLIBC(funlockfile)(__VA_ARGS__)
#endif

#endif
