/* stack.h: mapped stacks with a guard region, pooled.
 *
 * Stacks of the default size are recycled through a pool so that creating
 * a thread does not map memory; other sizes are mapped and unmapped each
 * time. Every stack has CFA_STACK_GUARD bytes of PROT_NONE at its bottom.
 */
#ifndef CFA_STACK_INTERNAL_H
#define CFA_STACK_INTERNAL_H

#include <cfa/coroutine.h>

enum { CFA_STACK_GUARD = 16 * 1024 };

/* Reads CFA_STACK_SIZE once at boot. */
void stack_configure(void);

/* Fills s with a stack of at least `usable` bytes (0: the default).
 * Running out of memory is a fatal error, reported. */
void stack_acquire(struct cfa_stack *s, size_t usable);

/* Returns s to the pool or unmaps it; s is zeroed. */
void stack_release(struct cfa_stack *s);

/* Gives a leaving processor's cached stacks back to the pool. */
struct cfa_processor_state;
void stack_cache_flush(struct cfa_processor_state *proc);

#endif
