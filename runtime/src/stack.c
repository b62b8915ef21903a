/* stack.c: where thread and coroutine stacks come from, how they are
 * guarded against overflow, and how they are reused.
 *
 * Layout. A stack of the default size is a slot carved from a region: one
 * mapping of REGION_SLOTS slots, each a guard area of STACK_GUARD_BYTES
 * bytes below the usable stack, so that a million stacks cost thousands
 * of mappings, not millions (Linux allows vm.max_map_count, 65,530 by
 * default, per process). A slot is never unmapped. A stack of another size
 * is a mapping of its own, unmapped when released.
 *
 * Guard, chosen once per stack when its memory is first set up and kept
 * for the stack's life (CFA_STACK_GUARD; docs/configuration.md, "Stacks"):
 *  1. `auto`: guard pages by madvise(MADV_GUARD_INSTALL) (Linux 6.13+),
 *     which do not split the mapping, a region's all at once
 *     (guard_region); a kernel without it falls back to 2.
 *  2. `protect`: guard pages by mprotect(PROT_NONE), which splits the
 *     mapping: two mappings a stack, while the stacks' mappings stay within
 *     CFA_STACK_GUARD_MAPS (default half of vm.max_map_count); later stacks
 *     get 3.
 *  3. `canary`: no guard page. The guard area stays mapped and untouched,
 *     so it reads as zero and costs no memory, and every switch away from
 *     the stack checks that its top CANARY_BYTES still are zero
 *     (stack_check_canary): an overflow that stays within the guard area
 *     is reported, naming the thread, at its next switch, before it
 *     reaches another stack.
 *
 * Reuse, fastest first: the processor's cache (`stack_cache`, CACHE_LIMIT
 * stacks, touched only on its kernel thread and without a lock: runtime
 * code is never preempted), the warm pool (WARM_LIMIT stacks that keep
 * their memory), the cold list (slots whose memory went back to the kernel
 * by MADV_DONTNEED in batches of TRIM_BATCH; guard pages survive it), a
 * fresh slot. Warm stacks (and those waiting to be trimmed) are
 * linked through a header at the top of their usable stack, the page a
 * thread has touched already; cold ones are listed in an array, not in
 * their (returned) memory. pool_lock guards everything but the caches.
 *
 * Under valgrind every stack is registered with memcheck while it is
 * mapped (slots from their carving on), so memcheck knows a switch to it
 * is a stack switch and not a huge stack-pointer move. Outside valgrind the
 * client requests are a few no-op instructions.
 */
#include "stack.h"
#include "context.h"
#include "processor.h"
#include "thread_internal.h"
#include "environment.h"
#include "spinlock.h"

#include <cfa/runtime.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include <valgrind/valgrind.h>

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif

enum {
    MIN_STACK = 16 * 1024, /* docs/scheduler.md#tunables */
    REGION_SLOTS = 256,    /* docs/scheduler.md#tunables */
    WARM_LIMIT = 1024,     /* docs/scheduler.md#tunables */
    TRIM_BATCH = 64,       /* docs/scheduler.md#tunables */
    CACHE_LIMIT = 8,       /* docs/scheduler.md#tunables */
    CANARY_BYTES = 64,     /* docs/scheduler.md#tunables */
    MPROTECT_MAPS = 2, /* a guard splits a mapping: guard and the rest */
};

/* A free stack's header, at the top of its usable stack. */
struct pooled { struct pooled *next; unsigned memcheck_id; bool canary; };
/* A cold slot: its memory is back with the kernel. */
struct cold_slot { char *map; unsigned memcheck_id; bool canary; };

enum page_guard { PAGES_UNTRIED, PAGES_MADVISE, PAGES_MPROTECT, PAGES_NONE };

static size_t default_usable; /* CFA_STACK_SIZE, set at boot */
static size_t slot_size;      /* default_usable + STACK_COLOUR_ROOM + STACK_GUARD_BYTES */
static size_t page_size = 4096;
static _Atomic int page_guard; /* enum page_guard: how guard pages are made */
static long maps_budget;       /* mappings that stacks may use with mprotect guards */

static _Atomic int pool_lock;

