/* io_sendfile.c: sendfile(2) for user threads, on both engines.
 *
 * io_uring has no sendfile, and its splice always runs on an io-wq worker
 * thread (the kernel forces it async, thesis 8.2): a splice chain costs two
 * kernel-thread hand-offs per chunk, which measured 46% of the web
 * server's CPU time. So sendfile is the real system call, made without
 * blocking, and only the wait for room in the output is asynchronous:
 *
 *   try     sendfile with O_NONBLOCK set on the output for the call (the
 *           thesis's web server did the same, section 8.2); if it sent
 *           anything or failed, that is the result, as sendfile(2);
 *   wait    on EAGAIN (the socket or pipe is full): a poll for POLLOUT on
 *           the ring (io_uring) or the descriptor's wait list (fallback),
 *           which blocks only the thread; then try again.
 *
 * The offset follows sendfile(2): with a pointer, the kernel advances
 * *offset and the file position stays; without, the position advances.
 *
 * Costs and limits, chosen knowingly:
 *  - Setting and restoring O_NONBLOCK is two fcntl calls around the
 *    sendfile when the output is blocking. A plain blocking read(2) or
 *    write(2) that another kernel thread makes on the same descriptor at
 *    that moment may see EAGAIN. The runtime's own calls never do: they
 *    wait on O_NONBLOCK descriptors (docs/io.md).
 *  - Reading the input is the system call's own: a page missing from the
 *    page cache is read from disk while the processor waits, a bounded
 *    wait (Linux has no non-blocking file read for sendfile).
 *  - Only a regular file (or block device) is read this way. Any other
 *    input (a pipe, a socket) could block the processor on its read, or
 *    say EAGAIN itself and make the POLLOUT wait spin: such a sendfile
 *    goes to the fallback engine's pool, whose kernel thread blocks. The
 *    check is one fstat per call.
 */
#include "io_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/sendfile.h>
#include <sys/stat.h>

int64_t sendfile_nowait(const struct cfa_io_request *r)
{
    int flags = fcntl(r->fd, F_GETFL);
    if (flags < 0)
        return -errno;
    bool toggle = !(flags & O_NONBLOCK);
    if (toggle && fcntl(r->fd, F_SETFL, flags | O_NONBLOCK) < 0)
        return -errno;
    ssize_t n = sendfile(r->fd, r->fd2, r->addr2, r->len);
    int err = errno;
    if (toggle)
        fcntl(r->fd, F_SETFL, flags);
    return n < 0 ? -(int64_t)err : n;
}

bool sendfile_input_is_file(int in_fd)
{
    struct stat st;
    return fstat(in_fd, &st) == 0 && (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode));
}

bool sendfile_begin(io_future *f)
{
    if (!sendfile_input_is_file(f->req.fd2)) {
        fallback_start(f); /* its pool; a bad fd fails there as sendfile(2) */
        return false;
    }
    int64_t res = sendfile_nowait(&f->req);
    if (res == -EAGAIN)
        return true; /* the ring waits for room (sendfile_prep) */
    io_complete(f, res);
    return false;
}

void sendfile_prep(struct io_uring_sqe *sqe, const struct cfa_io_request *r)
{
    io_uring_prep_poll_add(sqe, r->fd, POLLOUT);
}

/* After the wait: room, or POLLERR/POLLHUP (the retry then reports the
 * error), or the poll's own failure. EAGAIN again means another writer
 * took the room first. */
enum sendfile_next sendfile_step(io_future *f, int res, int64_t *final)
{
    *final = res < 0 ? res : sendfile_nowait(&f->req);
    return *final == -EAGAIN ? SENDFILE_POLL : SENDFILE_DONE;
}
