#include "util/fp.h"

#include <math.h>
#include <string.h>

static uint32_t bits_of(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    return x;
}

static float float_of(uint32_t x)
{
    float f;
    memcpy(&f, &x, 4);
    return f;
}

uint16_t tosac_f32_to_f16(float f)
{
    uint32_t x = bits_of(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t exp = (x >> 23) & 0xffu;
    uint32_t mant = x & 0x7fffffu;
    if (exp == 0xff) /* inf stays inf; NaN stays a quiet NaN */
        return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) { /* subnormal result (or zero) */
        if (e < -10)
            return (uint16_t)sign;
        mant |= 0x800000u;
        int shift = 14 - e;
        uint32_t h = mant >> shift;
        uint32_t rem = mant & ((1u << shift) - 1);
        uint32_t half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1)))
            h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = sign | ((uint32_t)e << 10) | (mant >> 13);
    uint32_t rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) /* a carry may reach inf: correct */
        h++;
    return (uint16_t)h;
}

float tosac_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    if (exp == 0) {
        if (mant == 0)
            return float_of(sign);
        int e = -1;
        do {
            e++;
            mant <<= 1;
        } while (!(mant & 0x400u));
        mant &= 0x3ffu;
        return float_of(sign | ((uint32_t)(127 - 15 - e) << 23) | (mant << 13));
    }
    if (exp == 31)
        return float_of(sign | 0x7f800000u | (mant << 13));
    return float_of(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t tosac_f32_to_bf16(float f)
{
    uint32_t x = bits_of(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u);
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

float tosac_bf16_to_f32(uint16_t b) { return float_of((uint32_t)b << 16); }

/* Round |f| to a small float format with mbits mantissa bits and minimum normal exponent
 * min_e; returns the encoded magnitude, or -1 when the rounded value exceeds max. */
static int small_encode(float a, int mbits, int min_e, int bias, float max)
{
    if (a == 0.0f)
        return 0;
    int e;
    frexpf(a, &e);
    e -= 1; /* a = 1.x * 2^e */
    if (e < min_e)
        e = min_e;
    float quantum = ldexpf(1.0f, e - mbits);
    float v = rintf(a / quantum) * quantum; /* exact scaling; rintf rounds half to even */
    if (v > max)
        return -1;
    if (v < ldexpf(1.0f, min_e)) /* subnormal (or zero) */
        return (int)(v / ldexpf(1.0f, min_e - mbits));
    frexpf(v, &e);
    e -= 1;
    int mant = (int)(v / ldexpf(1.0f, e - mbits)) - (1 << mbits);
    return ((e + bias) << mbits) | mant;
}

uint8_t tosac_f32_to_fp8e4m3(float f, int saturate)
{
    uint8_t sign = signbit(f) ? 0x80 : 0;
    if (isnan(f))
        return sign | 0x7f;
    float a = fabsf(f);
    int m = isinf(a) ? -1 : small_encode(a, 3, -6, 7, 448.0f);
    if (m < 0)
        return sign | (saturate ? 0x7e : 0x7f);
    return sign | (uint8_t)m;
}

uint8_t tosac_f32_to_fp8e5m2(float f, int saturate)
{
    uint8_t sign = signbit(f) ? 0x80 : 0;
    if (isnan(f))
        return sign | 0x7f;
    float a = fabsf(f);
    int m = isinf(a) ? -1 : small_encode(a, 2, -14, 15, 57344.0f);
    if (m < 0)
        return sign | (saturate ? 0x7b : 0x7c);
    return sign | (uint8_t)m;
}

float tosac_fp8e4m3_to_f32(uint8_t b)
{
    int exp = (b >> 3) & 0xf, m = b & 7;
    float v;
    if (exp == 15 && m == 7)
        v = NAN;
    else if (exp == 0)
        v = ldexpf((float)m, -9);
    else
        v = ldexpf(1.0f + (float)m / 8.0f, exp - 7);
    return (b & 0x80) ? -v : v;
}

float tosac_fp8e5m2_to_f32(uint8_t b)
{
    int exp = (b >> 2) & 0x1f, m = b & 3;
    float v;
    if (exp == 31)
        v = m ? NAN : INFINITY;
    else if (exp == 0)
        v = ldexpf((float)m, -16);
    else
        v = ldexpf(1.0f + (float)m / 4.0f, exp - 15);
    return (b & 0x80) ? -v : v;
}
