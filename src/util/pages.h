/* Page-granular memory for the compile-time measuring arenas (host side only). */
#ifndef TOSAC_UTIL_PAGES_H
#define TOSAC_UTIL_PAGES_H

#include <stddef.h>

/* n bytes, page-aligned (4096 or more), of which only the pages touched take memory: an
 * arena whose packed weights' room is reserved but never written (measure-only runtime).
 * Mapped apart from the heap, so a heap the CLI gives huge pages does not fault 2 MB for
 * each small write. NULL when out of memory. */
void *tosac_pages_alloc(size_t n);
/* Releases p from tosac_pages_alloc(n) (NULL is ignored). */
void tosac_pages_free(void *p, size_t n);

#endif
