// The intrusive FIFO of cfa/internal/queue.h, which the runtime's and the
// standard library's waiting lists share: FIFO order, push_front, removal
// from the head, the middle and the tail (and of an element not queued),
// take_all, splice_back, iteration, and an empty queue after draining. (Its debug
// build's checks: queue_debug.c.)
//
// RUN: %cc %s -o %t
// RUN: %t | FileCheck %s
// CHECK: fifo ok
// CHECK-NEXT: push_front ok
// CHECK-NEXT: remove ok
// CHECK-NEXT: take_all ok
// CHECK-NEXT: splice_back ok
#include <cfa/internal/queue.h>
#include <stdio.h>
#include <stdlib.h>

struct item {
    int              value;
    struct cfa_qlink link;
};

#define check(cond)                                                         \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                        \
        }                                                                   \
    } while (0)

static struct item items[5];

static void fill(struct cfa_queue *q)
{
    for (int i = 0; i < 5; i++) {
        items[i].value = i;
        cfa_qlink_init(&items[i].link);
        cfa_queue_push_back(q, &items[i].link);
    }
}

/* Pops everything: the values must be `want` (n of them), then empty. */
static void drain_expect(struct cfa_queue *q, const int *want, int n)
{
    for (int i = 0; i < n; i++) {
        struct cfa_qlink *l = cfa_queue_pop_front(q);
        check(l != NULL);
        check(l->next == NULL);
        check(cfa_queue_entry(l, struct item, link)->value == want[i]);
    }
    check(cfa_queue_pop_front(q) == NULL);
    check(cfa_queue_empty(q) && cfa_queue_empty_unlocked(q));
    check(q->head == NULL && q->tail == NULL);
}

static void fifo(void)
{
    struct cfa_queue q = {0};
    check(cfa_queue_empty(&q) && cfa_queue_peek(&q) == NULL);
    fill(&q);
    check(!cfa_queue_empty(&q));
    check(cfa_queue_peek(&q) == &items[0].link);
    int seen = 0;
    cfa_queue_foreach(it, &q)
        check(cfa_queue_entry(it, struct item, link)->value == seen++);
    check(seen == 5);
    /* Interleaved pushes and pops keep the order. */
    check(cfa_queue_pop_front(&q) == &items[0].link);
    cfa_queue_push_back(&q, &items[0].link);
    drain_expect(&q, (const int[]){ 1, 2, 3, 4, 0 }, 5);
    /* A queue drained and refilled works from scratch. */
    fill(&q);
    drain_expect(&q, (const int[]){ 0, 1, 2, 3, 4 }, 5);
    printf("fifo ok\n");
}

static void push_front(void)
{
    struct cfa_queue q = {0};
    items[0].value = 0;
    cfa_qlink_init(&items[0].link);
    cfa_queue_push_front(&q, &items[0].link); /* into an empty queue: head and tail */
    check(q.head == &items[0].link && q.tail == &items[0].link);
    for (int i = 1; i < 3; i++) {
        items[i].value = i;
        cfa_qlink_init(&items[i].link);
        cfa_queue_push_front(&q, &items[i].link);
    }
    items[3].value = 3;
    cfa_qlink_init(&items[3].link);
    cfa_queue_push_back(&q, &items[3].link); /* the tail followed the first push */
    drain_expect(&q, (const int[]){ 2, 1, 0, 3 }, 4);
    printf("push_front ok\n");
}

static void remove_(void)
{
    struct cfa_queue q = {0};
    fill(&q);
    check(cfa_queue_remove(&q, &items[2].link)); /* the middle */
    check(items[2].link.next == NULL);
    check(!cfa_queue_remove(&q, &items[2].link)); /* no longer there */
    check(cfa_queue_remove(&q, &items[0].link)); /* the head */
    check(cfa_queue_peek(&q) == &items[1].link);
    check(cfa_queue_remove(&q, &items[4].link)); /* the tail */
    check(q.tail == &items[3].link && items[3].link.next == NULL);
    cfa_queue_push_back(&q, &items[4].link);     /* after a new tail */
    drain_expect(&q, (const int[]){ 1, 3, 4 }, 3);
    /* The only element: head and tail both go. */
    cfa_queue_push_back(&q, &items[0].link);
    check(cfa_queue_remove(&q, &items[0].link));
    check(q.head == NULL && q.tail == NULL);
    check(!cfa_queue_remove(&q, &items[0].link)); /* from an empty queue */
    printf("remove ok\n");
}

static void take_all(void)
{
    struct cfa_queue q = {0};
    fill(&q);
    struct cfa_qlink *all = cfa_queue_take_all(&q);
    check(cfa_queue_empty(&q) && q.tail == NULL);
    int n = 0;
    for (struct cfa_qlink *l = all, *next; l; l = next, n++) {
        check(cfa_queue_entry(l, struct item, link)->value == n);
        next = cfa_qlink_take_next(l);
        check(l->next == NULL);
    }
    check(n == 5);
    check(cfa_queue_take_all(&q) == NULL);
    fill(&q); /* every element may be queued again */
    drain_expect(&q, (const int[]){ 0, 1, 2, 3, 4 }, 5);
    printf("take_all ok\n");
}

static void splice_back(void)
{
    struct cfa_queue a = {0}, b = {0};
    fill(&b);
    cfa_queue_splice_back(&a, &b); /* into an empty queue */
    check(cfa_queue_empty(&b) && b.tail == NULL);
    check(cfa_queue_pop_front(&a) == &items[0].link);
    check(cfa_queue_pop_front(&a) == &items[1].link);
    cfa_queue_push_back(&b, &items[0].link);
    cfa_queue_push_back(&b, &items[1].link);
    cfa_queue_splice_back(&a, &b); /* behind a non-empty one */
    cfa_queue_splice_back(&a, &b); /* an empty source changes nothing */
    check(a.tail == &items[1].link);
    drain_expect(&a, (const int[]){ 2, 3, 4, 0, 1 }, 5);
    printf("splice_back ok\n");
}

int main(void)
{
    fifo();
    push_front();
    remove_();
    take_all();
    splice_back();
    return 0;
}
