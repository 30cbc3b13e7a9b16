/* The allocator type of the allocation seam (helpers in src/util/alloc.h): code that the
 * runtime links allocates only through a tosac_allocator it is given.
 * Plain data by design: the caller supplies the callbacks. */
#ifndef TOSAC_ALLOC_H
#define TOSAC_ALLOC_H

#include <stddef.h>

typedef struct tosac_allocator {
    void *(*alloc)(void *user, size_t bytes, size_t align); /* NULL when exhausted */
    void (*release)(void *user, void *ptr);                  /* NULL ptr ok; arena: no-op */
    void *user;
} tosac_allocator;

#endif
