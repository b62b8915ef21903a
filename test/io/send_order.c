// cfa_send and cfa_sendmsg on a TCP loopback connection: 1,000 one-byte
// sends and 1,000 one-byte sendmsgs, alternating, into a socket with room
// for all of them arrive once each, in order; then a sender that fills the
// socket (64 KiB buffers) and keeps going waits (on the ring, or the
// fallback's wait list) until a reader, started only once the sender has
// blocked, drains it, and every byte of 1 MiB arrives in order.
// On io_uring a send with room completes at once, as the system call with
// MSG_DONTWAIT, and only a send that finds the socket full waits on the
// ring (docs/io.md says why); the STATS line checks both: at least the
// 2,000 small sends at once, and SQEs submitted for the full socket.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: env CFA_STATS=1 %timeout %t %stress default 2> %t.stats | FileCheck %s
// RUN: FileCheck --check-prefix=STATS %s < %t.stats
// RUN: env CFA_IO=fallback %timeout %t %stress fallback | FileCheck %s
// CHECK: 2000 sends with room: every byte once, in order
// CHECK-NEXT: 1048576 bytes through a full socket: every byte once, in order
// STATS: cfa: io: 1 processor(s) on io_uring, 0 on the fallback; io_uring: {{[1-9][0-9]*}} submitted, {{.*}}, {{[2-9][0-9][0-9][0-9]+}} sends at once;
#include "iotest.h"
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

enum { SMALL = 1000, BIG = 1 << 20 };

static int sv[2];  /* the two ends of a loopback TCP connection */

static void connect_pair(void) {
    int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(l >= 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof a;
    /* Small fixed buffers (no autotuning): 1 MiB cannot fit in flight, so
     * the big sender surely fills the connection and waits. */
    int room = 64 * 1024;
    CHECK(setsockopt(l, SOL_SOCKET, SO_RCVBUF, &room, sizeof room) == 0);
    CHECK(bind(l, (struct sockaddr *)&a, sizeof a) == 0 && listen(l, 1) == 0);
    CHECK(getsockname(l, (struct sockaddr *)&a, &len) == 0);
    sv[0] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(sv[0] >= 0 && setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &room, sizeof room) == 0);
    CHECK(connect(sv[0], (struct sockaddr *)&a, sizeof a) == 0, "connect: %s", strerror(errno));
    sv[1] = accept4(l, NULL, NULL, SOCK_CLOEXEC);
    CHECK(sv[1] >= 0, "accept: %s", strerror(errno));
    close(l);
}

static void small_sends(void *arg) {
    (void)arg;
    for (int i = 0; i < 2 * SMALL; i++) {
        unsigned char b = (unsigned char)i;
        ssize_t w;
        if (i % 2) {
            struct iovec iov = { &b, 1 };
            struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
            w = cfa_sendmsg(sv[0], &msg, MSG_NOSIGNAL);
        } else {
            w = cfa_send(sv[0], &b, 1, MSG_NOSIGNAL);
        }
        CHECK_EQ(w, 1);
    }
}

static unsigned char big_out[BIG], big_in[BIG];

static void big_sender(void *arg) {
    (void)arg;
    for (size_t off = 0; off < BIG;) {
        ssize_t w = cfa_send(sv[0], big_out + off, BIG - off, MSG_NOSIGNAL);
        CHECK(w > 0, "cfa_send: %zd %s", w, strerror(errno));
        off += (size_t)w;
    }
}

static void big_receiver(void *arg) {
    (void)arg;
    for (size_t off = 0; off < BIG;) {
        ssize_t r = cfa_recv(sv[1], big_in + off, BIG - off, 0);
        CHECK(r > 0, "cfa_recv: %zd %s", r, strerror(errno));
        off += (size_t)r;
    }
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    check_engine(argc, argv);
    for (size_t i = 0; i < BIG; i++)
        big_out[i] = (unsigned char)(i * 2654435761u >> 13);
    for (long rep = 0; rep < reps; rep++) {
        connect_pair();
        struct task t;
        task_start(&t, small_sends, NULL, "Sender");
        cfa_thread_join(&t.thread);
        unsigned char in[2 * SMALL];
        size_t got = 0;
        while (got < sizeof in) {
            ssize_t r = recv(sv[1], in + got, sizeof in - got, 0);
            CHECK(r > 0, "recv: %s", strerror(errno));
            got += (size_t)r;
        }
        for (int i = 0; i < 2 * SMALL; i++)
            CHECK_EQ(in[i], (unsigned char)i);
        if (rep == 0)
            printf("%d sends with room: every byte once, in order\n", 2 * SMALL);

        // The sender starts first and fills the socket; the receiver
        // starts only once the sender has blocked on the full socket.
        struct task s, r;
        task_start(&s, big_sender, NULL, "BigSender");
        wait_until_blocked(&s.thread);
        task_start(&r, big_receiver, NULL, "BigReceiver");
        cfa_thread_join(&s.thread);
        cfa_thread_join(&r.thread);
        CHECK(memcmp(big_in, big_out, BIG) == 0, "bytes through a full socket differ");
        if (rep == 0)
            printf("%d bytes through a full socket: every byte once, in order\n", BIG);
        close(sv[0]);
        close(sv[1]);
    }
    return 0;
}
