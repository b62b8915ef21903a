/* invariant.h: the debug build's invariant checks (CMake option CFA_DEBUG).
 *
 * cfa_assert(invariant, cond): cfa/internal/assert.h (the standard library
 * and the shared internal headers check theirs with it too).
 * Each check sits beside the invariant it checks, which the comment at the
 * data structure states; docs/architecture.md lists them all.
 *
 * DEBUG_FAULT(fault, statement): a test hook. In the debug build, the
 * statement (which breaks one invariant on purpose) runs once after a
 * test armed that fault with cfa_debug_inject (cfa/debug.h); otherwise it
 * compiles to nothing.
 */
#ifndef CFA_INVARIANT_H
#define CFA_INVARIANT_H

#include <cfa/internal/assert.h>
#include <stdatomic.h>
#include <stdbool.h>

/* Faults a test may arm (cfa_debug_inject names them in lower case). */
enum debug_fault {
    FAULT_NONE,
    FAULT_LANE_HOLDER,   /* ready_push: the lane looks held by someone else */
    FAULT_LANE_STAMP,    /* ready_push: the lane's head_stamp goes wrong */
    FAULT_COUNT
};

#ifdef CFA_DEBUG
extern _Atomic int debug_fault_armed;
bool debug_fault_take(enum debug_fault fault);
#define DEBUG_FAULT(fault, ...)                                                            \
    do {                                                                                   \
        if (__builtin_expect(atomic_load_explicit(&debug_fault_armed, memory_order_relaxed) \
                                 == (fault), 0) && debug_fault_take(fault)) {             \
            __VA_ARGS__;                                                                   \
        }                                                                                  \
    } while (0)

/* Identifies the calling kernel thread (lock holders). */
const void *debug_kthread(void);
#else
#define DEBUG_FAULT(fault, ...) ((void)0)
#endif

#endif
