/* Integer pooling windows, the portable twin and dispatch (see pool.h). */
#include "ukernels/pool.h"

static void max_i8(const int8_t *win, size_t row, int wy, int wx, int C, int8_t *out)
{
    POOL_MAX_BODY(int8_t)
}

static void max_i16(const int16_t *win, size_t row, int wy, int wx, int C, int16_t *out)
{
    POOL_MAX_BODY(int16_t)
}

static void avg_i8(const int8_t *win, size_t row, int wy, int wx, int C, int32_t *acc,
                   const pool_avg_params *p, int8_t *out)
{
    POOL_AVG_BODY(int8_t)
}

static void avg_i16(const int16_t *win, size_t row, int wy, int wx, int C, int32_t *acc,
                    const pool_avg_params *p, int16_t *out)
{
    POOL_AVG_BODY(int16_t)
}

const pool_fns pool_fns_portable = {max_i8, max_i16, avg_i8, avg_i16};

const pool_fns *pool_select(void)
{
    switch (kern_isa_active()) {
#if KERN_HAVE_AVX2_TWIN
    case KERN_ISA_AVX2:
    case KERN_ISA_AVX512VNNI: return &pool_fns_avx2;
#endif
    default: return &pool_fns_portable;
    }
}
