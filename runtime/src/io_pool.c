/* io_pool.c: kernel threads that make blocking system calls for the
 * fallback engine (thesis 5.1.4, "extra kernel threads").
 *
 * Requests wait in one FIFO under a mutex. A worker is started whenever a
 * request is queued and fewer workers are idle than requests wait, up to
 * POOL_MAX, so a call that blocks for long (accept) never holds up the
 * others behind it, short of that bound. Idle workers exit after
 * POOL_IDLE_S seconds, so a burst does not keep its threads forever.
 *
 * connect on an O_NONBLOCK socket would return EINPROGRESS at once; as
 * io_uring does, the worker waits (poll) until the call can finish, so the
 * result does not depend on the descriptor's flag. accept (here only on a
 * socket without O_NONBLOCK: io_fallback.c) waits for a connection with
 * poll before it calls accept4: the kernel reserves the new descriptor
 * when accept4 starts, so a worker blocked in it would hold a descriptor
 * slot for as long as no client comes.
 *
 * Timed requests: the deadline bounds the poll waits; a request whose
 * deadline passed before a worker took it ends with ETIMEDOUT. A system
 * call in progress is not interrupted.
 *
 * Invariants (under `lock`): `queued` is the queue's length; `idle` counts
 * workers blocked in the condition wait; a request is owned by the queue
 * until a worker takes it, then by that worker until io_complete.
 */
#include "deadlock.h"
#include "kthread.h"
#include "io_internal.h"

#include <cfa/runtime.h>
#include <cfa/sleep.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

enum { POOL_MAX = 256, POOL_IDLE_S = 5 }; /* docs/scheduler.md#tunables */

_Atomic unsigned long pool_jobs;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work;
static pthread_once_t cond_once = PTHREAD_ONCE_INIT;
static struct cfa_queue jobs;   /* of io_future, oldest first */
static unsigned queued, idle, workers;

static void cond_init(void)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&work, &attr);
    pthread_condattr_destroy(&attr);
}

/* Waits until fd has `events` (or an error or hang-up, which the call
 * then reports), or the request's deadline (-ETIMEDOUT). A negative fd,
 * which poll would ignore, does not wait: the call says EBADF. */
static int64_t wait_ready(const struct cfa_io_request *r, short events)
{
    if (r->fd < 0)
        return 0;
    struct cfa_io_request poll = { .opcode = IO_POLL, .fd = r->fd, .flags = (uint16_t)events, .deadline = r->deadline };
    int64_t res = io_syscall(&poll);
    return res < 0 ? res : 0;
}

/* The request's system call, waiting rather than failing with EAGAIN /
 * EINPROGRESS on a non-blocking socket. */
static int64_t perform(struct cfa_io_request *r)
{
    if (io_deadline_passed(r))
        return -ETIMEDOUT;
    if (r->opcode == IO_ACCEPT) {
        int64_t res;
        while ((res = wait_ready(r, POLLIN)) == 0 && (res = io_syscall(r)) == -EAGAIN)
            ;
        return res;
    }
    int64_t res = io_syscall(r);
    if (r->opcode == IO_CONNECT && res == -EINPROGRESS && (res = wait_ready(r, POLLOUT)) == 0) {
        int err = 0;
        socklen_t len = sizeof err;
        res = getsockopt(r->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 ? -errno : -(int64_t)err;
    }
    return res;
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (cfa_queue_empty(&jobs)) {
            struct timespec until;
            clock_gettime(CLOCK_MONOTONIC, &until);
            until.tv_sec += POOL_IDLE_S;
            idle++;
            int err = pthread_cond_timedwait(&work, &lock, &until);
            idle--;
            if (err == ETIMEDOUT && cfa_queue_empty(&jobs)) {
                workers--;
                pthread_mutex_unlock(&lock);
                runtime_kthread_leave();
                return NULL;
            }
        }
        io_future *f = io_future_of(cfa_queue_pop_front(&jobs));
        queued--;
        pthread_mutex_unlock(&lock);
        io_complete(f, perform(&f->req));
        pthread_mutex_lock(&lock);
    }
}

void io_pool_fork_child(void)
{
    lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    cond_once = (pthread_once_t)PTHREAD_ONCE_INIT;
    jobs = (struct cfa_queue){ 0 };
    queued = idle = workers = 0;
}

void pool_submit(io_future *f)
{
    pthread_once(&cond_once, cond_init);
    io_stat_add(&pool_jobs, 1);
    pthread_mutex_lock(&lock);
    cfa_queue_push_back(&jobs, &f->link);
    queued++;
    bool spawn = queued > idle && workers < POOL_MAX;
    if (spawn)
        workers++;
    pthread_cond_signal(&work);
    pthread_mutex_unlock(&lock);
    if (spawn) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, 256 * 1024); /* sanitizers need room */
        pthread_t kt;
        runtime_kthread_enter(); /* before it exists: see processor.c */
        int err = kthread_create_helper(&kt, &attr, worker, NULL);
        pthread_attr_destroy(&attr);
        if (err)
            cfa_fatal("cannot start an I/O pool thread: %s", strerror(err));
    }
}