void stack_lock_for_fork(void) { spin_lock(&pool_lock); }
void stack_unlock_after_fork(void) { spin_unlock(&pool_lock); }
static struct pooled *warm;
static unsigned warm_count;
static struct pooled *trimming; /* free beyond WARM_LIMIT, memory not yet returned */
static unsigned trimming_count;
static struct cold_slot *cold;
static size_t cold_count, cold_capacity;
static char *region_next; /* next fresh slot of the newest region */
static unsigned region_left;
static bool region_guarded; /* its slots' guard pages are installed already */
static long maps_used;    /* mappings made for stacks: regions, own, split-offs */
static _Atomic unsigned long guarded_by_madvise, guarded_by_mprotect, canaried, slots_carved;
static _Atomic unsigned long trimmed, trim_ranges, trim_calls;

static size_t round_to_page(size_t n) { return (n + page_size - 1) & ~(page_size - 1); }

static long max_map_count(void)
{
    long n = 65530;
    FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
    if (f) {
        if (fscanf(f, "%ld", &n) != 1)
            n = 65530;
        fclose(f);
    }
    return n;
}

void stack_configure(void)
{
    page_size = (size_t)sysconf(_SC_PAGESIZE);
    default_usable = round_to_page(env_size(ENV_CFA_STACK_SIZE));
    slot_size = default_usable + STACK_COLOUR_ROOM + STACK_GUARD_BYTES;
    const char *guard = env_choice(ENV_CFA_STACK_GUARD);
    page_guard = strcmp(guard, "canary") == 0 ? PAGES_NONE
                 : strcmp(guard, "protect") == 0 ? PAGES_MPROTECT
                                                  : PAGES_UNTRIED;
    maps_budget = env_count(ENV_CFA_STACK_GUARD_MAPS);
    if (maps_budget == 0 && page_guard != PAGES_NONE)
        maps_budget = max_map_count() / 2;
}

size_t cfa_default_stack_size(void) { return default_usable; }

/* Charges `n` mappings to the stacks if `budgeted` is false or the budget
 * allows them; false when it does not. */
static bool charge_maps(long n, bool budgeted)
{
    spin_lock(&pool_lock);
    bool ok = !budgeted || maps_used + n <= maps_budget;
    if (ok)
        maps_used += n;
    spin_unlock(&pool_lock);
    return ok;
}

/* Guards the STACK_GUARD_BYTES bytes at `map` by the best means left
 * (header: the policy). Returns true when the stack is left to its
 * canary. */
static bool guard_stack(char *map)
{
    int how = atomic_load_explicit(&page_guard, memory_order_relaxed);
    if (how == PAGES_UNTRIED || how == PAGES_MADVISE) {
        if (madvise(map, STACK_GUARD_BYTES, MADV_GUARD_INSTALL) == 0) {
            if (how == PAGES_UNTRIED)
                atomic_store_explicit(&page_guard, PAGES_MADVISE, memory_order_relaxed);
            atomic_fetch_add_explicit(&guarded_by_madvise, 1, memory_order_relaxed);
            return false;
        }
        /* EINVAL: a kernel older than 6.13. Anything else: fall back too. */
        atomic_store_explicit(&page_guard, PAGES_MPROTECT, memory_order_relaxed);
        how = PAGES_MPROTECT;
    }
    if (how == PAGES_MPROTECT && charge_maps(MPROTECT_MAPS, true)) {
        if (mprotect(map, STACK_GUARD_BYTES, PROT_NONE) == 0) {
            atomic_fetch_add_explicit(&guarded_by_mprotect, 1, memory_order_relaxed);
            return false;
        }
        charge_maps(-MPROTECT_MAPS, false); /* ENOMEM: the program's own mappings took the room */
    }
    atomic_fetch_add_explicit(&canaried, 1, memory_order_relaxed);
    return true;
}

static bool guarded_by_mprotect_on(const struct cfa_stack *s)
{
    return !s->canary && atomic_load_explicit(&page_guard, memory_order_relaxed) == PAGES_MPROTECT;
}

