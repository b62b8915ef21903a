/* fork.h: the runtime in a child made by fork() (fork.c). Such a process
 * has no processors but the forking thread's; starting a thread or a
 * processor there stops the program with a message. */
#ifndef CFA_FORK_H
#define CFA_FORK_H

#include <stdbool.h>

/* True in a process made by fork(). */
extern bool runtime_forked_child;
/* Stops the program with a message naming `what`. */
void runtime_forked_child_refuses(const char *what) __attribute__((noreturn));

#endif
