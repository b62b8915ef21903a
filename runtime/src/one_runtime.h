/* one_runtime.h: one runtime per process (one_runtime.c). */
#ifndef CFA_ONE_RUNTIME_H
#define CFA_ONE_RUNTIME_H

/* Stops the program if another runtime is loaded too (at boot). */
void one_runtime_check(void);

#endif
