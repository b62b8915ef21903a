/* io_sendfile.c: sendfile(2) on io_uring, which has no sendfile.
 *
 * The thesis (section 7.5) notes io_uring lacks sendfile and that splice
 * is strictly more powerful; its web server fell back to blocking
 * sendfile with O_NONBLOCK toggled around each call, spinning on EAGAIN.
 * Here sendfile is a chain of splices through a pipe, every one an io_uring
 * request, so the thread blocks and the processor does not:
 *
 *   FILL   splice(in_fd at the offset -> pipe), at most PIPE_CHUNK bytes
 *   DRAIN  splice(pipe -> out_fd) until the pipe is empty
 *
 * repeated until `count` bytes are sent, the input ends, or an error.
 * The request keeps the chain's state: `off` the input offset (-1: the
 * file position), `off2` bytes sent, `in_pipe` bytes in the pipe.
 *
 * Result and offsets as sendfile(2): the bytes written; *offset (when
 * given) set past the last byte sent and the file position untouched,
 * otherwise the file position advanced. If writing fails after a read
 * into the pipe, the unsent bytes are given back to the input (offset or
 * file position) and the pipe, which still holds them, is closed rather
 * than reused. An error after some bytes were sent returns that count.
 *
 * Pipes are cached (a short stack under a spinlock): a pipe is reused
 * only when empty.
 */
#include "kernel.h"
#include "io_internal.h"
#include "spinlock.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

enum { SF_FILL = 0, SF_DRAIN = 1 };
enum { PIPE_CHUNK = 64 * 1024, PIPE_CACHE = 32 }; /* a pipe holds 64 KiB by default */

static _Atomic int cache_lock;
static int cache[PIPE_CACHE][2];
static int cached;

static bool pipe_get(int fds[2])
{
    spin_lock(&cache_lock);
    if (cached) {
        cached--;
        fds[0] = cache[cached][0];
        fds[1] = cache[cached][1];
        spin_unlock(&cache_lock);
        return true;
    }
    spin_unlock(&cache_lock);
    return pipe2(fds, O_CLOEXEC) == 0;
}

static void pipe_put(int r, int w, bool empty)
{
    if (empty) {
        spin_lock(&cache_lock);
        if (cached < PIPE_CACHE) {
            cache[cached][0] = r;
            cache[cached][1] = w;
            cached++;
            spin_unlock(&cache_lock);
            return;
        }
        spin_unlock(&cache_lock);
    }
    close(r);
    close(w);
}

bool sendfile_begin(io_future *f, int64_t *res)
{
    struct cfa_io_request *r = &f->req;
    if (r->len == 0) {
        *res = 0;
        return false;
    }
    int fds[2];
    if (!pipe_get(fds)) {
        *res = -errno;
        return false;
    }
    r->pipe_in = fds[0];
    r->pipe_out = fds[1];
    r->step = SF_FILL;
    r->off = r->addr2 ? *(off_t *)r->addr2 : -1;
    r->off2 = 0;
    r->in_pipe = 0;
    return true;
}

void sendfile_prep(struct io_uring_sqe *sqe, const struct cfa_io_request *r)
{
    if (r->step == SF_FILL) {
        uint64_t left = r->len - (uint64_t)r->off2;
        io_uring_prep_splice(sqe, r->fd2, r->off, r->pipe_out, -1, left < PIPE_CHUNK ? (unsigned)left : PIPE_CHUNK,
                             SPLICE_F_MOVE);
    } else {
        io_uring_prep_splice(sqe, r->pipe_in, -1, r->fd, -1, r->in_pipe, SPLICE_F_MOVE);
    }
}

/* Ends the chain; `res` is the failing step's result (or 0). */
static int64_t finish(struct cfa_io_request *r, int64_t res)
{
    bool empty = r->in_pipe == 0;
    if (!empty) {
        /* Read but not sent: give the bytes back to the input. */
        if (r->off >= 0)
            r->off -= r->in_pipe;
        else
            lseek(r->fd2, -(off_t)r->in_pipe, SEEK_CUR);
        r->in_pipe = 0;
    }
    if (r->addr2)
        *(off_t *)r->addr2 = r->off;
    pipe_put(r->pipe_in, r->pipe_out, empty);
    return r->off2 > 0 ? r->off2 : res;
}

bool sendfile_step(io_future *f, int res, int64_t *final)
{
    struct cfa_io_request *r = &f->req;
    if (r->step == SF_FILL) {
        if (res <= 0) { /* end of input, or an error */
            *final = finish(r, res);
            return false;
        }
        r->in_pipe = (uint32_t)res;
        if (r->off >= 0)
            r->off += res;
        r->step = SF_DRAIN;
        return true;
    }
    if (res <= 0) {
        *final = finish(r, res);
        return false;
    }
    r->in_pipe -= (uint32_t)res;
    r->off2 += res;
    if (r->in_pipe > 0)
        return true; /* drain the rest */
    if ((uint64_t)r->off2 < r->len) {
        r->step = SF_FILL;
        return true;
    }
    *final = finish(r, 0);
    return false;
}

void sendfile_abandon(io_future *f)
{
    struct cfa_io_request *r = &f->req;
    int64_t sent = finish(r, 0);
    if (sent > 0) {
        io_complete(f, sent);
        return;
    }
    /* Nothing sent yet: the whole call again, as the plain system call. */
    r->off = -1;
    fallback_start(f);
}
