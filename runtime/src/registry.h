/* registry.h: every live thread, started coroutine and processor
 * (registry.c), for the deadlock report, the preemption ticker and the
 * debugger. Each list has its own lock;
 * a walk holds it throughout. */
#ifndef CFA_REGISTRY_H
#define CFA_REGISTRY_H

#include <stdbool.h>

struct cfa_thread;
struct cfa_coroutine;
struct cfa_processor_state;

void registry_add_thread(struct cfa_thread *t);
void registry_remove_thread(struct cfa_thread *t);
/* A coroutine is listed while ACTIVE: from its first resume to its halt
 * or its destruction (coroutine.c). */
void registry_add_coroutine(struct cfa_coroutine *c);
void registry_remove_coroutine(struct cfa_coroutine *c);
/* Returns the processor that was the only one, if p is the second. */
struct cfa_processor_state *registry_add_processor(struct cfa_processor_state *p);
void registry_remove_processor(struct cfa_processor_state *p);
void registry_processor_signalable(struct cfa_processor_state *p, bool yes);
/* Walking a list: lock, follow all_next from the head, unlock. */
void registry_lock_processors(void);
void registry_unlock_processors(void);
struct cfa_processor_state *registry_processors(void);
void registry_lock_threads(void);
void registry_unlock_threads(void);
struct cfa_thread *registry_threads(void);

#endif
