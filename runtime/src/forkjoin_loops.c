/* forkjoin_loops.c: parallel_for and parallel_reduce on the tasks of
 * forkjoin.c (docs/forkjoin.md).
 *
 * parallel_for splits lazily: a range task keeps halving its range, pushes
 * the upper half as a task of the loop's one group and goes on with the
 * lower half, until the range is at most `chunk` long; then it calls the
 * body. chunk = max(grain, range / (LEAVES_PER_PROCESSOR * processors)),
 * so a loop makes a few tasks per processor whatever its length (a
 * 1,000,000-index loop on 2 processors: 16 leaves, 15 spawns), and the
 * deques hold at most log2(range / chunk) records per thread. On one
 * processor a loop is one leaf, run by the caller.
 *
 * A leaf calls the body on pieces of max(grain, chunk / LEAF_PIECES)
 * indices, and before each piece, if the caller's deque is empty, it
 * pushes the upper half of what is left (lazy binary splitting, Tzannes
 * et al., PPoPP 2010). An empty deque is what a thief that ran out of
 * work would find; without the split, the loop's end waits for the last
 * whole leaf while the other processors have nothing to do. Pieces
 * shorter than PIECE_MIN_TSC are not worth it: the loop's leaves are
 * then one call each.
 *
 * parallel_reduce runs parallel_for over a fixed partition into K parts
 * (K <= LEAVES_PER_PROCESSOR * processors unless grain asks for more, and
 * never more than MAX_ACCUMULATORS), part i into accumulator i, then
 * combines the accumulators in index order on the caller.
 *
 * Invariant: the leaves of one loop are disjoint and cover [lo, hi)
 * (split points are strictly inside the range being split).
 */
#include "forkjoin.h"

#include <cfa/forkjoin.h>
#include <cfa/runtime.h>
#include <stdlib.h>
#include <string.h>

enum {
    LEAVES_PER_PROCESSOR = 8, /* docs/scheduler.md#tunables */
    LEAF_PIECES = 8,          /* docs/scheduler.md#tunables */
    PIECE_MIN_TSC = 1u << 13, /* docs/scheduler.md#tunables */
    MAX_ACCUMULATORS = 4096,  /* docs/scheduler.md#tunables */
};

struct loop {
    void (*body)(int64_t first, int64_t last, void *arg);
    void   *arg;
    int64_t chunk;
    int64_t piece;  /* a leaf's body call; <= chunk */
    _Atomic int pieces; /* PIECES_UNKNOWN until a leaf timed its first piece */
};

enum { PIECES_UNKNOWN = -1, PIECES_NO = 0, PIECES_YES = 1 };

static void range_task(struct fj_task *t);

static uint64_t span(int64_t first, int64_t last) { return (uint64_t)last - (uint64_t)first; }

/* Pushes the upper half of [first, last) as a task; returns where the
 * lower half, the caller's, ends. */
static int64_t split_off_upper(struct loop *L, cfa_task_group *g, int64_t first, int64_t last)
{
    int64_t mid = first + (int64_t)(span(first, last) / 2);
    fj_spawn(range_task, g, (uintptr_t)L, mid, last);
    return mid;
}

/* A leaf of at most chunk indices: the body piece by piece; the upper
 * half of what is left goes to the deque whenever the deque is empty.
 * The first leaf to time a piece decides for the loop: under
 * PIECE_MIN_TSC a whole leaf is short, and the checks and calls would
 * cost more than the balance they buy (a loop of a few hundred
 * nanoseconds would then rather run on one thread than on two), so
 * leaves are one call from then on. */
static void run_leaf(struct loop *L, cfa_task_group *g, int64_t first, int64_t last)
{
    int pieces = atomic_load_explicit(&L->pieces, memory_order_relaxed);
    if (pieces == PIECES_NO || span(first, last) <= (uint64_t)L->piece) {
        L->body(first, last, L->arg);
        return;
    }
    if (pieces == PIECES_UNKNOWN) {
        uint64_t start = __builtin_ia32_rdtsc();
        L->body(first, first + L->piece, L->arg);
        first += L->piece;
        bool worth = __builtin_ia32_rdtsc() - start >= PIECE_MIN_TSC;
        atomic_store_explicit(&L->pieces, worth ? PIECES_YES : PIECES_NO, memory_order_relaxed);
        if (!worth) {
            L->body(first, last, L->arg);
            return;
        }
    }
    while (span(first, last) > (uint64_t)L->piece) {
        if (span(first, last) >= 2 * (uint64_t)L->piece && fj_own_deque_empty()) {
            last = split_off_upper(L, g, first, last);
        } else {
            L->body(first, first + L->piece, L->arg);
            first += L->piece;
        }
    }
    L->body(first, last, L->arg);
}

