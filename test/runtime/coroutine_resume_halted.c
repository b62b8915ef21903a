// Resuming a coroutine whose main has returned stops the program with a
// message naming the coroutine (its type name, and its name if set), on
// stderr, and a failure status; nothing after the bad resume runs.
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: not --crash %timeout %t > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %timeout %t 1 control | FileCheck %s --check-prefix=CONTROL
//
// OUT: first resume done
// OUT-NOT: unreachable
// ERR: {{[Rr]esum.*Once|Once.*[Rr]esum}}
// ERR-NOT: unreachable
// CONTROL: control: resumed once, not again
#include "check.h"

struct once {
    int                  x;
    struct cfa_coroutine cor;
};

static void once_main(void *object) {
    struct once *o = object;
    o->x = 1;
}

int main(int argc, char **argv) {
    int control = argc > 2 && strcmp(argv[2], "control") == 0;
    struct once c;
    memset(&c, 0, sizeof c);
    cfa_coroutine_setup(&c.cor, once_main, &c, "Once");
    cfa_coroutine_resume(&c.cor);
    CHECK_EQ(c.x, 1);
    CHECK_EQ(c.cor.state, CFA_COROUTINE_HALTED);
    printf("first resume done\n");
    fflush(stdout);
    if (control) {              /* the same program, without the bad resume */
        printf("control: resumed once, not again\n");
        return 0;
    }
    cfa_coroutine_resume(&c.cor);
    printf("unreachable\n");
    fprintf(stderr, "unreachable\n");
    return 0;
}
