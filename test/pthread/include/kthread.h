/* kthread.h: a kernel thread that is not a processor, for the tests of
 * the pthread interface (cfa/kernel_thread.h). */
#ifndef CFA_TEST_KTHREAD_H
#define CFA_TEST_KTHREAD_H

#include <cfa/kernel_thread.h>
#include <stdio.h>
#include <stdlib.h>

static inline pthread_t kthread_start(void *(*body)(void *), void *arg) {
    pthread_t t;
    if (cfa_kernel_thread_create(&t, NULL, body, arg) != 0) {
        fprintf(stderr, "cannot start a kernel thread\n");
        exit(2);
    }
    return t;
}

static inline void kthread_join(pthread_t t) { cfa_kernel_thread_join(t, NULL); }

#endif
