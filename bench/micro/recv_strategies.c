/* recv_strategies.c: the kernel's and the server loop's CPU time per
 * request for four ways a server thread can receive small requests on
 * many idle connections, without any user-level runtime in the way
 * (docs/memcached.md, "Where cfa-memcached's time goes").
 *
 *   build/bench/recv_strategies MODE [connections [seconds [in_flight]]]
 *     MODE: oneshot    one io_uring recv per request, re-armed after each
 *                      (what cfa_recv does)
 *           multishot  one multishot recv per connection, data in buffers
 *                      of a provided-buffer ring
 *           mpoll      one multishot poll per connection, then recv(2)
 *           epoll      epoll_wait, then read(2) (memcached's loop)
 *
 * A client thread keeps `in_flight` requests of 48 bytes outstanding on
 * connections chosen at random among `connections` loopback TCP
 * connections; the server thread answers each with a 16-byte send(2).
 * Prints the server thread's CPU time per request (CLOCK_THREAD_CPUTIME_ID,
 * user and system). Defaults: 4000 connections, 4 s, 32 in flight. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { REQUEST = 48, REPLY = 16, BUFFERS = 4096, BUFFER_SIZE = 256 };
enum mode { ONESHOT, MULTISHOT, MPOLL, EPOLL };

static enum mode mode;
static int nconn, in_flight;
static double seconds;
static int *server_fd, *client_fd;
static _Atomic bool stop;
static long served;

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Answers every whole request in `bytes` received on fd. */
static void answer(int fd, long bytes)
{
    static const char reply[REPLY] = "VALUE k 0 1\r\n";
    for (long i = 0; i < bytes / REQUEST; i++) {
        if (send(fd, reply, REPLY, MSG_DONTWAIT | MSG_NOSIGNAL) != REPLY)
            die("send");
        served++;
    }
}

static void serve_epoll(char *buf)
{
    int ep = epoll_create1(0);
    for (int i = 0; i < nconn; i++) {
        struct epoll_event e = { .events = EPOLLIN, .data.u32 = (uint32_t)i };
        if (epoll_ctl(ep, EPOLL_CTL_ADD, server_fd[i], &e))
            die("epoll_ctl");
    }
    struct epoll_event ev[64];
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        int n = epoll_wait(ep, ev, 64, 100);
        for (int k = 0; k < n; k++) {
            int fd = server_fd[ev[k].data.u32];
            answer(fd, read(fd, buf, BUFFER_SIZE));
        }
    }
    close(ep);
}

/* Arms connection i's receive (or poll) in its mode. */
static void arm(struct io_uring *ring, int i, char *buf)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
    if (!sqe) {
        io_uring_submit(ring);
        sqe = io_uring_get_sqe(ring);
    }
    if (mode == ONESHOT) {
        io_uring_prep_recv(sqe, server_fd[i], buf, BUFFER_SIZE, 0);
    } else if (mode == MULTISHOT) {
        io_uring_prep_recv_multishot(sqe, server_fd[i], NULL, 0, 0);
        sqe->flags |= IOSQE_BUFFER_SELECT;
        sqe->buf_group = 0;
    } else {
        io_uring_prep_poll_multishot(sqe, server_fd[i], POLLIN);
    }
    io_uring_sqe_set_data64(sqe, (uint64_t)i);
}

static void serve_uring(char *buf)
{
    struct io_uring ring;
    struct io_uring_params p = { .flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
                                          IORING_SETUP_SUBMIT_ALL | IORING_SETUP_CQSIZE,
                                 .cq_entries = 16384 };
    if (io_uring_queue_init_params(4096, &ring, &p))
        die("io_uring_queue_init_params");
    struct io_uring_buf_ring *buffers = NULL;
    char *pool = NULL;
    if (mode == MULTISHOT) {
        buffers = mmap(NULL, BUFFERS * sizeof(struct io_uring_buf), PROT_READ | PROT_WRITE,
                       MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
        struct io_uring_buf_reg reg = { .ring_addr = (unsigned long)buffers, .ring_entries = BUFFERS };
        if (buffers == MAP_FAILED || io_uring_register_buf_ring(&ring, &reg, 0))
            die("provided-buffer ring");
        io_uring_buf_ring_init(buffers);
        if (!(pool = malloc((size_t)BUFFERS * BUFFER_SIZE)))
            die("malloc");
        for (int i = 0; i < BUFFERS; i++)
            io_uring_buf_ring_add(buffers, pool + (size_t)i * BUFFER_SIZE, BUFFER_SIZE, (unsigned short)i,
                                  io_uring_buf_ring_mask(BUFFERS), i);
        io_uring_buf_ring_advance(buffers, BUFFERS);
    }
    char (*per_conn)[BUFFER_SIZE] = malloc((size_t)nconn * BUFFER_SIZE);
    if (!per_conn)
        die("malloc");
    for (int i = 0; i < nconn; i++)
        arm(&ring, i, per_conn[i]);
    io_uring_submit(&ring);
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        struct __kernel_timespec timeout = { .tv_nsec = 100000000 };
        struct io_uring_cqe *cqe;
        io_uring_submit_and_wait_timeout(&ring, &cqe, 1, &timeout, NULL);
        unsigned head, n = 0;
        io_uring_for_each_cqe(&ring, head, cqe) {
            n++;
            int i = (int)cqe->user_data, fd = server_fd[i];
            bool rearm = !(cqe->flags & IORING_CQE_F_MORE);
            if (mode == ONESHOT) {
                if (cqe->res > 0)
                    answer(fd, cqe->res);
            } else if (mode == MULTISHOT) {
                if (cqe->res > 0) {
                    unsigned id = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
                    char *data = pool + (size_t)id * BUFFER_SIZE;
                    memcpy(per_conn[i], data, (size_t)cqe->res); /* as a read into the caller's buffer */
                    answer(fd, cqe->res);
                    io_uring_buf_ring_add(buffers, data, BUFFER_SIZE, (unsigned short)id,
                                          io_uring_buf_ring_mask(BUFFERS), 0);
                    io_uring_buf_ring_advance(buffers, 1);
                }
            } else {
                answer(fd, recv(fd, per_conn[i], BUFFER_SIZE, MSG_DONTWAIT));
            }
            if (rearm)
                arm(&ring, i, per_conn[i]);
        }
        io_uring_cq_advance(&ring, n);
    }
    io_uring_queue_exit(&ring);
    free(per_conn);
    free(pool);
}

