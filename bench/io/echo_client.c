/* echo_client.c: the load generator of the echo benchmark, the same for
 * every server: one thread, epoll, CONNS connections to 127.0.0.1:PORT,
 * each with one message of SIZE bytes in flight (send, wait for the whole
 * echo, check it, send the next). After WARMUP seconds it counts round
 * trips for SECONDS seconds and prints the rate.
 *
 * usage: echo_client PORT CONNS SIZE SECONDS [WARMUP]
 * output: "RESULT <round trips per second>" (bench/README.md's protocol)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct conn { int fd; size_t got; unsigned seq; };

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static size_t size;

static void fill(char *m, unsigned seq) { memset(m, (char)('a' + seq % 26), size); }

static void send_msg(struct conn *c) {
    char m[65536];
    fill(m, c->seq);
    for (size_t off = 0; off < size;) {
        ssize_t w = send(c->fd, m + off, size - off, MSG_NOSIGNAL);
        if (w < 0 && errno == EAGAIN) continue;
        if (w <= 0) { perror("echo_client: send"); exit(1); }
        off += (size_t)w;
    }
    c->got = 0;
}

int main(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "usage: echo_client PORT CONNS SIZE SECONDS [WARMUP]\n"); return 2; }
    int port = atoi(argv[1]), conns = atoi(argv[2]);
    size = (size_t)atoi(argv[3]);
    double seconds = atof(argv[4]), warmup = argc > 5 ? atof(argv[5]) : 0.5;
    if (size == 0 || size > 65536) { fprintf(stderr, "echo_client: SIZE 1..65536\n"); return 2; }
    int ep = epoll_create1(0);
    struct conn *cs = calloc((size_t)conns, sizeof *cs);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    for (int i = 0; i < conns; i++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
        for (int tries = 0; connect(fd, (struct sockaddr *)&a, sizeof a) != 0; tries++) {
            if (tries > 200) { perror("echo_client: connect"); return 1; }
            usleep(10000); /* the server may still be starting */
            close(fd);
            fd = socket(AF_INET, SOCK_STREAM, 0);
        }
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        cs[i].fd = fd;
        struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &cs[i] };
        epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    }
    for (int i = 0; i < conns; i++) send_msg(&cs[i]);
    double start = now(), measure_from = start + warmup, end = measure_from + seconds;
    long counted = 0;
    char buf[65536], expect[65536];
    struct epoll_event events[256];
    for (;;) {
        int n = epoll_wait(ep, events, 256, 100);
        double t = now();
        if (t >= end) break;
        for (int i = 0; i < n; i++) {
            struct conn *c = events[i].data.ptr;
            ssize_t r = recv(c->fd, buf, size - c->got, 0);
            if (r <= 0) { fprintf(stderr, "echo_client: recv: %s\n", r ? strerror(errno) : "closed"); return 1; }
            fill(expect, c->seq);
            if (memcmp(buf, expect, (size_t)r) != 0) { fprintf(stderr, "echo_client: wrong echo\n"); return 1; }
            c->got += (size_t)r;
            if (c->got == size) {
                if (t >= measure_from) counted++;
                c->seq++;
                send_msg(c);
            }
        }
    }
    printf("RESULT %.0f\n", counted / seconds);
    return 0;
}
