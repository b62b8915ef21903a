// Full coroutines: ping-pong between two coroutines, last-resumer
// semantics of suspend, return to the starter when main returns, a chain
// of nested resumes, and one coroutine resumed by several user threads in
// turn (on 2 processors).
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: ping-pong 1000 rounds: pqpqpqpqpq... ok
// CHECK-NEXT: last resumer: main B | main A B A | main B ok
// CHECK-NEXT: starter: X returned to main past Y ok
// CHECK-NEXT: chain 100 deep x 50 ok
// CHECK-NEXT: handoff across 8 threads ok
#include "check.h"

/* ---------- trace ---------- */
static char trace[1 << 16];
static int trace_len;
static void mark(char c) {
    CHECK(trace_len < (int)sizeof trace - 1, "trace overflow");
    trace[trace_len++] = c;
    trace[trace_len] = 0;
}
static void trace_reset(void) { trace_len = 0; trace[0] = 0; }

/* ---------- ping-pong ---------- */
enum { ROUNDS = 1000 };
struct player {
    char                 letter;
    int                  rounds;
    struct player       *partner;
    struct cfa_coroutine cor;
};
static void player_main(void *object) {
    struct player *p = object;
    for (int i = 0; i < ROUNDS; i++) {
        mark(p->letter);
        p->rounds++;
        cfa_coroutine_resume(&p->partner->cor);
    }
}

/* ---------- last resumer ---------- */
struct named {
    char                 letter;
    struct named        *other;     /* resumed from main, if any */
    struct cfa_coroutine cor;
};
static void named_main(void *object) {
    struct named *n = object;
    for (;;) {
        mark(n->letter);
        if (n->other) cfa_coroutine_resume(&n->other->cor);
        if (n->other) mark(n->letter);
        cfa_coroutine_suspend();
    }
}

/* ---------- starter: X started by main, later resumed by Y ---------- */
struct xy {
    struct cfa_coroutine *x;
    int                   stage;
    struct cfa_coroutine  cor;
};
static void x_main(void *object) {
    struct xy *s = object;
    s->stage = 1;
    cfa_coroutine_suspend();           /* back to main, its starter */
    s->stage = 2;                      /* now resumed by Y: returning goes to main */
}
static void y_main(void *object) {
    struct xy *s = object;
    cfa_coroutine_resume(s->x);        /* X returns to its starter (main), not here */
    CHECK(0, "Y came back from resuming X, but X's main returned to its starter");
}

/* ---------- chain ---------- */
enum { DEPTH = 100, CHAIN_ROUNDS = 50 };
struct link {
    int                  index;
    struct link         *next;
    int                  entered, left;
    struct cfa_coroutine cor;
};
static int chain_level;
static void link_main(void *object) {
    struct link *l = object;
    for (;;) {
        CHECK_EQ(chain_level, l->index);
        l->entered++;
        chain_level++;
        if (l->next) cfa_coroutine_resume(&l->next->cor);
        chain_level--;
        CHECK_EQ(chain_level, l->index);
        CHECK(l->cor.last == (l->index ? &(l - 1)->cor : l->cor.starter),
              "link %d: last resumer is not its predecessor", l->index);
        l->left++;
        cfa_coroutine_suspend();
    }
}

