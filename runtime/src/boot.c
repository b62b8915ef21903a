/* boot.c: start-up.
 *
 * Before main() runs (a constructor of the highest priority available to
 * libraries), the calling kernel thread becomes the main cluster's first
 * processor and the code that called the constructors, soon main(), is
 * its first user thread. The main thread keeps the process stack; the
 * main processor's scheduling loop gets a mapped stack and first runs when
 * the main thread first gives the processor up.
 *
 * Nothing is torn down at exit: exit() ends every kernel thread, as with
 * pthreads, and any thread still running simply stops.
 */
#include "boot.h"
#include "cluster.h"
#include "deadlock.h"
#include "fault.h"
#include "kthread.h"
#include "one_runtime.h"
#include "preemption.h"
#include "processor.h"
#include "resize_lock.h"
#include "registry.h"
#include "stats.h"
#include "environment.h"
#include "context.h"
#include "stack.h"
#include "io_processor.h"
#include <cfa/runtime.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>

/* gdb_scripts.S: referring to it keeps the embedded gdb extension in a
 * statically linked program. */
extern const char cfa_gdb_scripts_anchor[];
__attribute__((used)) static const char *const keep_gdb_scripts = cfa_gdb_scripts_anchor;

static struct cfa_cluster_state main_cluster_state;
struct cfa_cluster cfa_main_cluster = { .name = "main", .state = &main_cluster_state };

static struct cfa_processor main_processor_handle = { .cluster = &cfa_main_cluster, .name = "main" };
static struct cfa_processor_state main_processor __attribute__((aligned(64)));
static struct cfa_thread main_thread;

static void main_processor_entry(void *arg)
{
    context_arrived();
    processor_loop(arg);
    cfa_fatal("the main processor left its scheduling loop");
}

__attribute__((constructor(101))) void runtime_boot(void)
{
    if (cfa_tls_processor)
        return;
    one_runtime_check();
    env_validate();
    stack_configure();
    stats_configure();
    deadlock_configure();
    fault_install();
    resize_lock_init(); /* before the first processor joins the cluster */
    cluster_state_init(&main_cluster_state);

    main_processor_handle.state = &main_processor;
    processor_init_state(&main_processor, &main_processor_handle, &cfa_main_cluster);
    main_processor.is_main = true;
    main_processor.sched.type_name = "processor";
    stack_acquire(&main_processor.sched.stack, 0);
    context_prime(&main_processor.sched, main_processor_entry, &main_processor);

    main_thread.self.type_name = "main";
    main_thread.self.state = CFA_COROUTINE_ACTIVE;
    context_adopt_native(&main_thread.self);
    main_thread.current = &main_thread.self;
    main_thread.cluster = &cfa_main_cluster;
    main_thread.last_processor = &main_processor_handle;
    atomic_store(&main_thread.state, CFA_THREAD_RUNNING);

    main_processor.current = &main_thread;
    main_processor.kthread = pthread_self();
    cfa_tls_processor = &main_processor;
    main_processor.errno_slot = &errno;
    fault_thread_enter(&main_processor);
    registry_processor_signalable(&main_processor, true);
    registry_add_thread(&main_thread);
    io_processor_init(&main_processor);
    preemption_start();
}
