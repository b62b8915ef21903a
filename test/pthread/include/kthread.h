/* kthread.h: a kernel thread that is not a processor, for the tests of
 * the pthread interface. The runtime's pthread_create makes user threads;
 * glibc's own, found past the program with dlsym(RTLD_NEXT), still makes
 * a kernel thread (as a library bypassing the runtime would). */
#ifndef CFA_TEST_KTHREAD_H
#define CFA_TEST_KTHREAD_H

#include <dlfcn.h>
#include <pthread.h>

static inline pthread_t kthread_start(void *(*body)(void *), void *arg) {
    int (*create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *) =
        (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))dlsym(RTLD_NEXT, "pthread_create");
    pthread_t t;
    if (!create || create(&t, NULL, body, arg) != 0) {
        fprintf(stderr, "cannot start a kernel thread\n");
        exit(2);
    }
    return t;
}

static inline void kthread_join(pthread_t t) {
    int (*join)(pthread_t, void **) = (int (*)(pthread_t, void **))dlsym(RTLD_NEXT, "pthread_join");
    join(t, NULL);
}

#endif
