/* FNV-1a of a NUL-terminated string: the hash of the name indexes (not a secure hash). */
#ifndef TOSAC_UTIL_HASH_H
#define TOSAC_UTIL_HASH_H

#include <stddef.h>

static inline size_t tosac_hash_str(const char *s)
{
    size_t h = (size_t)1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * (size_t)1099511628211u;
    return h;
}

#endif
