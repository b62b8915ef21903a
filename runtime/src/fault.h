/* fault.h: fatal errors and the fault handler (fault.c): a SIGSEGV or
 * SIGBUS on a processor is reported on the processor's signal stack
 * (a stack overflow included). */
#ifndef CFA_FAULT_H
#define CFA_FAULT_H

struct cfa_processor_state;

void fault_install(void);
void fault_thread_enter(struct cfa_processor_state *p);
void fault_thread_leave(struct cfa_processor_state *p);

#endif
