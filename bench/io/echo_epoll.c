/* echo_epoll.c: the baseline loopback echo server, one thread, epoll,
 * non-blocking sockets (the classic event loop).
 *
 * usage: echo_epoll   (listens on 127.0.0.1, an ephemeral port, printed on
 *                      stdout)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* accept4 */
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "loopback.h"

/* Bytes read but not yet written back, per connection (writes to a
 * loopback socket rarely block; when one does, EPOLLOUT finishes it). */
struct conn { int fd; size_t pending, off; char buf[4096]; };

static void close_conn(int ep, struct conn *c) {
    epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    free(c);
}

/* Writes what is pending; false if the connection failed. */
static int flush(int ep, struct conn *c) {
    while (c->off < c->pending) {
        ssize_t w = send(c->fd, c->buf + c->off, c->pending - c->off, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno != EAGAIN) return 0;
            struct epoll_event ev = { .events = EPOLLOUT, .data.ptr = c };
            epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
            return 1;
        }
        c->off += (size_t)w;
    }
    c->pending = c->off = 0;
    return 1;
}

int main(void) {
    int l = listen_loopback("echo_epoll", SOCK_NONBLOCK), one = 1;
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event lev = { .events = EPOLLIN, .data.ptr = NULL };
    epoll_ctl(ep, EPOLL_CTL_ADD, l, &lev);
    struct epoll_event events[256];
    for (;;) {
        int n = epoll_wait(ep, events, 256, -1);
        for (int i = 0; i < n; i++) {
            struct conn *c = events[i].data.ptr;
            if (!c) {
                int fd;
                while ((fd = accept4(l, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) {
                    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    struct conn *nc = calloc(1, sizeof *nc);
                    nc->fd = fd;
                    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = nc };
                    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
                }
                continue;
            }
            if (c->pending) { /* EPOLLOUT: finish the write, then read again */
                if (!flush(ep, c)) { close_conn(ep, c); continue; }
                if (c->pending) continue;
                struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
                epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
                continue;
            }
            ssize_t r = recv(c->fd, c->buf, sizeof c->buf, 0);
            if (r == 0 || (r < 0 && errno != EAGAIN)) { close_conn(ep, c); continue; }
            if (r < 0) continue;
            c->pending = (size_t)r;
            c->off = 0;
            if (!flush(ep, c)) close_conn(ep, c);
        }
    }
}
