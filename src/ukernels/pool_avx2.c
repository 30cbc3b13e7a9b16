/* Integer pooling windows, the AVX2 twin: pool.h's bodies compiled with the avx2 target. */
#include "ukernels/pool.h"

#if KERN_HAVE_AVX2_TWIN
KERN_AVX2_ATTR static void max_i8(const int8_t *win, size_t row, int wy, int wx, int C,
                                  int8_t *out)
{
    POOL_MAX_BODY(int8_t)
}

KERN_AVX2_ATTR static void max_i16(const int16_t *win, size_t row, int wy, int wx, int C,
                                   int16_t *out)
{
    POOL_MAX_BODY(int16_t)
}

KERN_AVX2_ATTR static void avg_i8(const int8_t *win, size_t row, int wy, int wx, int C,
                                  int32_t *acc, const pool_avg_params *p, int8_t *out)
{
    POOL_AVG_BODY(int8_t)
}

KERN_AVX2_ATTR static void avg_i16(const int16_t *win, size_t row, int wy, int wx, int C,
                                   int32_t *acc, const pool_avg_params *p, int16_t *out)
{
    POOL_AVG_BODY(int16_t)
}

const pool_fns pool_fns_avx2 = {max_i8, max_i16, avg_i8, avg_i16};
#endif
