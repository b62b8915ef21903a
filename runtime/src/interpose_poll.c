/* interpose_poll.c: poll and epoll_wait made by a user thread block only
 * that thread.
 *
 * The runtime's I/O waits for one descriptor at a time; a poll over a set
 * is handed to a kernel thread instead, and the user thread parks until
 * it returns:
 *   1. the call is first made without waiting (timeout 0): if something
 *      is ready, or the caller would not wait, that is the answer;
 *   2. otherwise the caller queues a job (on its stack) and waits on the
 *      job's semaphore; an idle waiter thread takes the job, makes the
 *      call with the caller's timeout, stores the result and errno and
 *      posts the semaphore. A job that finds fewer idle waiters than
 *      queued jobs (itself included) starts one; waiters stay for later
 *      jobs. Counting the queued jobs matters: two jobs queued before the
 *      one idle waiter wakes would otherwise share it, and the second,
 *      behind a wait without a timeout, would never be served.
 * The queue's mutex and condition variable and the semaphore are the
 * runtime's own pthread objects (pthread_wait.h): user threads park on
 * them, the waiter threads block on them.
 * Calls from a kernel thread or from the runtime itself are glibc's
 * (interpose.h).
 */
#include "interpose.h"

#include <cfa/internal/queue.h>
#include <poll.h>
#include <semaphore.h>
#include <string.h>
#include <sys/epoll.h>

PT_UNIT(poll);

PT_INTERCEPTOR(int, poll, struct pollfd *, nfds_t, int);
PT_INTERCEPTOR(int, epoll_wait, int, struct epoll_event *, int, int);

struct poll_job {
    struct cfa_qlink    link;       /* in `jobs` */
    bool                epoll;
    int                 fd_or_count;
    void               *set;        /* struct pollfd * or struct epoll_event * */
    int                 max_events;
    int                 timeout;
    int                 result;
    int                 error;
    sem_t               done;
};

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t  queued = PTHREAD_COND_INITIALIZER;
static struct cfa_queue jobs;
static unsigned queued_jobs, idle_waiters; /* under queue_lock */

void poll_waiters_fork_child(void)
{
    queue_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    queued = (pthread_cond_t)PTHREAD_COND_INITIALIZER;
    jobs = (struct cfa_queue){ 0 };
    queued_jobs = idle_waiters = 0;
}

static int glibc_wait(struct poll_job *j, int timeout)
{
    return j->epoll ? pt_glibc_call(epoll_wait, j->fd_or_count, j->set, j->max_events, timeout)
                    : pt_glibc_call(poll, j->set, (nfds_t)j->fd_or_count, timeout);
}

static void *waiter_thread(void *arg)
{
    pthread_mutex_lock(&queue_lock);
    for (;;) {
        while (cfa_queue_empty(&jobs)) {
            idle_waiters++;
            pthread_cond_wait(&queued, &queue_lock);
            idle_waiters--;
        }
        struct poll_job *j = cfa_queue_entry(cfa_queue_pop_front(&jobs), struct poll_job, link);
        queued_jobs--;
        pthread_mutex_unlock(&queue_lock);
        j->result = glibc_wait(j, j->timeout);
        j->error = errno;
        sem_post(&j->done);
        pthread_mutex_lock(&queue_lock);
    }
    return arg;
}

static int hand_over(struct poll_job *j)
{
    sem_init(&j->done, 0, 0);
    pthread_mutex_lock(&queue_lock);
    cfa_queue_push_back(&jobs, &j->link);
    bool start = ++queued_jobs > idle_waiters;
    if (!start)
        pthread_cond_signal(&queued);
    pthread_mutex_unlock(&queue_lock);
    if (start) {
        pthread_t t;
        int err = cfa_kernel_thread_create(&t, NULL, waiter_thread, NULL);
        if (err)
            cfa_fatal("cannot start a poll waiter thread: %s", strerror(err));
        cfa_kernel_thread_detach(t);
    }
    while (sem_wait(&j->done) != 0)
        ;
    sem_destroy(&j->done);
    errno = j->error;
    return j->result;
}

/* Steps 1 and 2 of the header. */
static int wait_for(struct poll_job *j)
{
    int r = glibc_wait(j, 0);
    if (r != 0 || j->timeout == 0)
        return r;
    return hand_over(j);
}

PT_WEAK int poll(struct pollfd *fds, nfds_t n, int timeout)
{
    if (!PARKS_CALLER())
        return pt_glibc_call(poll, fds, n, timeout);
    struct poll_job j = { .fd_or_count = (int)n, .set = fds, .timeout = timeout };
    return wait_for(&j);
}

PT_WEAK int epoll_wait(int epfd, struct epoll_event *events, int max, int timeout)
{
    if (!PARKS_CALLER())
        return pt_glibc_call(epoll_wait, epfd, events, max, timeout);
    struct poll_job j = { .epoll = true, .fd_or_count = epfd, .set = events, .max_events = max, .timeout = timeout };
    return wait_for(&j);
}
