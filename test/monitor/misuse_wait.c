// wait, signal and waitfor without holding the monitor are run-time errors
// that name the thread, never a hang or a crash. (A thread's own main holds
// the thread's monitor, so the wait case runs in the program's main thread,
// which holds none.)
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: not --crash %timeout %t wait 2>&1 | FileCheck %s --check-prefix=WAIT
// RUN: not --crash %timeout %t signal 2>&1 | FileCheck %s --check-prefix=SIGNAL
// RUN: not --crash %timeout %t waitfor 2>&1 | FileCheck %s --check-prefix=WAITFOR
// WAIT: cfa: error: wait on a condition without holding a monitor
// WAIT-NEXT: cfa: in the program's main thread
// SIGNAL: cfa: error: signal without holding every monitor
// SIGNAL-NEXT: cfa: in thread "culprit" (type Culprit
// WAITFOR: cfa: error: waitfor on a monitor the thread does not hold
// WAITFOR-NEXT: cfa: in thread "culprit" (type Culprit
#include "mutex_call.h"

struct mon { struct cfa_condition c; struct cfa_monitor mon; };
static struct mon m;
static const char *what;
static void poke(struct mon *x) { MUTEX_CALL(poke, &x->mon); }

static void waiter_call(struct mon *x) { MUTEX_CALL(waiter_call, &x->mon); cfa_wait(&x->c, 0); }
struct culprit { struct cfa_thread thread; };
static void culprit_main(void *o) {
    (void)o;
    if (!strcmp(what, "signal")) {
        cfa_signal(&m.c);          /* someone waits, but we do not hold m */
    } else {
        struct cfa_waitfor_clause c[] = { WAITFOR_CLAUSE(poke, &m.mon) };
        cfa_waitfor(c, 1, -1, false);
    }
}
struct sleeper { struct cfa_thread thread; };
static void sleeper_main(void *o) { (void)o; waiter_call(&m); }

int main(int argc, char **argv) {
    what = argc > 1 ? argv[1] : "wait";
    if (!strcmp(what, "wait"))
        cfa_wait(&m.c, 0);
    struct sleeper s = {0};
    if (!strcmp(what, "signal")) {
        cfa_thread_start(&s.thread, sleeper_main, &s, "Sleeper", 0);
        while (cfa_condition_empty(&m.c)) cfa_yield();
    }
    struct culprit c = {0};
    cfa_thread_set_name(&c.thread, "culprit");
    cfa_thread_start(&c.thread, culprit_main, &c, "Culprit", 0);
    cfa_thread_join(&c.thread);
    printf("unreachable\n");
    return 0;
}