static void *server(void *unused)
{
    (void)unused;
    static char buf[BUFFER_SIZE];
    struct rusage r0, r1;
    getrusage(RUSAGE_THREAD, &r0);
    double cpu0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    if (mode == EPOLL)
        serve_epoll(buf);
    else
        serve_uring(buf);
    double cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu0;
    getrusage(RUSAGE_THREAD, &r1);
    double user = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) + (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) * 1e-6;
    double sys = (double)(r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) + (double)(r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) * 1e-6;
    printf("%d connections, %d in flight: %ld requests, server CPU %.3f us a request (user %.3f, system %.3f)\n",
           nconn, in_flight, served, cpu / (double)served * 1e6, user / (double)served * 1e6,
           sys / (double)served * 1e6);
    printf("RESULT %.4f\n", cpu / (double)served * 1e6);
    return NULL;
}

static uint64_t next_random(uint64_t *x)
{
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

static void *client(void *unused)
{
    (void)unused;
    int ep = epoll_create1(0);
    for (int i = 0; i < nconn; i++) {
        struct epoll_event e = { .events = EPOLLIN, .data.u32 = (uint32_t)i };
        if (epoll_ctl(ep, EPOLL_CTL_ADD, client_fd[i], &e))
            die("epoll_ctl");
    }
    char request[REQUEST], replies[4096];
    memset(request, 'g', sizeof request);
    uint64_t x = 88172645463325252ull;
    for (int k = 0; k < in_flight; k++)
        if (send(client_fd[next_random(&x) % (uint64_t)nconn], request, REQUEST, 0) != REQUEST)
            die("send");
    double end = clock_s(CLOCK_MONOTONIC) + seconds;
    struct epoll_event ev[64];
    while (clock_s(CLOCK_MONOTONIC) < end) {
        int n = epoll_wait(ep, ev, 64, 100);
        for (int k = 0; k < n; k++) {
            ssize_t got = read(client_fd[ev[k].data.u32], replies, sizeof replies);
            for (ssize_t m = 0; m < got / REPLY; m++)
                if (send(client_fd[next_random(&x) % (uint64_t)nconn], request, REQUEST, 0) != REQUEST)
                    die("send");
        }
    }
    atomic_store(&stop, true);
    close(ep);
    return NULL;
}

int main(int argc, char **argv)
{
    static const char *names[] = { "oneshot", "multishot", "mpoll", "epoll" };
    int m = 0;
    while (argc > 1 && m < 4 && strcmp(argv[1], names[m]) != 0)
        m++;
    if (argc < 2 || m == 4) {
        fprintf(stderr, "usage: %s oneshot|multishot|mpoll|epoll [connections [seconds [in_flight]]]\n", argv[0]);
        return 2;
    }
    mode = (enum mode)m;
    nconn = argc > 2 ? atoi(argv[2]) : 4000;
    seconds = argc > 3 ? atof(argv[3]) : 4;
    in_flight = argc > 4 ? atoi(argv[4]) : 32;
    if (nconn < 1 || seconds <= 0 || in_flight < 1) {
        fprintf(stderr, "%s: connections, seconds and in_flight must be positive\n", argv[0]);
        return 2;
    }
    struct rlimit files = { (rlim_t)nconn * 2 + 64, (rlim_t)nconn * 2 + 64 };
    if (setrlimit(RLIMIT_NOFILE, &files))
        die("setrlimit (need 2 descriptors a connection)");
    int listener = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof addr;
    if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof addr) ||
        getsockname(listener, (struct sockaddr *)&addr, &len) || listen(listener, 4096))
        die("listen");
    server_fd = malloc((size_t)nconn * sizeof *server_fd);
    client_fd = malloc((size_t)nconn * sizeof *client_fd);
    if (!server_fd || !client_fd)
        die("malloc");
    for (int i = 0; i < nconn; i++) {
        client_fd[i] = socket(AF_INET, SOCK_STREAM, 0);
        if (client_fd[i] < 0 || connect(client_fd[i], (struct sockaddr *)&addr, sizeof addr))
            die("connect");
        if ((server_fd[i] = accept(listener, NULL, NULL)) < 0)
            die("accept");
        setsockopt(client_fd[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        setsockopt(server_fd[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    printf("%s: ", names[m]);
    pthread_t s, c;
    pthread_create(&s, NULL, server, NULL);
    pthread_create(&c, NULL, client, NULL);
    pthread_join(c, NULL);
    pthread_join(s, NULL);
    return 0;
}