static void *map_memory(size_t size)
{
    void *map = mmap(NULL, size, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (map == MAP_FAILED)
        cfa_fatal("cannot map %zu bytes of stacks: %s", size, strerror(errno));
    /* A transparent huge page would make 2 MiB resident for the one page
     * at the top of each of eight stacks (THP "always"). */
    madvise(map, size, MADV_NOHUGEPAGE);
    charge_maps(1, false);
    return map;
}

static void fill(struct cfa_stack *s, char *map, size_t size, unsigned memcheck_id, bool canary)
{
    s->map = map;
    s->map_size = size;
    s->guard = STACK_GUARD_BYTES;
    s->memcheck_id = memcheck_id;
    s->canary = canary;
}

/* A stack of a size other than the default: a mapping of its own. */
static void map_own(struct cfa_stack *s, size_t usable)
{
    size_t size = usable + STACK_COLOUR_ROOM + STACK_GUARD_BYTES;
    char *map = map_memory(size);
    bool canary = guard_stack(map);
    fill(s, map, size, VALGRIND_STACK_REGISTER(map + STACK_GUARD_BYTES, map + size), canary);
}

static void unmap_own(struct cfa_stack *s)
{
    VALGRIND_STACK_DEREGISTER(s->memcheck_id);
    munmap(s->map, s->map_size);
    charge_maps(-(1 + (guarded_by_mprotect_on(s) ? MPROTECT_MAPS : 0)), false);
}

static struct pooled *header_of(char *map) { return (struct pooled *)(map + slot_size) - 1; }
static char *slot_of(struct pooled *p) { return (char *)(p + 1) - slot_size; }

static void take_pooled(struct cfa_stack *s, struct pooled *p)
{
    fill(s, slot_of(p), slot_size, p->memcheck_id, p->canary);
}

/* Gives the same advice on n ranges of this process in one system call
 * (process_madvise, Linux 5.10; MADV_GUARD_INSTALL from 6.13, MADV_DONTNEED
 * from 6.13 too): one TLB flush for all of them where the kernel batches
 * it. Returns the bytes advised, from the first range on, or -1 when the
 * kernel cannot. */
static long advise_ranges(const struct iovec *ranges, unsigned n, int advice)
{
    int self = (int)syscall(SYS_pidfd_open, getpid(), 0);
    if (self < 0)
        return -1;
    long done = syscall(SYS_process_madvise, self, ranges, n, advice, 0);
    close(self);
    return done;
}

/* Installs the guard pages of every slot of a new region in one system
 * call (process_madvise with one range a slot, Linux 6.13+) instead of
 * one madvise a stack; false when the kernel cannot (the slots are then
 * guarded one by one as they are carved). */
static bool guard_region(char *region)
{
    if (atomic_load_explicit(&page_guard, memory_order_relaxed) == PAGES_MPROTECT ||
        atomic_load_explicit(&page_guard, memory_order_relaxed) == PAGES_NONE)
        return false;
    struct iovec ranges[REGION_SLOTS];
    for (unsigned i = 0; i < REGION_SLOTS; i++)
        ranges[i] = (struct iovec){ region + i * slot_size, STACK_GUARD_BYTES };
    if (advise_ranges(ranges, REGION_SLOTS, MADV_GUARD_INSTALL) != (long)REGION_SLOTS * STACK_GUARD_BYTES)
        return false;
    atomic_store_explicit(&page_guard, PAGES_MADVISE, memory_order_relaxed);
    return true;
}

/* Under pool_lock: a fresh slot, mapping a new region when the last is
 * used up; *guarded tells whether its guard pages are in place. */
static char *carve_slot(bool *guarded)
{
    if (region_left == 0) {
        spin_unlock(&pool_lock); /* map without holding others up */
        char *region = map_memory(slot_size * REGION_SLOTS);
        bool preguarded = guard_region(region);
        spin_lock(&pool_lock);
        if (region_left != 0) { /* another processor mapped one meanwhile */
            spin_unlock(&pool_lock);
            munmap(region, slot_size * REGION_SLOTS);
            charge_maps(-1, false);
            spin_lock(&pool_lock);
        } else {
            region_next = region;
            region_left = REGION_SLOTS;
            region_guarded = preguarded;
        }
    }
    char *slot = region_next;
    region_next += slot_size;
    region_left--;
    *guarded = region_guarded;
    return slot;
}

void stack_acquire(struct cfa_stack *s, size_t usable)
{
    usable = usable ? round_to_page(usable < MIN_STACK ? MIN_STACK : usable) : default_usable;
    if (usable != default_usable) {
        map_own(s, usable);
        return;
    }
    struct cfa_processor_state *proc = this_processor();
    struct pooled *p = proc ? proc->stack_cache : NULL;
    if (p) {
        proc->stack_cache = p->next;
        proc->stack_cached--;
        take_pooled(s, p);
        return;
    }
    spin_lock(&pool_lock);
    if ((p = warm) || (p = trimming)) {
        if (p == warm) {
            warm = p->next;
            warm_count--;
        } else {
            trimming = p->next;
            trimming_count--;
        }
        spin_unlock(&pool_lock);
        take_pooled(s, p);
        return;
    }
    if (cold_count) {
        struct cold_slot c = cold[--cold_count];
        spin_unlock(&pool_lock);
        fill(s, c.map, slot_size, c.memcheck_id, c.canary);
        return;
    }
    bool guarded;
    char *slot = carve_slot(&guarded);
    spin_unlock(&pool_lock);
    atomic_fetch_add_explicit(&slots_carved, 1, memory_order_relaxed);
    bool canary = false;
    if (guarded)
        atomic_fetch_add_explicit(&guarded_by_madvise, 1, memory_order_relaxed);
    else
        canary = guard_stack(slot);
    fill(s, slot, slot_size, VALGRIND_STACK_REGISTER(slot + STACK_GUARD_BYTES, slot + slot_size), canary);
}

/* Under pool_lock: appends a slot to the cold list. */
static void cold_push(char *map, unsigned memcheck_id, bool canary)
{
    if (cold_count == cold_capacity) {
        size_t capacity = cold_capacity ? 2 * cold_capacity : 1024;
        struct cold_slot *grown = realloc(cold, capacity * sizeof *cold);
        if (!grown) {
            spin_unlock(&pool_lock);
            cfa_fatal("out of memory listing %zu free stacks", cold_count);
        }
        cold = grown;
        cold_capacity = capacity;
    }
    cold[cold_count++] = (struct cold_slot){ map, memcheck_id, canary };
}

static int by_address(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)*(char *const *)a, y = (uintptr_t)*(char *const *)b;
    return (x > y) - (x < y);
}

