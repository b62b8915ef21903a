/* interpose_poll.c: poll and epoll_wait made by a user thread block only
 * that thread.
 *
 * A call that must wait waits through the runtime's I/O for one
 * descriptor's readiness (cfa_wait_ready: an io_uring POLL_ADD on the
 * processor's ring, or the fallback engine's epoll wait lists), then
 * looks again:
 *   1. the call without waiting (timeout 0): something ready, an error
 *      (EBADF, EINVAL, EFAULT: glibc's own), or a caller that would not
 *      wait: that is the answer;
 *   2. the deadline: the timeout from now (none for a negative timeout);
 *   3. the caller parks until one descriptor is ready or the deadline:
 *        epoll_wait       the epoll descriptor, for POLLIN (an epoll set
 *                         is readable while it has ready events);
 *        poll of one      that descriptor, for its events;
 *        poll of others   a temporary epoll set of the descriptors, for
 *                         POLLIN (none: a sleep until the deadline);
 *      the deadline passing ends the call: it returns 0;
 *   4. the call without waiting again; nothing ready (another thread took
 *      the events, or the readiness was stale) goes back to 3.
 * So the result and errno are those of glibc's call with timeout 0, made
 * once something is ready. The wait is never cut short by a signal (as
 * the sleeps, interpose_io.c): the signal is handled by whichever kernel
 * thread the kernel chose, as if it had not chosen this caller's. A
 * temporary set that cannot be made (no descriptor or memory left) leaves
 * the call to glibc with the time left, blocking the processor.
 * Calls from a kernel thread or from the runtime itself are glibc's
 * (interpose.h).
 */
#include "interpose.h"
#include "io_internal.h"

#include <cfa/io.h>
#include <cfa/sleep.h>
#include <poll.h>
#include <sys/epoll.h>
#include <unistd.h>

PT_UNIT(poll);

PT_INTERCEPTOR(int, poll, struct pollfd *, nfds_t, int);
PT_INTERCEPTOR(int, epoll_wait, int, struct epoll_event *, int, int);

enum { NO_DEADLINE = 0 };

/* One call of either kind, as the steps of the header see it. */
struct poll_call {
    bool                epoll;
    int                 epfd;
    struct epoll_event *events;
    int                 max_events;
    struct pollfd      *fds;
    nfds_t              nfds;
};

static int glibc_call(const struct poll_call *c, int timeout)
{
    return c->epoll ? pt_glibc_call(epoll_wait, c->epfd, c->events, c->max_events, timeout)
                    : pt_glibc_call(poll, c->fds, c->nfds, timeout);
}

/* The glibc call with the time left to `deadline`: the last resort. */
static int glibc_call_until(const struct poll_call *c, int64_t deadline)
{
    if (deadline == NO_DEADLINE)
        return glibc_call(c, -1);
    int64_t left = deadline - cfa_clock_ns();
    return glibc_call(c, left <= 0 ? 0 : left / 1000000 >= INT32_MAX ? INT32_MAX : (int)((left + 999999) / 1000000));
}

/* A temporary epoll set holding the poll set's descriptors, each for its
 * events (poll's and epoll's bits are the same); a descriptor listed
 * twice waits for the union. A descriptor epoll refuses (EPERM: a regular
 * file, or a device without poll) is left out: poll reports it ready at
 * once or never. -1 if the set cannot be made; errno says why. */
static int make_set(const struct pollfd *fds, nfds_t n)
{
    int ep = epoll_create1(EPOLL_CLOEXEC);
    for (nfds_t i = 0; ep >= 0 && i < n; i++) {
        if (fds[i].fd < 0)
            continue;
        struct epoll_event ev = { .events = (uint16_t)fds[i].events };
        if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[i].fd, &ev) == 0 || errno == EPERM)
            continue;
        if (errno == EEXIST) {
            for (nfds_t j = 0; j < i; j++)
                if (fds[j].fd == fds[i].fd)
                    ev.events |= (uint16_t)fds[j].events;
            if (epoll_ctl(ep, EPOLL_CTL_MOD, fds[i].fd, &ev) == 0)
                continue;
        }
        int err = errno;
        close(ep);
        errno = err;
        ep = -1;
    }
    return ep;
}

/* Step 3: 1 when something may be ready, 0 at the deadline, -1 if the
 * wait failed (errno). */
static int wait_ready(int fd, short events, int64_t deadline)
{
    int r = deadline == NO_DEADLINE ? cfa_wait_ready(fd, events) : cfa_wait_ready_until(fd, events, deadline);
    if (r >= 0)
        return 1;
    return errno == ETIMEDOUT ? 0 : -1;
}

/* Steps 2 to 4, after step 1 found nothing and the caller waits. */
static int wait_then_call(const struct poll_call *c, int timeout)
{
    int64_t deadline = timeout < 0 ? NO_DEADLINE : cfa_clock_ns() + (int64_t)timeout * 1000000;
    int fd = c->epoll ? c->epfd : c->nfds == 1 && c->fds[0].fd >= 0 ? c->fds[0].fd : -1;
    short events = c->epoll ? POLLIN : c->nfds == 1 ? c->fds[0].events : POLLIN;
    int set = -1;
    if (fd < 0) {
        set = make_set(c->fds, c->nfds);
        if (set < 0)
            return glibc_call_until(c, deadline);
        fd = set;
    }
    int r;
    for (;;) {
        int ready = wait_ready(fd, events, deadline);
        if (ready == 0) {
            r = 0;
            break;
        }
        r = glibc_call(c, 0);
        if (r != 0)
            break;
        if (ready < 0) {
            /* The wait failed and the call sees nothing: let glibc wait. */
            r = glibc_call_until(c, deadline);
            break;
        }
        if (deadline != NO_DEADLINE && cfa_clock_ns() >= deadline)
            break;
    }
    if (set >= 0) {
        int err = errno;
        close(set);
        errno = err;
    }
    return r;
}

/* Step 1, then the wait. A call that ends without parking counts as a
 * scheduling decision (io_count_unparked), so a thread that always finds
 * events still lets its processor poll for the others. */
static int poll_call(const struct poll_call *c, int timeout)
{
    int r = glibc_call(c, 0);
    if (r != 0 || timeout == 0) {
        io_count_unparked();
        return r;
    }
    return wait_then_call(c, timeout);
}

PT_WEAK int poll(struct pollfd *fds, nfds_t n, int timeout)
{
    if (!PARKS_CALLER())
        return pt_glibc_call(poll, fds, n, timeout);
    struct poll_call c = { .fds = fds, .nfds = n };
    return poll_call(&c, timeout);
}

PT_WEAK int epoll_wait(int epfd, struct epoll_event *events, int max, int timeout)
{
    if (!PARKS_CALLER())
        return pt_glibc_call(epoll_wait, epfd, events, max, timeout);
    struct poll_call c = { .epoll = true, .epfd = epfd, .events = events, .max_events = max };
    return poll_call(&c, timeout);
}
