// A processor that finds one thread made ready by its ring while it has
// nothing else to run runs that thread itself, and wakes no idle
// processor for it (ready_hold_notify, runtime/src/ready_queue.h): the
// woken processor would only take the thread away. The main thread makes
// 2,000 round trips with a partner pthread through two pipes, reading with
// cfa_read, while a second processor idles. Checked from CFA_STATS: at
// least half of the completions' pushes were held, and fewer than a tenth
// of the round trips notified an idle processor (without the rule, nearly
// every one did: the idle processor is asleep when the answer comes).
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: env CFA_STATS=1 %timeout %t %stress run > %t.out 2> %t.err
// RUN: %timeout %t 1 verify %t.out %t.err | FileCheck %s
// CHECK: engine io_uring: round trips {{[0-9]+}}, at least half held, notifications under a tenth
#include "iotest.h"
#include "stats_read.h"
#include <pthread.h>
#include <unistd.h>

enum { ROUND_TRIPS = 2000 };

static int to_partner[2], from_partner[2];

/* Echoes each byte back; a plain kernel thread, so its writes push no
 * thread themselves: the pipe's completion does, on main's processor. */
static void *partner(void *arg) {
    (void)arg;
    char c;
    while (read(to_partner[0], &c, 1) == 1)
        CHECK_EQ(write(from_partner[1], &c, 1), 1);
    return NULL;
}

static void run(long reps) {
    struct extra_procs extra;
    procs_start(&extra, 2);
    CHECK_EQ(pipe(to_partner), 0);
    CHECK_EQ(pipe(from_partner), 0);
    pthread_t th;
    CHECK_EQ(cfa_kernel_thread_create(&th, NULL, partner, NULL), 0);
    long trips = 0;
    for (long r = 0; r < reps; r++) {
        for (int i = 0; i < ROUND_TRIPS; i++, trips++) {
            char c = (char)i, back = 0;
            CHECK_EQ(write(to_partner[1], &c, 1), 1);
            CHECK_EQ(cfa_read(from_partner[0], &back, 1), 1);
            CHECK_EQ(back, c);
        }
    }
    close(to_partner[1]);
    CHECK_EQ(cfa_kernel_thread_join(th, NULL), 0);
    procs_stop(&extra);
    printf("engine %s\nround trips %ld\n", cfa_io_engine(), trips);
}

static void verify(const char *out_path, const char *err_path) {
    char *out = stats_slurp(out_path), *err = stats_slurp(err_path);
    CHECK(strstr(out, "engine io_uring") != NULL, "not on io_uring: %s", out);
    long trips = stats_find(out, "round trips ");
    long held = stats_find(err, "wake-ups held "), notified = stats_find(err, "notifications ");
    CHECK(held >= trips / 2, "%ld of %ld completions' pushes held", held, trips);
    CHECK(notified < trips / 10, "%ld notifications for %ld round trips", notified, trips);
    printf("engine io_uring: round trips %ld, at least half held, notifications under a tenth\n", trips);
}

int main(int argc, char **argv) {
    CHECK(argc > 2, "usage: held_wakeup REPS run | held_wakeup 1 verify OUT ERR");
    if (!strcmp(argv[2], "run")) run(atol(argv[1]));
    else if (!strcmp(argv[2], "verify") && argc > 4) verify(argv[3], argv[4]);
    else CHECK(0, "unknown mode %s", argv[2]);
    return 0;
}
