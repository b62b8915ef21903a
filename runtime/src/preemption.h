/* preemption.h: time slices (preemption.c): the ticker and the SIGURG
 * handler, which never stops a thread inside a one-processor window. */
#ifndef CFA_PREEMPTION_H
#define CFA_PREEMPTION_H

#include <stdbool.h>

struct cfa_processor_state;

void preemption_start(void);
/* In a child made by fork(): whether a ticker should run there, and its
 * start (fork.c, step R). */
bool preemption_wanted(void);
void preemption_restart(void);
/* Asks p's kernel thread, by SIGURG, to clear p->quiesce_wanted where it
 * is not inside a one-processor window; false if p takes no signals. */
bool preemption_poke(struct cfa_processor_state *p);
/* Signals handled on a processor running a thread, preemptions made, and
 * signals dropped because the thread was inside a one-processor window. */
void preemption_counts(unsigned long *signals, unsigned long *yields, unsigned long *in_window);

#endif
