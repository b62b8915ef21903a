/* stack.h: thread and coroutine stacks: carved from large regions,
 * guarded, reused (stack.c says how and which guarantee each stack has).
 * Every stack has STACK_GUARD_BYTES below its usable part: guard pages,
 * or, past the kernel's mapping budget, an untouched area whose top is a
 * canary checked at each context switch.
 */
#ifndef CFA_STACK_INTERNAL_H
#define CFA_STACK_INTERNAL_H

#include <cfa/coroutine.h>
#include <stdint.h>

enum { STACK_GUARD_BYTES = 16 * 1024 };

/* Cache colouring. Stacks are page-aligned, so the frames that threads
 * save when they switch out would all sit at the same offset of a page
 * and compete for the same few cache sets: with 500 threads parked in
 * turn, every resume missed L1 and L2 on its first load (cycle, 100
 * rings per processor: 1.19 times the hops per second with colours).
 * A stack's first frame starts STACK_COLOURS cache lines or fewer below
 * its top, a colour drawn from its address; every stack has
 * STACK_COLOUR_ROOM bytes above the usable size it was asked for, so the
 * colour takes nothing from it, and a thread whose frames stay within
 * the top page still touches one page. */
enum { STACK_COLOURS = 32, STACK_COLOUR_LINE = 64, STACK_COLOUR_ROOM = 4096 };
_Static_assert(STACK_COLOURS * STACK_COLOUR_LINE <= STACK_COLOUR_ROOM / 2,
               "a coloured first frame leaves half the room's page for the frames above it");

/* Where s's first frame goes: its top, lowered by its colour. */
static inline uintptr_t stack_coloured_top(const struct cfa_stack *s)
{
    uintptr_t top = ((uintptr_t)s->map + s->map_size) & ~(uintptr_t)15;
    uint32_t colour = ((uint32_t)(top >> 12) * 0x9E3779B1u) >> (32 - __builtin_ctz(STACK_COLOURS));
    return top - colour * STACK_COLOUR_LINE;
}

/* Reads CFA_STACK_SIZE once at boot. */
void stack_configure(void);

/* Fills s with a stack of at least `usable` bytes (0: the default) below
 * its first frame, wherever its colour puts that.
 * Running out of memory is a fatal error, reported. */
void stack_acquire(struct cfa_stack *s, size_t usable);

/* Returns s to the pool or unmaps it; s is zeroed. */
void stack_release(struct cfa_stack *s);

/* Stops the program with a report naming c when its stack has no guard
 * pages and the canary below it was written (a stack overflow). */
#if defined(__clang__) && defined(__x86_64__)
/* The call saves every register itself: the switch around it keeps its
 * registers where they are (measured: 1 ns of a 37 ns yield otherwise). */
#define CFA_STACK_CHECK_CONVENTION __attribute__((preserve_most))
#else
#define CFA_STACK_CHECK_CONVENTION
#endif
CFA_STACK_CHECK_CONVENTION __attribute__((cold)) void stack_check_canary(const struct cfa_coroutine *c);

/* At each switch away from c (context.h): one load and a branch unless c's
 * stack relies on its canary. */
static inline void stack_watch(const struct cfa_coroutine *c)
{
    if (__builtin_expect(c->stack.canary, 0))
        stack_check_canary(c);
}

/* For CFA_STATS: stacks by guard, and the pools. */
struct stack_counts {
    unsigned long carved, guarded_madvise, guarded_mprotect, canary;
    unsigned long warm, cold;
    unsigned long trimmed, trim_ranges, trim_calls; /* memory returned: stacks, ranges, system calls */
    long maps, maps_budget;
};
void stack_counts(struct stack_counts *out);

/* Gives a leaving processor's cached stacks back to the pool. */
struct cfa_processor_state;
void stack_cache_flush(struct cfa_processor_state *proc);

/* fork.c, steps P1/P2/C1: the pool's lock is held across fork(), so the
 * child's copy of the pool is whole. */
void stack_lock_for_fork(void);
void stack_unlock_after_fork(void);

#endif
