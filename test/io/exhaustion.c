// More requests in flight than the ring has entries: with CFA_IO_ENTRIES=4
// (4 SQEs, 16 CQEs) and with the default ring, and on the fallback:
//  - 1,000 threads each blocked reading its own pipe, while 200 threads
//    sleep 1-5 ms (their wake-ups cannot always be armed on a full ring),
//    then each pipe gets its own value;
//  - one thread with 5,000 one-byte async_read futures in flight on one
//    pipe, then 5,000 bytes written: every future gets one byte, and the
//    bytes read are exactly the bytes written;
//  - 3,000 one-byte async_write futures in flight into one pipe whose
//    reader starts late.
// Nothing is dropped; the tiny ring's run must have used the backlog.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: env CFA_IO_ENTRIES=4 CFA_STATS=1 %timeout %t %stress default 2> %t.stats | FileCheck %s
// RUN: FileCheck --check-prefix=STATS %s < %t.stats
// RUN: %timeout %t %stress default | FileCheck %s
// RUN: env CFA_IO=fallback %timeout %t %stress fallback | FileCheck %s
// CHECK: 1000 blocked readers and 200 sleepers: all values delivered
// CHECK-NEXT: 5000 async reads in flight on one pipe: every byte once
// CHECK-NEXT: 3000 async writes in flight into one pipe: every byte once
// STATS: cfa: io: 1 processor(s) on io_uring, {{.*}}, {{[1-9][0-9]*}} backlogged
#include "iotest.h"
#include <unistd.h>

enum { READERS = 1000, SLEEPERS = 200, READS = 5000, WRITES = 3000 };

struct reader { int fd[2]; int value; struct task t; };
static void reader_main(void *arg) {
    struct reader *r = arg;
    int v = -1;
    CHECK_EQ(cfa_read(r->fd[0], &v, sizeof v), sizeof v);
    r->value = v;
}
static void sleeper_main(void *arg) {
    int64_t ns = (int64_t)(intptr_t)arg, t0 = cfa_clock_ns();
    cfa_sleep_ns(ns);
    CHECK(cfa_clock_ns() - t0 >= ns);
}

static io_future futures[READS > WRITES ? READS : WRITES];
static unsigned char got[READS];

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    check_engine(argc, argv);
    static struct reader readers[READERS];
    static struct task sleepers[SLEEPERS];
    for (long rep = 0; rep < reps; rep++) {
        for (int i = 0; i < READERS; i++) {
            CHECK(pipe(readers[i].fd) == 0, "pipe: %s", strerror(errno));
            readers[i].value = -1;
            task_start(&readers[i].t, reader_main, &readers[i], "Reader");
        }
        for (int i = 0; i < 10; i++) cfa_yield(); /* let them block */
        for (int i = 0; i < SLEEPERS; i++)
            task_start(&sleepers[i], sleeper_main, (void *)(intptr_t)((1 + i % 5) * 1000000), "Sleeper");
        for (int i = 0; i < SLEEPERS; i++) cfa_thread_join(&sleepers[i].thread);
        for (int i = 0; i < READERS; i++) {
            int v = i * 3 + 7;
            CHECK_EQ(cfa_write(readers[i].fd[1], &v, sizeof v), sizeof v);
        }
        for (int i = 0; i < READERS; i++) {
            cfa_thread_join(&readers[i].t.thread);
            CHECK_EQ(readers[i].value, i * 3 + 7);
            close(readers[i].fd[0]);
            close(readers[i].fd[1]);
        }
        if (rep == 0) printf("%d blocked readers and %d sleepers: all values delivered\n", READERS, SLEEPERS);

        /* many futures, one thread */
        int p[2];
        CHECK(pipe(p) == 0);
        memset(got, 0, sizeof got);
        for (int i = 0; i < READS; i++) async_read(&futures[i], p[0], &got[i], 1);
        unsigned char out[READS];
        long histogram[256] = {0};
        for (int i = 0; i < READS; i++) {
            out[i] = (unsigned char)(1 + i % 251);
            histogram[out[i]]++;
        }
        write_all(p[1], out, sizeof out);
        for (int i = 0; i < READS; i++) {
            CHECK_EQ(cfa_io_wait(&futures[i]), 1);
            CHECK(got[i] != 0);
            histogram[got[i]]--;
        }
        for (int b = 0; b < 256; b++) CHECK_EQ(histogram[b], 0);
        if (rep == 0) printf("%d async reads in flight on one pipe: every byte once\n", READS);

        /* many writes in flight */
        static unsigned char wbytes[WRITES];
        for (int i = 0; i < WRITES; i++) {
            wbytes[i] = (unsigned char)(i % 256);
            histogram[wbytes[i]]++;
            async_write(&futures[i], p[1], &wbytes[i], 1);
        }
        for (int i = 0; i < 10; i++) cfa_yield();
        static unsigned char back[WRITES];
        for (size_t n = 0; n < WRITES;) {
            ssize_t r = cfa_read(p[0], back + n, WRITES - n);
            CHECK(r > 0);
            n += (size_t)r;
        }
        for (int i = 0; i < WRITES; i++) {
            CHECK_EQ(cfa_io_wait(&futures[i]), 1);
            histogram[back[i]]--;
        }
        for (int b = 0; b < 256; b++) CHECK_EQ(histogram[b], 0);
        if (rep == 0) printf("%d async writes in flight into one pipe: every byte once\n", WRITES);
        close(p[0]);
        close(p[1]);
    }
    return 0;
}
