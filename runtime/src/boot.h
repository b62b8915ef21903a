/* boot.h: start-up (boot.c): the main cluster, processor and thread. */
#ifndef CFA_BOOT_H
#define CFA_BOOT_H

void runtime_boot(void);

#endif