/* Returns the memory of a batch of TRIM_BATCH free slots to the kernel and
 * lists them cold. Sorted, neighbouring slots (the common case: threads
 * created together end together) form one range, guard areas included:
 * guard pages survive MADV_DONTNEED, an untouched guard area stays zero.
 * The ranges go back in one process_madvise where the kernel allows it,
 * else one madvise a range: each call is a TLB flush on every CPU running
 * the program, an interprocessor interrupt per CPU (docs/performance.md, "A million
 * threads"). */
static void trim(struct pooled *batch)
{
    char *slots[TRIM_BATCH];
    struct pooled headers[TRIM_BATCH];
    struct iovec runs[TRIM_BATCH];
    unsigned n = 0, nruns = 0;
    for (struct pooled *p = batch; p && n < TRIM_BATCH; p = p->next, n++)
        slots[n] = slot_of(p);
    qsort(slots, n, sizeof *slots, by_address);
    for (unsigned i = 0; i < n; i++)
        headers[i] = *header_of(slots[i]);
    for (unsigned i = 0; i < n;) {
        unsigned j = i + 1;
        while (j < n && slots[j] == slots[j - 1] + slot_size)
            j++;
        char *from = slots[i] + STACK_GUARD_BYTES;
        runs[nruns++] = (struct iovec){ from, (size_t)(slots[j - 1] + slot_size - from) };
        i = j;
    }
    static _Atomic bool batch_refused;
    unsigned advised = 0;
    if (nruns > 1 && !atomic_load_explicit(&batch_refused, memory_order_relaxed)) {
        long done = advise_ranges(runs, nruns, MADV_DONTNEED);
        if (done < 0)
            atomic_store_explicit(&batch_refused, true, memory_order_relaxed);
        for (; advised < nruns && done >= (long)runs[advised].iov_len; advised++)
            done -= (long)runs[advised].iov_len;
    }
    for (unsigned i = advised; i < nruns; i++)
        madvise(runs[i].iov_base, runs[i].iov_len, MADV_DONTNEED);
    atomic_fetch_add_explicit(&trimmed, n, memory_order_relaxed);
    atomic_fetch_add_explicit(&trim_ranges, nruns, memory_order_relaxed);
    atomic_fetch_add_explicit(&trim_calls, (advised > 0) + (nruns - advised), memory_order_relaxed);
    spin_lock(&pool_lock);
    for (unsigned i = 0; i < n; i++)
        cold_push(slots[i], headers[i].memcheck_id, headers[i].canary);
    spin_unlock(&pool_lock);
}

