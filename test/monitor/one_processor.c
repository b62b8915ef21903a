// The one-processor mode of mutex calls (cfa/mutex_call.h,
// runtime/src/one_processor.c): with one processor, the owner word is
// taken and let go of by unlocked instructions; a second processor turns
// them back into locked ones before it runs anything.
//
// Checked:
//  - cfa_one_processor is 1 with one processor, 0 with two, 1 again once
//    the second is stopped, whether a user thread or a kernel thread that
//    is not a processor started it;
//  - the windows table of this program is well formed: every window is a
//    test of the flag followed by an unlocked cmpxchg or sub, and ends
//    right after it;
//  - short mutex calls by 4 threads, with preemption every millisecond,
//    while processors come and go under them (started by main, and by a
//    pthread): never two threads in one monitor, every call counted, every
//    owner word 0 at the end.
//
// RUN: %cc %s -I%S/include -o %t %cfa-link -lpthread
// RUN: env CFA_PREEMPTION_MS=1 %timeout %t %stress | FileCheck %s
// CHECK: flag 1 0 1 0 1
// CHECK: windows ok
// CHECK: calls 400000 pairs 80000 overlaps 0 transitions 20
#include "counters.h"
#include <pthread.h>
#include <stdint.h>
#include <string.h>

enum { WORKERS = 4, ROUNDS = 100000, TRANSITIONS = 20 };

static void bump(struct counter *c) {
    MUTEX_CALL(bump, &c->mon);
    enter_check(c);
    c->calls++;
    c->inside--;
}

struct worker { int id; struct cfa_thread thread; };
static void worker_main(void *object) {
    struct worker *w = object;
    for (int i = 0; i < ROUNDS; i++) {
        bump(i % 2 ? &a : &b);
        if (i % 5 == 0)
            (w->id % 2) ? pair(&a, &b) : pair(&b, &a);
    }
}

static void *start_from_pthread(void *p) {
    cfa_processor_start(p);
    return NULL;
}

/* The windows as mutex_call.h lays them out: cmpb $0, flag; je; then the
 * unlocked instruction (REX.W 0F B1 cmpxchg, REX.W 29 sub), the window
 * ending after it, at the jmp over the locked variant. */
struct window { int32_t start, end; };
extern const struct window __start_cfa_one_processor_windows[] __attribute__((weak));
extern const struct window __stop_cfa_one_processor_windows[] __attribute__((weak));

static bool windows_well_formed(void) {
#ifdef CFA_MUTEX_ATOMICS_ONLY
    return true; /* ThreadSanitizer: plain atomics, no windows */
#endif
    const struct window *w = __start_cfa_one_processor_windows;
    if (w == __stop_cfa_one_processor_windows)
        return false; /* this program has mutex calls: there must be some */
    for (; w < __stop_cfa_one_processor_windows; w++) {
        const uint8_t *start = (const uint8_t *)&w->start + w->start;
        const uint8_t *end = (const uint8_t *)&w->end + w->end;
        const uint8_t *op = (start[0] & 0xF0) == 0x40 ? start + 1 : start; /* REX */
        if (op[0] != 0x80 || end - start > 32 || end[0] != 0xEB) /* cmpb; ends at jmp rel8 */
            return false;
        bool found = false;
        for (const uint8_t *p = start; p + 3 <= end && !found; p++) {
            bool rexw = (p[0] & 0xF8) == 0x48;
            if (rexw && p[1] == 0x0F && p[2] == 0xB1 && p[-1] != 0xF0)
                found = true; /* cmpxchg r/m64, r64 without lock */
            if (rexw && p[1] == 0x29 && p[-1] != 0xF0)
                found = true; /* sub r/m64, r64 without lock */
        }
        if (!found)
            return false;
    }
    return true;
}

int main(int argc, char **argv) {
    long repeat = repeat_count(argc, argv);
    for (long r = 0; r < repeat; r++) {
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        overlaps = 0;

        /* The flag through both kinds of starter. */
        int f0 = atomic_load(&cfa_one_processor);
        struct cfa_processor p = {0};
        cfa_processor_start(&p);
        int f1 = atomic_load(&cfa_one_processor);
        cfa_processor_stop(&p);
        int f2 = atomic_load(&cfa_one_processor);
        pthread_t kt;
        CHECK(cfa_kernel_thread_create(&kt, NULL, start_from_pthread, &p) == 0);
        cfa_kernel_thread_join(kt, NULL);
        int f3 = atomic_load(&cfa_one_processor);
        cfa_processor_stop(&p);
        int f4 = atomic_load(&cfa_one_processor);

        struct worker workers[WORKERS] = {0};
        for (int i = 0; i < WORKERS; i++) {
            workers[i].id = i;
            cfa_thread_start(&workers[i].thread, worker_main, &workers[i], "Worker", 0);
        }
        /* Processors come and go while the workers run; every other one
         * is started by a kernel thread that is not a processor. */
        int transitions = 0;
        for (int k = 0; k < TRANSITIONS; k++) {
            if (k % 2) {
                CHECK(cfa_kernel_thread_create(&kt, NULL, start_from_pthread, &p) == 0);
                cfa_kernel_thread_join(kt, NULL);
            } else {
                cfa_processor_start(&p);
            }
            for (int y = 0; y < 50; y++) cfa_yield();
            cfa_processor_stop(&p);
            transitions++;
            for (int y = 0; y < 50; y++) cfa_yield();
        }
        for (int i = 0; i < WORKERS; i++) cfa_thread_destroy(&workers[i].thread);
        CHECK_EQ(atomic_load(&a.mon.owner), 0);
        CHECK_EQ(atomic_load(&b.mon.owner), 0);
        CHECK_EQ(a.calls + b.calls, (long)WORKERS * ROUNDS);
        CHECK_EQ(overlaps, 0);
        if (r == 0) {
            printf("flag %d %d %d %d %d\n", f0, f1, f2, f3, f4);
            printf("windows %s\n", windows_well_formed() ? "ok" : "malformed");
            printf("calls %ld pairs %ld overlaps %ld transitions %d\n", a.calls + b.calls,
                   a.pairs + b.pairs, overlaps, transitions);
        }
    }
    return 0;
}
