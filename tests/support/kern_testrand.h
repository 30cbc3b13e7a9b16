/* Deterministic pseudo-random floats for the kernel fast-path tests (xorshift64), so every
 * run checks the same values. */
#ifndef TOSAC_TESTS_KERN_TESTRAND_H
#define TOSAC_TESTS_KERN_TESTRAND_H

#include <stdint.h>
#include <stdlib.h>

static uint64_t g_seed = 0x9e3779b97f4a7c15u;

/* Uniform in [-1, 1). */
static inline float frand(void)
{
    g_seed ^= g_seed << 13;
    g_seed ^= g_seed >> 7;
    g_seed ^= g_seed << 17;
    return (float)((double)(g_seed >> 11) / 9007199254740992.0 * 2 - 1);
}

/* n random floats, malloc'd (at least one element). */
static inline float *rand_vec(int64_t n)
{
    float *v = malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
    if (v)
        for (int64_t i = 0; i < n; i++)
            v[i] = frand();
    return v;
}

#endif
