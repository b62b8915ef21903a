// A TCP echo server on loopback (127.0.0.1, ephemeral port) and 100
// client threads, each making 1,000 round trips of 1 to 512 bytes, all on
// one processor; every byte is checked. The server accepts with
// cfa_accept and echoes with cfa_recv/cfa_send; clients connect with
// cfa_connect and alternate send/recv with sendmsg/recvmsg and
// write/read, so each call meets the sockets' short transfers.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress default | FileCheck %s
// RUN: env CFA_IO=fallback %timeout %t %stress fallback | FileCheck %s
// CHECK: echo: 100 clients x 1000 round trips, 25{{[0-9]+}} bytes each way, all checked
#include "iotest.h"
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <unistd.h>

enum { CLIENTS = 100, ROUNDS = 1000, MAX_MSG = 512 };

static int listener;
static struct sockaddr_in server_addr;
static _Atomic long echoed;       /* bytes the server sent back */
static _Atomic long verified;     /* bytes the clients checked */

static void echo_connection(void *arg) {
    int fd = (int)(intptr_t)arg;
    char buf[4096];
    for (;;) {
        ssize_t n = cfa_recv(fd, buf, sizeof buf, 0);
        CHECK(n >= 0, "server recv: %s", strerror(errno));
        if (n == 0) break;
        for (ssize_t off = 0; off < n;) {
            ssize_t w = cfa_send(fd, buf + off, (size_t)(n - off), MSG_NOSIGNAL);
            CHECK(w > 0, "server send: %s", strerror(errno));
            off += w;
        }
        atomic_fetch_add(&echoed, n);
    }
    CHECK_EQ(cfa_close(fd), 0);
}

static struct task server_tasks[CLIENTS];
static void acceptor(void *arg) {
    (void)arg;
    for (int i = 0; i < CLIENTS; i++) {
        struct sockaddr_in peer;
        socklen_t len = sizeof peer;
        int fd = cfa_accept(listener, (struct sockaddr *)&peer, &len);
        CHECK(fd >= 0, "accept: %s", strerror(errno));
        CHECK_EQ(len, sizeof peer);
        CHECK(peer.sin_addr.s_addr == htonl(INADDR_LOOPBACK));
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        task_start(&server_tasks[i], echo_connection, (void *)(intptr_t)fd, "Echo");
    }
}

static void fill(unsigned char *m, size_t n, int id, int round) {
    uint32_t x = (uint32_t)(id * 7919 + round * 104729 + 1);
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        m[i] = (unsigned char)x;
    }
}

static void client(void *arg) {
    int id = (int)(intptr_t)arg;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(fd >= 0);
    CHECK(cfa_connect(fd, (struct sockaddr *)&server_addr, sizeof server_addr) == 0, "connect: %s",
          strerror(errno));
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    unsigned char out[MAX_MSG], in[MAX_MSG];
    for (int r = 0; r < ROUNDS; r++) {
        size_t n = 1 + (size_t)(id * 31 + r * 7) % MAX_MSG;
        fill(out, n, id, r);
        for (size_t off = 0; off < n;) {
            ssize_t w;
            if (r % 3 == 1) {
                struct iovec iov = { out + off, n - off };
                struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
                w = cfa_sendmsg(fd, &msg, MSG_NOSIGNAL);
            } else if (r % 3 == 2) {
                w = cfa_write(fd, out + off, n - off);
            } else {
                w = cfa_send(fd, out + off, n - off, MSG_NOSIGNAL);
            }
            CHECK(w > 0, "client send: %s", strerror(errno));
            off += (size_t)w;
        }
        memset(in, 0, n);
        for (size_t off = 0; off < n;) {
            ssize_t got;
            if (r % 3 == 1) {
                struct iovec iov = { in + off, n - off };
                struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
                got = cfa_recvmsg(fd, &msg, 0);
            } else if (r % 3 == 2) {
                got = cfa_read(fd, in + off, n - off);
            } else {
                got = cfa_recv(fd, in + off, n - off, 0);
            }
            CHECK(got > 0, "client recv: %zd %s", got, strerror(errno));
            off += (size_t)got;
        }
        CHECK(memcmp(in, out, n) == 0, "client %d round %d: echo differs", id, r);
        atomic_fetch_add(&verified, (long)n);
    }
    CHECK_EQ(cfa_close(fd), 0);
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    check_engine(argc, argv);
    for (long rep = 0; rep < reps; rep++) {
        atomic_store(&echoed, 0);
        atomic_store(&verified, 0);
        listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        CHECK(listener >= 0);
        int one = 1;
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        CHECK(bind(listener, (struct sockaddr *)&a, sizeof a) == 0, "bind: %s", strerror(errno));
        CHECK(listen(listener, CLIENTS) == 0);
        socklen_t len = sizeof server_addr;
        CHECK(getsockname(listener, (struct sockaddr *)&server_addr, &len) == 0);

        struct task acc;
        task_start(&acc, acceptor, NULL, "Acceptor");
        static struct task clients[CLIENTS];
        for (int i = 0; i < CLIENTS; i++) task_start(&clients[i], client, (void *)(intptr_t)i, "Client");
        for (int i = 0; i < CLIENTS; i++) cfa_thread_join(&clients[i].thread);
        cfa_thread_join(&acc.thread);
        for (int i = 0; i < CLIENTS; i++) cfa_thread_join(&server_tasks[i].thread);
        CHECK_EQ(cfa_close(listener), 0);

        long expect = 0;
        for (int id = 0; id < CLIENTS; id++)
            for (int r = 0; r < ROUNDS; r++) expect += 1 + (id * 31 + r * 7) % MAX_MSG;
        CHECK_EQ(atomic_load(&verified), expect);
        CHECK_EQ(atomic_load(&echoed), expect);
        if (rep == 0)
            printf("echo: %d clients x %d round trips, %ld bytes each way, all checked\n", CLIENTS, ROUNDS,
                   expect);
    }
    return 0;
}
