/* Allocation helpers over a tosac_allocator (runtime-safe: no libc allocator here). */
#include "util/alloc.h"

#include <stdalign.h>
#include <stdint.h>
#include <string.h>

static size_t fix_align(size_t align)
{
    return align ? align : alignof(max_align_t);
}

void *tosac_alloc(const tosac_allocator *a, size_t bytes, size_t align)
{
    align = fix_align(align);
    if (!a || !a->alloc || (align & (align - 1)))
        return NULL;
    return a->alloc(a->user, bytes, align);
}

void *tosac_alloc_zero(const tosac_allocator *a, size_t bytes, size_t align)
{
    void *p = tosac_alloc(a, bytes, align);
    if (p && bytes)
        memset(p, 0, bytes);
    return p;
}

void *tosac_alloc_array(const tosac_allocator *a, size_t n, size_t size, size_t align)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    return tosac_alloc(a, n * size, align);
}

void tosac_release(const tosac_allocator *a, void *ptr)
{
    if (a && a->release && ptr)
        a->release(a->user, ptr);
}
