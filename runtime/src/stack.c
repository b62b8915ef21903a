/* stack.c: the stack pool.
 *
 * Invariants: a pooled stack has the default size and its guard already
 * protected; the pool's free list is threaded through the first word above
 * each guard and is touched only under pool_lock; at most POOL_LIMIT stacks
 * are kept, the rest go back to the kernel.
 *
 * In front of the pool, each processor keeps up to CACHE_LIMIT stacks
 * (`stack_cache`), touched only on its kernel thread and without a lock
 * (runtime code is never preempted, so no other thread of the processor
 * runs meanwhile): a thread that starts right after one halted on the same
 * processor, the common case, takes no lock. A leaving processor returns
 * its cache to the pool (stack_cache_flush).
 *
 * Under valgrind every mapped stack is registered with memcheck for as long
 * as it is mapped (pooled included: a pooled stack keeps its id in its
 * `pooled` header), so memcheck knows a switch to it is a stack switch and
 * not a huge stack-pointer move. Outside valgrind the client requests are a
 * few no-op instructions, paid only when a stack is mapped or unmapped.
 */
#include "stack.h"
#include "context.h"
#include "kernel.h"
#include "environment.h"
#include "spinlock.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <valgrind/valgrind.h>

enum {
    MIN_STACK = 16 * 1024,
    POOL_LIMIT = 1024,
    CACHE_LIMIT = 8,
};

struct pooled { struct pooled *next; unsigned memcheck_id; };

static size_t default_usable; /* CFA_STACK_SIZE, set at boot */
static size_t page_size = 4096;
static _Atomic int pool_lock;
static struct pooled *pool;
static unsigned pool_count;

static size_t round_to_page(size_t n) { return (n + page_size - 1) & ~(page_size - 1); }

void stack_configure(void)
{
    page_size = (size_t)sysconf(_SC_PAGESIZE);
    default_usable = round_to_page(env_size(ENV_CFA_STACK_SIZE));
}

size_t cfa_default_stack_size(void) { return default_usable; }

static void map_stack(struct cfa_stack *s, size_t usable)
{
    size_t size = usable + CFA_STACK_GUARD;
    void *map = mmap(NULL, size, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (map == MAP_FAILED)
        cfa_fatal("cannot map a stack of %zu bytes: %s", size, strerror(errno));
    if (mprotect(map, CFA_STACK_GUARD, PROT_NONE) != 0)
        cfa_fatal("cannot protect a stack guard: %s", strerror(errno));
    s->map = map;
    s->map_size = size;
    s->guard = CFA_STACK_GUARD;
    s->memcheck_id = VALGRIND_STACK_REGISTER((char *)map + CFA_STACK_GUARD, (char *)map + size);
}

static void unmap_stack(void *map, size_t size, unsigned memcheck_id)
{
    VALGRIND_STACK_DEREGISTER(memcheck_id);
    munmap(map, size);
}

/* Fills s with the pooled stack p of the default size. */
static void take_pooled(struct cfa_stack *s, struct pooled *p)
{
    s->map = (char *)p - CFA_STACK_GUARD;
    s->map_size = default_usable + CFA_STACK_GUARD;
    s->guard = CFA_STACK_GUARD;
    s->memcheck_id = p->memcheck_id;
}

void stack_acquire(struct cfa_stack *s, size_t usable)
{
    usable = usable ? round_to_page(usable < MIN_STACK ? MIN_STACK : usable) : default_usable;
    if (usable == default_usable) {
        struct cfa_processor_state *proc = this_processor();
        struct pooled *p = proc ? proc->stack_cache : NULL;
        if (p) {
            proc->stack_cache = p->next;
            proc->stack_cached--;
            take_pooled(s, p);
            return;
        }
        spin_lock(&pool_lock);
        p = pool;
        if (p) {
            pool = p->next;
            pool_count--;
        }
        spin_unlock(&pool_lock);
        if (p) {
            take_pooled(s, p);
            return;
        }
    }
    map_stack(s, usable);
}

/* Keeps a free stack in the shared pool unless it is full (the caller
 * then unmaps it). */
static bool pool_put(struct pooled *p)
{
    spin_lock(&pool_lock);
    bool keep = pool_count < POOL_LIMIT;
    if (keep) {
        p->next = pool;
        pool = p;
        pool_count++;
    }
    spin_unlock(&pool_lock);
    return keep;
}

void stack_release(struct cfa_stack *s)
{
    if (!s->map)
        return;
#ifdef CFA_ASAN
    /* Frames that never returned (a suspended coroutine) leave poisoned
     * shadow behind; the next owner of this memory must not inherit it. */
    __asan_unpoison_memory_region((char *)s->map + s->guard, s->map_size - s->guard);
#endif
    if (s->map_size == default_usable + CFA_STACK_GUARD) {
        struct pooled *p = (struct pooled *)((char *)s->map + CFA_STACK_GUARD);
        p->memcheck_id = s->memcheck_id;
        struct cfa_processor_state *proc = this_processor();
        if (proc && proc->stack_cached < CACHE_LIMIT) {
            p->next = proc->stack_cache;
            proc->stack_cache = p;
            proc->stack_cached++;
            memset(s, 0, sizeof *s);
            return;
        }
        if (pool_put(p)) {
            memset(s, 0, sizeof *s);
            return;
        }
    }
    unmap_stack(s->map, s->map_size, s->memcheck_id);
    memset(s, 0, sizeof *s);
}

void stack_cache_flush(struct cfa_processor_state *proc)
{
    while (proc->stack_cache) {
        struct pooled *p = proc->stack_cache;
        proc->stack_cache = p->next;
        proc->stack_cached--;
        if (!pool_put(p))
            unmap_stack((char *)p - CFA_STACK_GUARD, default_usable + CFA_STACK_GUARD, p->memcheck_id);
    }
}