/* Returns the slot of header p to the warm pool; past WARM_LIMIT, to the
 * trim batch, whose memory goes back to the kernel when it is full. */
static void pool_put(struct pooled *p)
{
    spin_lock(&pool_lock);
    if (warm_count < WARM_LIMIT) {
        p->next = warm;
        warm = p;
        warm_count++;
        spin_unlock(&pool_lock);
        return;
    }
    p->next = trimming;
    trimming = p;
    struct pooled *batch = NULL;
    if (++trimming_count == TRIM_BATCH) {
        batch = trimming;
        trimming = NULL;
        trimming_count = 0;
    }
    spin_unlock(&pool_lock);
    if (batch)
        trim(batch);
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
    if (s->map_size != slot_size) {
        unmap_own(s);
        memset(s, 0, sizeof *s);
        return;
    }
    struct pooled *p = header_of(s->map);
    p->memcheck_id = s->memcheck_id;
    p->canary = s->canary;
    memset(s, 0, sizeof *s);
    struct cfa_processor_state *proc = this_processor();
    if (proc && proc->stack_cached < CACHE_LIMIT) {
        p->next = proc->stack_cache;
        proc->stack_cache = p;
        proc->stack_cached++;
        return;
    }
    pool_put(p);
}

void stack_cache_flush(struct cfa_processor_state *proc)
{
    while (proc->stack_cache) {
        struct pooled *p = proc->stack_cache;
        proc->stack_cache = p->next;
        proc->stack_cached--;
        pool_put(p);
    }
}

CFA_STACK_CHECK_CONVENTION void stack_check_canary(const struct cfa_coroutine *c)
{
    const unsigned long *canary = (const unsigned long *)((char *)c->stack.map + c->stack.guard) -
                                  CANARY_BYTES / sizeof(long);
    unsigned long seen = 0;
    for (unsigned i = 0; i < CANARY_BYTES / sizeof(long); i++)
        seen |= canary[i];
    if (seen == 0)
        return;
    const char *name = c->name ? c->name : c->type_name ? c->type_name : "(unnamed)";
    const char *what = this_thread() && c == &this_thread()->self ? "thread" : "coroutine";
    cfa_fatal("stack overflow in %s %s (type %s), found at its context switch: the stack has no guard "
              "page (CFA_STACK_GUARD) and wrote below its %zu usable bytes",
              what, name, c->type_name ? c->type_name : "?", c->stack.map_size - c->stack.guard);
}

void stack_counts(struct stack_counts *out)
{
    out->carved = atomic_load(&slots_carved);
    out->guarded_madvise = atomic_load(&guarded_by_madvise);
    out->guarded_mprotect = atomic_load(&guarded_by_mprotect);
    out->canary = atomic_load(&canaried);
    out->trimmed = atomic_load(&trimmed);
    out->trim_ranges = atomic_load(&trim_ranges);
    out->trim_calls = atomic_load(&trim_calls);
    spin_lock(&pool_lock);
    out->warm = warm_count;
    out->cold = cold_count;
    out->maps = maps_used;
    out->maps_budget = maps_budget;
    spin_unlock(&pool_lock);
}
