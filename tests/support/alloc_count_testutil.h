/* Counting the allocator calls a test binary makes (test_runtime_api.c,
 * test_runtime_prepared.c): the binary is linked with
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=aligned_alloc,--wrap=free
 * (tests/CMakeLists.txt), so every call the libraries make goes through these wrappers, which
 * count while `counting` is set. Header-only: include it in the binary's one source file. */
#ifndef TOSAC_ALLOC_COUNT_TESTUTIL_H
#define TOSAC_ALLOC_COUNT_TESTUTIL_H

#include <stddef.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void *__real_aligned_alloc(size_t a, size_t n);
void __real_free(void *p);
static int counting;
static long n_alloc_calls;
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_aligned_alloc(size_t a, size_t n);
void __wrap_free(void *p);
void *__wrap_malloc(size_t n)
{
    n_alloc_calls += counting;
    return __real_malloc(n);
}
void *__wrap_calloc(size_t n, size_t m)
{
    n_alloc_calls += counting;
    return __real_calloc(n, m);
}
void *__wrap_realloc(void *p, size_t n)
{
    n_alloc_calls += counting;
    return __real_realloc(p, n);
}
void *__wrap_aligned_alloc(size_t a, size_t n)
{
    n_alloc_calls += counting;
    return __real_aligned_alloc(a, n);
}
void __wrap_free(void *p)
{
    n_alloc_calls += counting && p;
    __real_free(p);
}

#endif
