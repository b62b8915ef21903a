// Channel misuse stops the program with a message naming the error and the
// thread, instead of hanging or losing data: send on a closed channel
// (directly, while blocked in a full channel when it is closed, and in a
// waituntil clause), closing twice, the value-returning recv on a closed and
// drained channel, use before init, destroy with a blocked thread. The
// forms that have an error return report it instead (control).
//
// RUN: %std-cc %s -o %t %std-link
// RUN: not --crash %timeout %t send_closed 2>&1 | FileCheck %s --check-prefix=SEND
// RUN: not --crash %timeout %t blocked_sender 2>&1 | FileCheck %s --check-prefix=BLOCKED
// RUN: not --crash %timeout %t select_send 2>&1 | FileCheck %s --check-prefix=SELECT
// RUN: not --crash %timeout %t close_twice 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not --crash %timeout %t recv_value 2>&1 | FileCheck %s --check-prefix=RECV
// RUN: not --crash %timeout %t no_init 2>&1 | FileCheck %s --check-prefix=INIT
// RUN: not --crash %timeout %t destroy_busy 2>&1 | FileCheck %s --check-prefix=DESTROY
// RUN: %timeout %t control 2>&1 | FileCheck %s --check-prefix=CONTROL
//
// SEND: cfa: error: send on a closed channel
// SEND-NEXT: cfa: in {{.*}}main
// SEND-NOT: unreachable
// BLOCKED: cfa: error: send on a closed channel
// BLOCKED-NEXT: cfa: in {{.*}}producer 7
// BLOCKED-NOT: unreachable
// SELECT: cfa: error: send on a closed channel (waituntil clause 1)
// TWICE: cfa: error: close of a closed channel
// RECV: cfa: error: recv on a closed and drained channel
// INIT: cfa: error: channel used before init
// DESTROY: cfa: error: channel destroyed while threads are blocked on it
// CONTROL: try_send 2, try_recv 2, recv false, waituntil -2: errors returned
#include "tasks.h"

#include <cfa/channel.hfa>

channel_type(Ints, int);

static Ints c;

static void producer(void *unused) {
    for (int i = 0;; i++) send(&c, i);        /* blocks once the 2 slots are full */
}
static void receiver(void *unused) {
    int v;
    recv(&c, &v);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "no_init") == 0) {
        send(&c, 1);
        puts("unreachable");
    }
    init(&c, 2);
    if (strcmp(mode, "send_closed") == 0) {
        close(&c);
        send(&c, 1);
    } else if (strcmp(mode, "blocked_sender") == 0) {
        struct task *t = task_spawn(producer, NULL, "producer 7");
        YIELD_UNTIL(atomic_load(&t->thread.state) == CFA_THREAD_BLOCKED);
        close(&c);
        task_join(t);
    } else if (strcmp(mode, "select_send") == 0) {
        Ints open;
        init(&open, 0);
        close(&c);
        int v = 1, w;
        waituntil(on_recv(&open, &w), on_send(&c, &v));
    } else if (strcmp(mode, "close_twice") == 0) {
        close(&c);
        close(&c);
    } else if (strcmp(mode, "recv_value") == 0) {
        send(&c, 1);
        close(&c);
        printf("drained %d\n", recv(&c));
        printf("%d\n", recv(&c));
    } else if (strcmp(mode, "destroy_busy") == 0) {
        struct task *t = task_spawn(receiver, NULL, "receiver");
        YIELD_UNTIL(atomic_load(&t->thread.state) == CFA_THREAD_BLOCKED);
        destroy(&c);
    } else if (strcmp(mode, "control") == 0) {
        close(&c);
        int v = 0;
        int s = try_send(&c, 1), r = try_recv(&c, &v);
        bool got = recv(&c, &v);
        int w = waituntil(on_recv(&c, &v));
        printf("try_send %d, try_recv %d, recv %s, waituntil %d: errors returned\n", s, r,
               got ? "true" : "false", w);
        return 0;
    }
    puts("unreachable");
    return 0;
}