/* ---------- handoff: one generator, resumed by 8 threads in turn ---------- */
struct gen {
    long                 value;
    struct cfa_coroutine cor;
};
static void gen_main(void *object) {
    struct gen *g = object;
    for (;;) { g->value++; cfa_coroutine_suspend(); }
}
struct user {
    struct gen       *gen;
    int               turn;
    struct cfa_thread thread;
};
static _Atomic int turn;
static void user_main(void *object) {
    struct user *u = object;
    while (atomic_load(&turn) != u->turn) cfa_yield();
    for (int i = 0; i < 1000; i++) {
        long before = u->gen->value;
        cfa_coroutine_resume(&u->gen->cor);
        CHECK_EQ(u->gen->value, before + 1);
        CHECK(u->gen->cor.last == &cfa_active_thread()->self, "last resumer is not this thread");
        CHECK(cfa_coroutine_active() == &cfa_active_thread()->self, "not back on own stack");
        if (i % 100 == 0) cfa_yield();    /* may move to another processor */
    }
    atomic_store(&turn, u->turn + 1);
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    struct cfa_coroutine *self = cfa_coroutine_active();

    for (long r = 0; r < reps; r++) {
        /* ping-pong */
        trace_reset();
        struct player ping, pong;
        memset(&ping, 0, sizeof ping); memset(&pong, 0, sizeof pong);
        ping.letter = 'p'; ping.partner = &pong;
        pong.letter = 'q'; pong.partner = &ping;
        cfa_coroutine_setup(&ping.cor, player_main, &ping, "Ping");
        cfa_coroutine_setup(&pong.cor, player_main, &pong, "Pong");
        cfa_coroutine_resume(&ping.cor);
        /* ping's main returned to its starter (main); pong is suspended in
         * its resume of ping. */
        CHECK_EQ(ping.rounds, ROUNDS);
        CHECK_EQ(pong.rounds, ROUNDS);
        CHECK_EQ(trace_len, 2 * ROUNDS);
        for (int i = 0; i < trace_len; i++) CHECK(trace[i] == "pq"[i % 2], "trace[%d] = %c", i, trace[i]);
        CHECK_EQ(ping.cor.state, CFA_COROUTINE_HALTED);
        CHECK_EQ(pong.cor.state, CFA_COROUTINE_ACTIVE);
        CHECK(ping.cor.starter == self && pong.cor.starter == &ping.cor, "starters");
        CHECK(cfa_coroutine_active() == self, "not back on main's stack");
        if (r == 0) printf("ping-pong %d rounds: %.10s... ok\n", ROUNDS, trace);
        cfa_coroutine_destroy(&ping.cor);
        cfa_coroutine_destroy(&pong.cor);

        /* last resumer */
        trace_reset();
        struct named a, b;
        memset(&a, 0, sizeof a); memset(&b, 0, sizeof b);
        a.letter = 'A'; a.other = &b; b.letter = 'B';
        cfa_coroutine_setup(&a.cor, named_main, &a, "A");
        cfa_coroutine_setup(&b.cor, named_main, &b, "B");
        mark('|'); cfa_coroutine_resume(&b.cor);        /* B suspends to main */
        CHECK(b.cor.starter == self && b.cor.last == self, "B's starter/last");
        mark('|'); cfa_coroutine_resume(&a.cor);        /* A resumes B, B suspends to A */
        CHECK(b.cor.last == &a.cor, "B's last resumer is not A");
        CHECK(b.cor.starter == self, "B's starter changed");
        mark('|'); cfa_coroutine_resume(&b.cor);        /* B suspends to main again */
        CHECK(b.cor.last == self, "B's last resumer is not main");
        CHECK(strcmp(trace, "|B|ABA|B") == 0, "trace %s", trace);
        if (r == 0) printf("last resumer: main B | main A B A | main B ok\n");
        cfa_coroutine_destroy(&a.cor);
        cfa_coroutine_destroy(&b.cor);

        /* starter */
        struct xy x, y;
        memset(&x, 0, sizeof x); memset(&y, 0, sizeof y);
        cfa_coroutine_setup(&x.cor, x_main, &x, "X");
        cfa_coroutine_setup(&y.cor, y_main, &y, "Y");
        y.x = &x.cor;
        cfa_coroutine_resume(&x.cor);
        CHECK_EQ(x.stage, 1);
        cfa_coroutine_resume(&y.cor);                   /* comes back when X's main returns */
        CHECK_EQ(x.stage, 2);
        CHECK_EQ(x.cor.state, CFA_COROUTINE_HALTED);
        CHECK_EQ(y.cor.state, CFA_COROUTINE_ACTIVE);
        CHECK(cfa_coroutine_active() == self, "not back on main's stack");
        if (r == 0) printf("starter: X returned to main past Y ok\n");
        cfa_coroutine_destroy(&x.cor);
        cfa_coroutine_destroy(&y.cor);

        /* chain */
        struct link *links = calloc(DEPTH, sizeof *links);
        CHECK(links != NULL);
        for (int i = 0; i < DEPTH; i++) {
            links[i].index = i;
            links[i].next = i + 1 < DEPTH ? &links[i + 1] : NULL;
            cfa_coroutine_setup(&links[i].cor, link_main, &links[i], "Link");
        }
        chain_level = 0;
        for (int k = 0; k < CHAIN_ROUNDS; k++) {
            cfa_coroutine_resume(&links[0].cor);
            CHECK_EQ(chain_level, 0);
        }
        for (int i = 0; i < DEPTH; i++) {
            CHECK_EQ(links[i].entered, CHAIN_ROUNDS);
            CHECK_EQ(links[i].left, CHAIN_ROUNDS);
            CHECK(links[i].cor.starter == (i ? &links[i - 1].cor : self), "link %d starter", i);
            cfa_coroutine_destroy(&links[i].cor);
        }
        free(links);
        if (r == 0) printf("chain %d deep x %d ok\n", DEPTH, CHAIN_ROUNDS);

        /* handoff across threads and processors */
        struct extra_procs procs;
        procs_start(&procs, 2);
        struct gen g;
        memset(&g, 0, sizeof g);
        cfa_coroutine_setup(&g.cor, gen_main, &g, "Gen");
        struct user users[8];
        memset(users, 0, sizeof users);
        atomic_store(&turn, 0);
        for (int i = 0; i < 8; i++) {
            users[i].gen = &g; users[i].turn = i;
            cfa_thread_start(&users[i].thread, user_main, &users[i], "User", 0);
        }
        for (int i = 0; i < 8; i++) cfa_thread_join(&users[i].thread);
        for (int i = 0; i < 8; i++) cfa_thread_destroy(&users[i].thread);
        CHECK_EQ(g.value, 8 * 1000);
        CHECK_EQ(atomic_load(&turn), 8);
        cfa_coroutine_destroy(&g.cor);
        procs_stop(&procs);
        if (r == 0) printf("handoff across 8 threads ok\n");
    }
    return 0;
}
