/* code_windows.c: the code that preemption must never stop a thread in.
 *
 * Owns the list of the modules' window tables (cfa/mutex_call.h: every
 * module, the program and each shared library built from cfa-lite code,
 * registers its own from a constructor) and the lookups of a PC in them:
 * one-processor windows (one_processor.c) and thread-read windows
 * (preemption.c).
 *
 * Invariants:
 *  - a module's tables are in the list at most once, and stay until exit:
 *    signal handlers read the list without a lock, so a node is never
 *    removed. Nodes are pushed at the head with a release CAS, so a reader
 *    sees a complete node or none;
 *  - in the shared runtime, a shared library with windows is never
 *    unloaded (registering pins it): a thread may be inside one of its
 *    windows, and its node lives in its memory. The static runtime never
 *    meets such a library: a library built from cfa-lite code needs the
 *    shared runtime (docs/install.md).
 */
#include "code_windows.h"

#include <cfa/mutex_call.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#ifdef CFA_SHARED_RUNTIME
#include <dlfcn.h>
#endif

static struct cfa_code_windows *_Atomic modules;

static bool same_tables(const struct cfa_code_windows *a, const struct cfa_code_windows *b)
{
    return a->one_processor_first == b->one_processor_first &&
           a->thread_read_first == b->thread_read_first;
}

/* The shared library holding `node`, if any, stays loaded until exit. */
static void pin_module_of(const void *node)
{
#ifdef CFA_SHARED_RUNTIME
    Dl_info info;
    if (dladdr(node, &info) && info.dli_fname && info.dli_fname[0])
        dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
#else
    (void)node;
#endif
}

void cfa_register_code_windows(struct cfa_code_windows *module)
{
    if (module->one_processor_first == module->one_processor_end &&
        module->thread_read_first == module->thread_read_end)
        return; /* no windows */
    struct cfa_code_windows *head = atomic_load_explicit(&modules, memory_order_acquire);
    for (const struct cfa_code_windows *m = head; m; m = m->next)
        if (same_tables(m, module))
            return; /* another translation unit of a module already in */
    pin_module_of(module);
    do
        module->next = head;
    while (!atomic_compare_exchange_weak_explicit(&modules, &head, module, memory_order_release,
                                                  memory_order_acquire));
}

bool code_window_at(const struct code_window *first, const struct code_window *end, uintptr_t pc)
{
    for (const struct code_window *w = first; w < end; w++) {
        uintptr_t start = (uintptr_t)&w->start + (intptr_t)w->start;
        uintptr_t stop = (uintptr_t)&w->end + (intptr_t)w->end;
        if (pc >= start && pc < stop)
            return true;
    }
    return false;
}

bool one_processor_window_at(uintptr_t pc)
{
    for (const struct cfa_code_windows *m = atomic_load_explicit(&modules, memory_order_acquire); m; m = m->next)
        if (code_window_at(m->one_processor_first, m->one_processor_end, pc))
            return true;
    return false;
}

bool thread_read_window_at(uintptr_t pc)
{
    for (const struct cfa_code_windows *m = atomic_load_explicit(&modules, memory_order_acquire); m; m = m->next)
        if (code_window_at(m->thread_read_first, m->thread_read_end, pc))
            return true;
    return false;
}
