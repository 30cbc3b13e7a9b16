/* The one element reader (util/elem.h). */
#include "util/elem.h"

#include <math.h>

#include "util/fp.h"

int64_t tosac_f64_to_i64_sat(double v)
{
    if (isnan(v))
        return 0;
    /* 2^63 is exact in double; every double below it converts without overflow */
    if (v >= 9223372036854775808.0)
        return INT64_MAX;
    if (v <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)v;
}

/* The integer dtypes; *ok = 0 for the others. */
static int64_t int_elem(tosac_dtype dt, const void *p, int64_t i, int *ok)
{
    *ok = 1;
    switch (dt) {
    case TOSAC_DT_BOOL:
    case TOSAC_DT_U8: return ((const uint8_t *)p)[i];
    case TOSAC_DT_I4:
    case TOSAC_DT_I8: return ((const int8_t *)p)[i];
    case TOSAC_DT_U16: return ((const uint16_t *)p)[i];
    case TOSAC_DT_I16: return ((const int16_t *)p)[i];
    case TOSAC_DT_U32: return ((const uint32_t *)p)[i];
    case TOSAC_DT_I32: return ((const int32_t *)p)[i];
    case TOSAC_DT_I48:
    case TOSAC_DT_I64:
    case TOSAC_DT_SHAPE: return ((const int64_t *)p)[i];
    case TOSAC_DT_U64: {
        /* two's complement reinterpretation, spelled without the implementation-defined
         * conversion of an out-of-range unsigned value */
        uint64_t u = ((const uint64_t *)p)[i];
        return u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)(UINT64_MAX - u) - 1;
    }
    default: *ok = 0; return 0;
    }
}

bool tosac_elem_reads_int(tosac_dtype dt)
{
    int ok;
    static const uint64_t zero = 0;
    int_elem(dt, &zero, 0, &ok);
    return ok;
}

bool tosac_elem_reads_float(tosac_dtype dt)
{
    switch (dt) {
    case TOSAC_DT_F16:
    case TOSAC_DT_BF16:
    case TOSAC_DT_F32:
    case TOSAC_DT_F64:
    case TOSAC_DT_FP8E4M3:
    case TOSAC_DT_FP8E5M2: return true;
    default: return false;
    }
}

double tosac_elem_f64(tosac_dtype dt, const void *p, int64_t i)
{
    switch (dt) {
    case TOSAC_DT_F32: return ((const float *)p)[i];
    case TOSAC_DT_F64: return ((const double *)p)[i];
    case TOSAC_DT_F16: return tosac_f16_to_f32(((const uint16_t *)p)[i]);
    case TOSAC_DT_BF16: return tosac_bf16_to_f32(((const uint16_t *)p)[i]);
    case TOSAC_DT_FP8E4M3: return tosac_fp8e4m3_to_f32(((const uint8_t *)p)[i]);
    case TOSAC_DT_FP8E5M2: return tosac_fp8e5m2_to_f32(((const uint8_t *)p)[i]);
    case TOSAC_DT_U64: return (double)((const uint64_t *)p)[i];
    default: {
        int ok;
        int64_t v = int_elem(dt, p, i, &ok);
        return ok ? (double)v : 0.0;
    }
    }
}

int64_t tosac_elem_i64(tosac_dtype dt, const void *p, int64_t i)
{
    int ok;
    int64_t v = int_elem(dt, p, i, &ok);
    if (ok)
        return v;
    return tosac_elem_reads_float(dt) ? tosac_f64_to_i64_sat(tosac_elem_f64(dt, p, i)) : 0;
}
