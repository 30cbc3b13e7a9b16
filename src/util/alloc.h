/* The one allocation seam (as lua_Alloc): code that the runtime links allocates only
 * through a tosac_allocator it is given. The compiler passes tosac_libc_allocator();
 * the runtime passes a bump arena over caller memory (util/arena.h). */
#ifndef TOSAC_UTIL_ALLOC_H
#define TOSAC_UTIL_ALLOC_H

#include <stddef.h>

#include "tosac/alloc.h"

/* bytes 0 gives a valid unique-enough pointer (never dereferenced); align: power of two,
 * 0 means alignof(max_align_t). NULL when exhausted or the arguments are invalid. */
void *tosac_alloc(const tosac_allocator *a, size_t bytes, size_t align);
void *tosac_alloc_zero(const tosac_allocator *a, size_t bytes, size_t align);
/* n * size with an overflow check (NULL on overflow) */
void *tosac_alloc_array(const tosac_allocator *a, size_t n, size_t size, size_t align);
void tosac_release(const tosac_allocator *a, void *ptr);

/* compiler side only (util/alloc_libc.c is not in the runtime library) */
const tosac_allocator *tosac_libc_allocator(void);

#endif
