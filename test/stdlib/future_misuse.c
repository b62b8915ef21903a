// Future misuse is fatal and names the thread: a second fulfil (the value
// is single-assignment), and a reset while threads are blocked on the
// future (they would never be woken).
//
// RUN: %std-cc %s -o %t %std-link
// RUN: not --crash %timeout %t fulfil_twice 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not --crash %timeout %t reset_waited 2>&1 | FileCheck %s --check-prefix=RESET
// RUN: %timeout %t control | FileCheck %s --check-prefix=CONTROL
// TWICE: cfa: error: fulfil of a future that is already fulfilled
// TWICE-NEXT: cfa: in thread "second fulfiller"
// TWICE-NOT: unreachable
// RESET: cfa: error: reset of a future that threads are blocked on
// CONTROL: fulfil, reset, fulfil: 2
#include "tasks.h"

#include <cfa/future.hfa>

future_type(Answer, int);
static Answer f;

static void fulfil_again(void *unused) { fulfil(&f, 2); }
static void getter(void *unused) { get(&f); }

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    fulfil(&f, 1);
    if (strcmp(mode, "fulfil_twice") == 0) {
        task_join(task_spawn(fulfil_again, NULL, "second fulfiller"));
    } else if (strcmp(mode, "reset_waited") == 0) {
        reset(&f);
        struct task *t = task_spawn(getter, NULL, "getter");
        YIELD_UNTIL(atomic_load(&t->thread.state) == CFA_THREAD_BLOCKED);
        reset(&f);
    } else if (strcmp(mode, "control") == 0) {
        reset(&f);
        fulfil(&f, 2);
        printf("fulfil, reset, fulfil: %d\n", get(&f));
        return 0;
    }
    puts("unreachable");
    return 0;
}
