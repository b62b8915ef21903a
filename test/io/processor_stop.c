// A processor stops while requests submitted on its ring are in flight: a
// thread blocked in cfa_read, a future nobody waits on yet, and a thread
// blocked in cfa_recv on a socket, all on cluster C's only processor P1.
// P2 joins C, P1 stops: the ring's requests are cancelled and started
// again elsewhere, so none is lost and none runs twice. Then the data
// comes and every request completes with it. A sleeper on C meanwhile
// wakes on time too.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress default | FileCheck %s
// RUN: env CFA_IO=fallback %timeout %t %stress fallback | FileCheck %s
// CHECK: P1 stopped with 3 requests in flight on its ring
// CHECK-NEXT: after P1 left: read 4 bytes, future 3 bytes, recv 5 bytes, sleeper on time
#include "iotest.h"
#include <unistd.h>

static struct cfa_cluster C = { .name = "C" };
static int pa[2], pb[2], sk[2];
static _Atomic int blocked;
static char fut_buf[8], read_buf[8], recv_buf[8];
static ssize_t fut_got, read_got, recv_got;
static int64_t slept;

static void reader(void *arg) {
    (void)arg;
    cfa_migrate(&C);
    io_future f;
    async_read(&f, pa[0], fut_buf, sizeof fut_buf);      /* nobody waits yet */
    atomic_fetch_add(&blocked, 1);
    read_got = cfa_read(pb[0], read_buf, sizeof read_buf);
    fut_got = cfa_io_wait(&f);
}
static void receiver(void *arg) {
    (void)arg;
    cfa_migrate(&C);
    atomic_fetch_add(&blocked, 1);
    recv_got = cfa_recv(sk[0], recv_buf, sizeof recv_buf, 0);
}
static void sleeper(void *arg) {
    (void)arg;
    cfa_migrate(&C);
    int64_t t0 = cfa_clock_ns();
    cfa_sleep_ns(60 * 1000000);
    slept = cfa_clock_ns() - t0;
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    check_engine(argc, argv);
    for (long rep = 0; rep < reps; rep++) {
        cfa_cluster_init(&C);
        struct cfa_processor p1 = { .cluster = &C, .name = "P1" }, p2 = { .cluster = &C, .name = "P2" };
        cfa_processor_start(&p1);
        CHECK(pipe(pa) == 0 && pipe(pb) == 0);
        CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sk) == 0);
        atomic_store(&blocked, 0);
        struct task r, s, z;
        task_start(&r, reader, NULL, "Reader");
        task_start(&s, receiver, NULL, "Receiver");
        task_start(&z, sleeper, NULL, "Sleeper");
        while (atomic_load(&blocked) < 2) cfa_yield();
        wait_until_blocked(&r.thread);   /* parked: their requests are on P1's ring */
        wait_until_blocked(&s.thread);
        wait_until_blocked(&z.thread);
        cfa_processor_start(&p2);
        cfa_processor_stop(&p1);
        if (rep == 0) printf("P1 stopped with 3 requests in flight on its ring\n");
        cfa_sleep_ns(5 * 1000000);
        CHECK_EQ(cfa_write(pb[1], "read", 4), 4);
        CHECK_EQ(cfa_write(pa[1], "fut", 3), 3);
        CHECK_EQ(cfa_send(sk[1], "recv!", 5, 0), 5);
        cfa_thread_join(&r.thread);
        cfa_thread_join(&s.thread);
        cfa_thread_join(&z.thread);
        CHECK_EQ(read_got, 4);
        CHECK(memcmp(read_buf, "read", 4) == 0);
        CHECK_EQ(fut_got, 3);
        CHECK(memcmp(fut_buf, "fut", 3) == 0);
        CHECK_EQ(recv_got, 5);
        CHECK(memcmp(recv_buf, "recv!", 5) == 0);
        CHECK(slept >= 60 * 1000000);
        /* Nothing ran twice: the pipes and the socket are empty now. */
        char extra;
        CHECK_EQ(cfa_recv(sk[0], &extra, 1, MSG_DONTWAIT), -1);
        CHECK_EQ(errno, EAGAIN);
        CHECK_EQ(cfa_write(pa[1], "Z", 1), 1);
        CHECK_EQ(cfa_read(pa[0], &extra, 1), 1);
        CHECK_EQ(extra, 'Z');
        if (rep == 0) printf("after P1 left: read %zd bytes, future %zd bytes, recv %zd bytes, sleeper on time\n",
                             read_got, fut_got, recv_got);
        cfa_processor_stop(&p2);
        cfa_cluster_destroy(&C);
        for (int i = 0; i < 2; i++) { close(pa[i]); close(pb[i]); close(sk[i]); }
    }
    return 0;
}
