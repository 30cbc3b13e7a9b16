/* Bump arena over caller memory: overflow-checked, alignment by address. */
#include "util/arena.h"

#include <stdalign.h>
#include <stdint.h>

void tosac_arena_init(tosac_arena *a, void *base, size_t size)
{
    a->base = base;
    a->size = base ? size : 0;
    a->used = a->high = a->n_allocs = 0;
}

void *tosac_arena_alloc(tosac_arena *a, size_t bytes, size_t align)
{
    if (!align)
        align = alignof(max_align_t);
    if (!a || !a->base || (align & (align - 1)))
        return NULL;
    uintptr_t cur = (uintptr_t)a->base + a->used;
    size_t pad = (size_t)((align - (cur & (align - 1))) & (align - 1));
    size_t room = a->size - a->used;
    if (pad > room || bytes > room - pad)
        return NULL;
    a->used += pad + bytes;
    if (a->used > a->high)
        a->high = a->used;
    a->n_allocs++;
    return a->base + (a->used - bytes);
}

void tosac_arena_reset(tosac_arena *a)
{
    a->used = 0;
}

static void *arena_alloc_fn(void *user, size_t bytes, size_t align)
{
    return tosac_arena_alloc(user, bytes, align);
}

static void arena_release_fn(void *user, void *ptr)
{
    (void)user;
    (void)ptr;
}

tosac_allocator tosac_arena_allocator(tosac_arena *a)
{
    tosac_allocator r = {arena_alloc_fn, arena_release_fn, a};
    return r;
}
