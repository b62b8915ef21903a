// The common path of a request-response server, on both engines:
// 1. Fairness: sends that always complete at once (a UDP socket never
//    lacks room) never park, so without preemption (CFA_PREEMPTION_MS=0)
//    nothing but the runtime's budget makes their thread leave its one
//    processor. While the main thread makes 10,000 of them, another thread
//    that counts and yields must run at least 10,000/64 times (the budget
//    is a yield every IO_POLL_INTERVAL = 32 calls ended without a park).
// 2. Cost: two threads ping-pong 1,000 round trips over a socket pair with
//    cfa_send and cfa_recv_until; every byte arrives once, in order. On
//    io_uring the sends complete at once (no SQE) and a timed recv is one
//    SQE (no linked timeout): the STATS line bounds the SQEs submitted to
//    2,000-2,999, where a send and a timed recv on the ring would be 4,000
//    or more.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: env CFA_PREEMPTION_MS=0 CFA_STATS=1 %timeout %t 1 default 2> %t.stats | FileCheck %s
// RUN: FileCheck --check-prefix=STATS %s < %t.stats
// RUN: env CFA_PREEMPTION_MS=0 CFA_IO=fallback %timeout %t %stress fallback | FileCheck %s
// RUN: env CFA_PREEMPTION_MS=0 %timeout %t %stress default | FileCheck %s
// CHECK: at once: 10000 sends, the other thread ran {{[0-9]+}} times meanwhile (at least 156)
// CHECK-NEXT: ping-pong: 1000 round trips with timed recvs, every byte once, in order
// STATS: cfa: io: 1 processor(s) on io_uring, 0 on the fallback; io_uring: {{2[0-9][0-9][0-9]}} submitted,
#include "iotest.h"
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

enum { AT_ONCE = 10000, MIN_TURNS = AT_ONCE / 64, ROUNDS = 1000 };
static const int64_t LONG_DEADLINE = 60LL * 1000000000;

static _Atomic long turns;
static _Atomic int sending_done;

static void counter(void *arg) {
    (void)arg;
    while (!atomic_load(&sending_done)) {
        atomic_fetch_add(&turns, 1);
        cfa_yield();
    }
}

static void fairness(void) {
    int rx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), tx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    CHECK(rx >= 0 && tx >= 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof a;
    CHECK(bind(rx, (struct sockaddr *)&a, sizeof a) == 0 && getsockname(rx, (struct sockaddr *)&a, &len) == 0);
    CHECK(connect(tx, (struct sockaddr *)&a, sizeof a) == 0);
    struct task t;
    task_start(&t, counter, NULL, "counter");
    while (atomic_load(&turns) == 0)
        cfa_yield();
    long before = atomic_load(&turns);
    for (int i = 0; i < AT_ONCE; i++) {
        char b = (char)i;
        CHECK_EQ(cfa_send(tx, &b, 1, 0), 1); // datagrams past rx's buffer are dropped: never full
    }
    long ran = atomic_load(&turns) - before;
    atomic_store(&sending_done, 1);
    cfa_thread_join(&t.thread);
    CHECK(ran >= MIN_TURNS, "the other thread ran %ld times during %d sends completed at once", ran, AT_ONCE);
    printf("at once: %d sends, the other thread ran %ld times meanwhile (at least %d)\n", AT_ONCE, ran, MIN_TURNS);
    close(rx);
    close(tx);
}

static int sv[2];

// Receives byte i, then sends it back: ROUNDS times.
static void echo(void *arg) {
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        unsigned char b;
        CHECK_EQ(cfa_recv_until(sv[1], &b, 1, 0, cfa_clock_ns() + LONG_DEADLINE), 1);
        CHECK_EQ(b, (unsigned char)i);
        CHECK_EQ(cfa_send(sv[1], &b, 1, MSG_NOSIGNAL), 1);
    }
}

static void ping_pong(void) {
    CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
    struct task t;
    task_start(&t, echo, NULL, "echo");
    for (int i = 0; i < ROUNDS; i++) {
        unsigned char b = (unsigned char)i, back;
        CHECK_EQ(cfa_send(sv[0], &b, 1, MSG_NOSIGNAL), 1);
        CHECK_EQ(cfa_recv_until(sv[0], &back, 1, 0, cfa_clock_ns() + LONG_DEADLINE), 1);
        CHECK_EQ(back, b);
    }
    cfa_thread_join(&t.thread);
    printf("ping-pong: %d round trips with timed recvs, every byte once, in order\n", ROUNDS);
    close(sv[0]);
    close(sv[1]);
}

int main(int argc, char **argv) {
    int repeats = argc > 1 ? atoi(argv[1]) : 1;
    check_engine(argc, argv);
    for (int r = 0; r < repeats; r++) {
        atomic_store(&turns, 0);
        atomic_store(&sending_done, 0);
        fairness();
        ping_pong();
    }
    return 0;
}
