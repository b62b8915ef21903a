/* cache_aligned.h: zeroed allocations on their own cache lines, for the
 * runtime's per-processor and per-cluster objects, which other processors
 * read while their owner writes them. */
#ifndef CFA_CACHE_ALIGNED_H
#define CFA_CACHE_ALIGNED_H

#include <stdlib.h>
#include <string.h>

/* Zeroed memory on its own cache lines (no false sharing with neighbours);
 * NULL when out of memory. */
static inline void *cache_aligned_zalloc(size_t size)
{
    size = (size + 63) & ~(size_t)63;
    void *p = aligned_alloc(64, size);
    if (p)
        memset(p, 0, size);
    return p;
}

#endif
