/* The libc allocator behind the seam (compiler side only; not in the runtime library). */
#include "util/alloc.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>

static void *libc_alloc(void *user, size_t bytes, size_t align)
{
    (void)user;
    if (!bytes)
        bytes = 1; /* malloc(0) may return NULL: callers treat NULL as exhaustion */
    if (align <= alignof(max_align_t))
        return malloc(bytes);
    /* aligned_alloc wants a size that is a multiple of the alignment */
    if (bytes > SIZE_MAX - (align - 1))
        return NULL;
    return aligned_alloc(align, (bytes + align - 1) & ~(align - 1));
}

static void libc_release(void *user, void *ptr)
{
    (void)user;
    free(ptr);
}

const tosac_allocator *tosac_libc_allocator(void)
{
    static const tosac_allocator a = {libc_alloc, libc_release, NULL};
    return &a;
}
