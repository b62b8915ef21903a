/* fork.c: what a process made by fork() may ask of the runtime.
 *
 * The child of fork() has one kernel thread: the one that called fork,
 * running the user thread that called it. The runtime's other kernel
 * threads (processors, the preemption ticker, the I/O poller, pool and
 * waiter threads) do not exist there, while the child's copy of the
 * runtime's state still lists them, and the child shares the parent's
 * io_uring rings and eventfds. So in the child:
 *   - the thread that forked runs on, and the interposed blocking calls
 *     are glibc's (interpose.h: PARKS_CALLER);
 *   - starting a thread or a processor (pthread_create, cfa_thread_start,
 *     cfa_processor_start) stops the program with a message that says so,
 *     instead of handing work to processors that are not there;
 *   - exec gives a fresh program, with a runtime of its own.
 * Invariant: runtime_forked_child is false in the process that started the
 * runtime and true in every process that fork() made from it.
 */
#include "fork.h"
#include "kthread.h"

#include <cfa/runtime.h>
#include <pthread.h>
#include <stdbool.h>

bool runtime_forked_child;

static void in_forked_child(void) { runtime_forked_child = true; }
__attribute__((constructor)) static void watch_fork(void) { pthread_atfork(NULL, NULL, in_forked_child); }

void runtime_forked_child_refuses(const char *what)
{
    cfa_fatal("%s in a process made by fork(): only the kernel thread that called fork exists there, "
              "so the runtime cannot run threads (exec a program instead; docs/pthreads.md, \"fork\")",
              what);
}
