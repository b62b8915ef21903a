// Mutex calls: one, two and four monitors; the same monitor twice;
// re-entrant calls; a yield while holding two monitors. Tellers on 2
// processors move money between accounts: the total never changes, and
// every transfer is counted exactly once.
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: sum 8000 transfers 120000
// CHECK-NEXT: four-monitor audits 6000 consistent
#include "mutex_call.h"

struct account { long balance; long transfers; struct cfa_monitor mon; };
enum { N = 8, TELLERS = 6, ROUNDS = 20000 };
static struct account accounts[N];

static void deposit(struct account *a, long n) {
    MUTEX_CALL(deposit, &a->mon);
    a->balance += n;
}

static void transfer(struct account *from, struct account *to, long n) {
    MUTEX_CALL(transfer, &from->mon, &to->mon);
    long f = from->balance;
    cfa_yield();                  /* still holding both */
    from->balance = f - n;
    to->balance += n;
    from->transfers++;
    deposit(from, 0);             /* re-entrant */
}

/* Four monitors (some possibly equal): the sum of the four balances cannot
 * change while we hold them, even across a yield. */
static _Atomic long audits, audit_failures;
static void audit(struct account *a, struct account *b, struct account *c, struct account *d) {
    MUTEX_CALL(audit, &a->mon, &b->mon, &c->mon, &d->mon);
    long before = a->balance + b->balance + c->balance + d->balance;
    cfa_yield();
    long after = a->balance + b->balance + c->balance + d->balance;
    audits++;
    if (before != after)
        audit_failures++;
}

struct teller { unsigned seed; struct cfa_thread thread; };
static void teller_main(void *object) {
    struct teller *t = object;
    for (int i = 0; i < ROUNDS; i++) {
        t->seed = t->seed * 1103515245u + 12345u;
        unsigned a = (t->seed >> 16) % N, b = (t->seed >> 8) % N; /* a == b happens */
        transfer(&accounts[a], &accounts[b], 1 + t->seed % 7);
        if (i % 20 == 0)
            audit(&accounts[a], &accounts[b], &accounts[(a + 1) % N], &accounts[0]);
    }
}

int main(int argc, char **argv) {
    long repeat = repeat_count(argc, argv);
    for (long r = 0; r < repeat; r++) {
        memset(accounts, 0, sizeof accounts);
        audits = audit_failures = 0;
        for (int i = 0; i < N; i++) deposit(&accounts[i], 1000);
        struct cfa_processor p = {0};
        cfa_processor_start(&p);
        struct teller tellers[TELLERS] = {0};
        for (int i = 0; i < TELLERS; i++) {
            tellers[i].seed = (unsigned)(i + 1 + r);
            cfa_thread_start(&tellers[i].thread, teller_main, &tellers[i], "Teller", 0);
        }
        for (int i = TELLERS - 1; i >= 0; i--) cfa_thread_destroy(&tellers[i].thread);
        cfa_processor_stop(&p);
        long sum = 0, transfers = 0;
        for (int i = 0; i < N; i++) {
            CHECK_EQ(accounts[i].mon.owner, NULL);
            sum += accounts[i].balance;
            transfers += accounts[i].transfers;
        }
        CHECK_EQ(sum, 8000);
        CHECK_EQ(transfers, TELLERS * ROUNDS);
        CHECK_EQ(audit_failures, 0);
        if (r == 0) {
            printf("sum %ld transfers %ld\n", sum, transfers);
            printf("four-monitor audits %ld %s\n", audits, audit_failures ? "INCONSISTENT" : "consistent");
        }
    }
    return 0;
}
