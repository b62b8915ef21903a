/* one_processor.h: the one-processor flag of mutex calls and its
 * transitions (one_processor.c). */
#ifndef CFA_ONE_PROCESSOR_H
#define CFA_ONE_PROCESSOR_H

struct cfa_processor_state;

void one_processor_count_changed(unsigned processors); /* under the registry lock */
/* Called by a processor's starter when it is the second: returns once
 * `sole` can no longer run an unlocked owner-word instruction. */
void one_processor_quiesce(struct cfa_processor_state *sole);

#endif