/* [first, last) of a loop; spawned as a task with a = loop, b = first,
 * c = last. */
static void run_range(struct loop *L, cfa_task_group *g, int64_t first, int64_t last)
{
    while (span(first, last) > (uint64_t)L->chunk)
        last = split_off_upper(L, g, first, last);
    run_leaf(L, g, first, last);
}

static void range_task(struct fj_task *t)
{
    run_range((struct loop *)t->a, fj_task_group(t), t->b, t->c);
}

/* One leaf when the cluster has one processor (or the caller none): no
 * other processor could run a second one, and a split costs a spawn and
 * a pop per leaf for nothing. */
static int64_t chunk_for(uint64_t n, int64_t grain, unsigned processors)
{
    uint64_t parts = processors > 1 ? (uint64_t)LEAVES_PER_PROCESSOR * processors : 1;
    uint64_t chunk = (n + parts - 1) / parts;
    if (grain > 0 && chunk < (uint64_t)grain)
        chunk = (uint64_t)grain;
    return chunk > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)chunk;
}

void cfa_parallel_for(int64_t lo, int64_t hi, int64_t grain,
                      void (*body)(int64_t first, int64_t last, void *arg), void *arg)
{
    if (hi <= lo)
        return;
    unsigned processors = fj_processors();
    uint64_t n = (uint64_t)hi - (uint64_t)lo;
    int64_t chunk = chunk_for(n, grain, processors); /* >= grain */
    int64_t piece = chunk / LEAF_PIECES + (chunk % LEAF_PIECES != 0);
    struct loop L = { body, arg, chunk, piece > grain ? piece : grain, PIECES_UNKNOWN };
    if (n <= (uint64_t)L.chunk) {
        body(lo, hi, arg);
        return;
    }
    cfa_task_group g;
    cfa_task_group_init(&g);
    run_range(&L, &g, lo, hi);
    cfa_task_group_wait(&g);
}

struct reduce {
    int64_t     lo, hi, part;   /* part i: [lo + i*part, min(lo + (i+1)*part, hi)) */
    const void *identity;
    size_t      size, stride;
    char       *accs;
    void (*body)(int64_t first, int64_t last, void *acc, void *arg);
    void       *arg;
};

static void reduce_parts(int64_t first, int64_t last, void *arg)
{
    struct reduce *R = arg;
    for (int64_t i = first; i < last; i++) {
        void *acc = R->accs + (size_t)i * R->stride;
        memcpy(acc, R->identity, R->size);
        int64_t from = R->lo + i * R->part;
        int64_t to = R->hi - from > R->part ? from + R->part : R->hi;
        R->body(from, to, acc, R->arg);
    }
}

void cfa_parallel_reduce(int64_t lo, int64_t hi, int64_t grain,
                         const void *identity, void *result, size_t size,
                         void (*body)(int64_t first, int64_t last, void *acc, void *arg),
                         void (*combine)(void *into, const void *from, void *arg), void *arg)
{
    if (hi <= lo) {
        memmove(result, identity, size);
        return;
    }
    uint64_t n = (uint64_t)hi - (uint64_t)lo;
    uint64_t part = (uint64_t)chunk_for(n, grain, fj_processors());
    if (part < (n + MAX_ACCUMULATORS - 1) / MAX_ACCUMULATORS)
        part = (n + MAX_ACCUMULATORS - 1) / MAX_ACCUMULATORS;
    int64_t parts = (int64_t)((n + part - 1) / part);
    size_t stride = (size + 63) & ~(size_t)63; /* no false sharing between parts */
    struct reduce R = { lo, hi, (int64_t)part, identity, size, stride, NULL, body, arg };
    if (parts > 1)
        R.accs = aligned_alloc(64, (size_t)parts * stride);
    if (!R.accs) { /* one part, or no memory for more: sequential */
        memmove(result, identity, size);
        body(lo, hi, result, arg);
        return;
    }
    cfa_parallel_for(0, parts, 1, reduce_parts, &R);
    memcpy(result, R.accs, size);
    for (int64_t i = 1; i < parts; i++)
        combine(result, R.accs + (size_t)i * stride, arg);
    free(R.accs);
}
