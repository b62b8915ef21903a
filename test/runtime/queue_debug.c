// The debug build's checks of cfa/internal/queue.h: pushing an element
// that is already queued (at the tail, or in the middle: its next is set),
// pushing it in front while it is queued, and a queue whose head and tail
// disagree, each stop the program with the invariant's name.
//
// REQUIRES: debug
// RUN: %cc -DCFA_DEBUG %s -o %t %cfa-link
// RUN: not --crash %t tail 2>&1 | FileCheck %s --check-prefix=ONCE
// RUN: not --crash %t middle 2>&1 | FileCheck %s --check-prefix=ONCE
// RUN: not --crash %t front 2>&1 | FileCheck %s --check-prefix=ONCE
// RUN: not --crash %t torn 2>&1 | FileCheck %s --check-prefix=TORN
// RUN: %t none 2>&1 | FileCheck %s --check-prefix=NONE
//
// ONCE: cfa-lite: invariant 'queue: an element is in at most one queue, once' broken in thread '{{[a-z ]+}}' (0x{{[0-9a-f]+}}) at queue.h:{{[0-9]+}}
// TORN: cfa-lite: invariant 'queue: a head exactly when a tail, and the tail last' broken in thread '{{[a-z ]+}}' (0x{{[0-9a-f]+}}) at queue.h:{{[0-9]+}}
// NONE: every check held
#include <cfa/internal/queue.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "none";
    struct cfa_qlink a = {0}, b = {0}, c = {0};
    struct cfa_queue q = {0};
    cfa_queue_push_back(&q, &a);
    cfa_queue_push_back(&q, &b);
    cfa_queue_push_back(&q, &c);
    if (!strcmp(what, "tail"))
        cfa_queue_push_back(&q, &c);
    else if (!strcmp(what, "middle"))
        cfa_queue_push_back(&q, &b);
    else if (!strcmp(what, "front"))
        cfa_queue_push_front(&q, &a);
    else if (!strcmp(what, "torn")) {
        q.tail = NULL;
        cfa_queue_pop_front(&q);
    }
    while (cfa_queue_pop_front(&q))
        ;
    cfa_queue_push_front(&q, &b); /* every element popped may be queued again */
    cfa_queue_push_back(&q, &a);
    printf("every check held\n");
    return 0;
}
