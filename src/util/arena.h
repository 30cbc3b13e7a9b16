/* A bump arena over caller memory (runtime-safe). Allocations are never freed one by one:
 * the arena is reset or dropped as a whole. */
#ifndef TOSAC_UTIL_ARENA_H
#define TOSAC_UTIL_ARENA_H

#include <stddef.h>

#include "util/alloc.h"

typedef struct tosac_arena {
    unsigned char *base;
    size_t size, used, high; /* high: the most ever used (high-water mark) */
    size_t n_allocs;         /* successful allocations */
} tosac_arena;

void tosac_arena_init(tosac_arena *a, void *base, size_t size);
/* align: power of two (0: alignof(max_align_t)), relative to the address, not to base.
 * NULL when full or on invalid arguments; a failed call leaves the arena unchanged.
 * bytes 0 returns an aligned pointer into the arena without consuming space. */
void *tosac_arena_alloc(tosac_arena *a, size_t bytes, size_t align);
/* back to empty (high and n_allocs are kept) */
void tosac_arena_reset(tosac_arena *a);
/* an allocator over the arena; release is a no-op */
tosac_allocator tosac_arena_allocator(tosac_arena *a);

#endif
