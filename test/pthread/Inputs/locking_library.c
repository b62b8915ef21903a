/* A shared library with its own pthread lock (as sqlite or a logging
 * library has): calls `work` with the lock held. */
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void library_locked_call(void (*work)(void *), void *arg) {
    pthread_mutex_lock(&lock);
    work(arg);
    pthread_mutex_unlock(&lock);
}
