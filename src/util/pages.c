/* tosac_pages_alloc: an anonymous mapping on POSIX hosts, aligned_alloc elsewhere. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "util/pages.h"

#include <stdlib.h>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#endif

#if defined(MAP_ANONYMOUS) && !defined(TOSAC_PAGES_LIBC)
void *tosac_pages_alloc(size_t n)
{
    void *p = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void tosac_pages_free(void *p, size_t n)
{
    if (p)
        munmap(p, n ? n : 1);
}
#else
void *tosac_pages_alloc(size_t n) { return aligned_alloc(4096, (n + 4095) / 4096 * 4096 + 4096 * !n); }

void tosac_pages_free(void *p, size_t n)
{
    (void)n;
    free(p);
}
#endif
