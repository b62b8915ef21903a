/* echo_cfa.c: the loopback echo server on cfa-lite's C API.
 *
 * One processor (the program's main kernel thread); the main thread
 * accepts with cfa_accept and starts a user thread per connection that
 * echoes with cfa_recv/cfa_send: blocking calls that block only the
 * thread, all multiplexed on the processor's io_uring.
 *
 * usage: echo_cfa   (listens on 127.0.0.1, an ephemeral port, printed on
 *                    stdout; serves until killed)
 */
#include <cfa/runtime.h>
#include <cfa/io.h>
#include "loopback.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

struct connection {
    int               fd;
    struct cfa_thread thread;
};

static void echo(void *object) {
    struct connection *c = object;
    char buf[4096];
    for (;;) {
        ssize_t n = cfa_recv(c->fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        for (ssize_t off = 0; off < n;) {
            ssize_t w = cfa_send(c->fd, buf + off, (size_t)(n - off), MSG_NOSIGNAL);
            if (w <= 0) goto out;
            off += w;
        }
    }
out:
    cfa_close(c->fd);
    /* The struct is freed by nobody: a benchmark server runs until killed
     * and holds one per connection. */
}

int main(void) {
    int l = listen_loopback("echo_cfa", 0), one = 1;
    fprintf(stderr, "echo_cfa: engine %s\n", cfa_io_engine());
    for (;;) {
        int fd = cfa_accept4(l, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) { perror("echo_cfa: accept"); continue; }
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        struct connection *c = calloc(1, sizeof *c);
        c->fd = fd;
        cfa_thread_start(&c->thread, echo, c, "Echo", 64 * 1024);
    }
}
