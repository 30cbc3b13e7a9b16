/* The spec's integer helpers. Every intermediate stays inside int64 by the REQUIREs checked
 * first, so no step overflows; right shifts of negative values are written as floor
 * divisions because C leaves >> of a negative number implementation-defined. */
#include "interp/interp_arith.h"

#include "tosac/tosa.h"

int arith_rescale_bits(tosac_dtype dt)
{
    switch (dt) {
    case TOSAC_DT_I8: return 8;
    case TOSAC_DT_I16: return 16;
    case TOSAC_DT_I32: return 32;
    case TOSAC_DT_I48: return 48;
    default: return 0;
    }
}

const char *arith_status_str(arith_status s)
{
    switch (s) {
    case ARITH_OK: return "ok";
    case ARITH_BAD_MULTIPLIER: return "multiplier < 0";
    case ARITH_BAD_SHIFT: return "shift outside 2..62";
    case ARITH_BAD_VALUE: return "value outside the range the shift allows";
    case ARITH_OVERFLOW: return "result outside the int32 range";
    }
    return "?";
}

/* floor(x / 2^s) for 0 <= s <= 63 and x > INT64_MIN. */
static int64_t floor_shift(int64_t x, int s)
{
    if (x >= 0)
        return x >> s;
    return -(((-x) - 1) >> s) - 1;
}

arith_status arith_apply_scale_32(int32_t value, int32_t multiplier, int shift,
                                  uint32_t rounding_mode, int32_t *out)
{
    if (multiplier < 0)
        return ARITH_BAD_MULTIPLIER;
    if (shift < 2 || shift > 62)
        return ARITH_BAD_SHIFT;
    int64_t lim = (int64_t)1 << (shift - 1);
    if (value < -lim || value >= lim)
        return ARITH_BAD_VALUE;
    int64_t round = lim;
    if (rounding_mode == TOSA_ROUND_DOUBLE && shift > 31)
        round += value >= 0 ? ((int64_t)1 << 30) : -((int64_t)1 << 30);
    /* |value * multiplier| < 2^62 and round <= 2^61 + 2^30: fits int64 */
    int64_t r = floor_shift((int64_t)value * multiplier + round, shift);
    /* |r| < 2^30 follows from the value REQUIRE; checked anyway, it costs nothing */
    if (r < INT32_MIN || r > INT32_MAX)
        return ARITH_OVERFLOW;
    *out = (int32_t)r;
    return ARITH_OK;
}

arith_status arith_apply_scale_16(int64_t value, int32_t multiplier, int shift, int32_t *out)
{
    if (multiplier < 0)
        return ARITH_BAD_MULTIPLIER;
    if (multiplier > INT16_MAX)
        return ARITH_BAD_VALUE;
    if (shift < 2 || shift > 62)
        return ARITH_BAD_SHIFT;
    if (!arith_in_i48(value))
        return ARITH_BAD_VALUE;
    /* |value| <= 2^47, multiplier < 2^15: |product| < 2^62, + 2^61 still fits */
    int64_t r = floor_shift(value * multiplier + ((int64_t)1 << (shift - 1)), shift);
    if (r < INT32_MIN || r > INT32_MAX)
        return ARITH_OVERFLOW;
    *out = (int32_t)r;
    return ARITH_OK;
}

arith_status arith_reciprocal_scale(uint32_t value, int32_t *multiplier, int *shift)
{
    if (value == 0)
        return ARITH_BAD_VALUE;
    int k = 32 - arith_clz32(value - 1); /* (1 << k) / 2 < value <= (1 << k) */
    int64_t numerator = (((int64_t)1 << 30) + 1) << k;
    *multiplier = (int32_t)(numerator / value);
    *shift = 30 + k;
    return ARITH_OK;
}

int64_t arith_min_s(int bits)
{
    return bits >= 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
}

int64_t arith_max_s(int bits)
{
    return bits >= 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;
}

int64_t arith_max_u(int bits)
{
    return bits >= 63 ? INT64_MAX : ((int64_t)1 << bits) - 1;
}

arith_status arith_add_s(int64_t a, int64_t b, int bits, int64_t *out)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r) || r < arith_min_s(bits) || r > arith_max_s(bits))
        return ARITH_OVERFLOW;
    *out = r;
    return ARITH_OK;
}

arith_status arith_sub_s(int64_t a, int64_t b, int bits, int64_t *out)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r) || r < arith_min_s(bits) || r > arith_max_s(bits))
        return ARITH_OVERFLOW;
    *out = r;
    return ARITH_OK;
}

int64_t arith_clamp_s(int64_t v, int bits)
{
    int64_t lo = arith_min_s(bits), hi = arith_max_s(bits);
    return v < lo ? lo : v > hi ? hi : v;
}

int64_t arith_clamp_u(int64_t v, int bits)
{
    int64_t hi = arith_max_u(bits);
    return v < 0 ? 0 : v > hi ? hi : v;
}

int64_t arith_saturate(int64_t v, tosac_dtype dt)
{
    switch (dt) {
    case TOSAC_DT_BOOL: return v != 0;
    case TOSAC_DT_U8: return arith_clamp_u(v, 8);
    case TOSAC_DT_U16: return arith_clamp_u(v, 16);
    case TOSAC_DT_U32: return arith_clamp_u(v, 32);
    case TOSAC_DT_U64: return v < 0 ? 0 : v;
    default: return arith_clamp_s(v, tosac_dtype_bits(dt));
    }
}

int64_t arith_sign_extend(int64_t v, int bits)
{
    if (bits >= 64)
        return v;
    uint64_t m = (uint64_t)1 << (bits - 1);
    uint64_t u = (uint64_t)v & (((uint64_t)1 << bits) - 1);
    return (int64_t)(u ^ m) - (int64_t)m;
}

int64_t arith_zero_extend(int64_t v, int bits)
{
    if (bits >= 64)
        return v;
    return (int64_t)((uint64_t)v & (((uint64_t)1 << bits) - 1));
}

int arith_clz32(uint32_t v)
{
    return v ? __builtin_clz(v) : 32;
}

int arith_clz64(uint64_t v)
{
    return v ? __builtin_clzll(v) : 64;
}

bool arith_in_i48(int64_t v)
{
    return v >= -((int64_t)1 << 47) && v < ((int64_t)1 << 47);
}
