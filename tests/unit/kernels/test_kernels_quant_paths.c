/* The typed QuantizeLinear / DequantizeLinear loops (8- and 16-bit types) against the ONNX
 * definition evaluated independently here: y = saturate(round_half_even(x / s) + zp) with
 * x / s in float (as ONNX computes it) and the rounding done exactly in double by
 * nearbyint; dequantization (x - zp) * s, whose double product is exact and rounds once,
 * like the kernel's float product. Integer outputs must match exactly, including halfway
 * cases, saturation, infinities and NaN (quantized to 0). */
#include "testutil.h"
#include "kern_testrand.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/quant.h"

static const tosac_dtype k_types[] = {TOSAC_DT_U8, TOSAC_DT_I8, TOSAC_DT_U16, TOSAC_DT_I16};

static int64_t read_int(tosac_dtype dt, const void *p, int64_t i)
{
    switch (dt) {
    case TOSAC_DT_U8: return ((const uint8_t *)p)[i];
    case TOSAC_DT_I8: return ((const int8_t *)p)[i];
    case TOSAC_DT_U16: return ((const uint16_t *)p)[i];
    default: return ((const int16_t *)p)[i];
    }
}

static void write_int(tosac_dtype dt, void *p, int64_t i, int64_t v)
{
    switch (dt) {
    case TOSAC_DT_U8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case TOSAC_DT_I8: ((int8_t *)p)[i] = (int8_t)v; break;
    case TOSAC_DT_U16: ((uint16_t *)p)[i] = (uint16_t)v; break;
    default: ((int16_t *)p)[i] = (int16_t)v; break;
    }
}

static int64_t ref_quant(float x, float s, int64_t z, int64_t lo, int64_t hi)
{
    float q = x / s;
    if (isnan(q))
        return 0;
    double r = nearbyint((double)q) + (double)z;
    return r < (double)lo ? lo : r > (double)hi ? hi : (int64_t)r;
}

/* Test inputs for scale s: random values over about twice the type's range, exact halfway
 * points k + 0.5 (both signs), huge values, infinities, NaN, signed zeros. */
static int64_t fill_inputs(float *x, int64_t cap, float s, int64_t lo, int64_t hi)
{
    int64_t n = 0;
    double span = (double)(hi - lo);
    for (int i = 0; i < 200 && n < cap; i++)
        x[n++] = (float)((lo - span / 2 + frand() * span) * s);
    for (int k = -300; k <= 300 && n < cap; k++)
        x[n++] = (float)((k + 0.5) * s);
    static const float special[] = {1e7f, -1e7f, 3e9f, -3e9f, 4194303.5f, -4194302.5f,
                                    8388607.0f, 16777215.0f, 0.0f, -0.0f, 0.5f, -0.5f,
                                    1.5f, -1.5f, 2.5f, -2.5f, 65535.5f, 32767.5f, -32768.5f};
    for (size_t i = 0; i < sizeof special / sizeof special[0] && n + 1 < cap; i++)
        x[n++] = special[i] * s;
    x[n++] = INFINITY;
    x[n++] = -INFINITY;
    x[n++] = NAN;
    return n;
}

static void test_quantize_exact(void **state)
{
    (void)state;
    static const float scales[] = {1.0f, 0.5f, 0.0078125f, 0.0123f, 3.7f};
    float x[1024];
    uint8_t y[1024 * 2], zp[4];
    for (size_t t = 0; t < 4; t++)
        for (size_t k = 0; k < 5; k++) {
            tosac_dtype dt = k_types[t];
            int64_t lo, hi;
            kern_qrange(dt, &lo, &hi);
            int64_t z = lo + (hi - lo) / 3; /* a zero point away from 0 */
            write_int(dt, zp, 0, z);
            int64_t n = fill_inputs(x, 1024, scales[k], lo, hi);
            kern_quantize_f32(1, 1, n, x, &scales[k], dt, zp, y);
            for (int64_t i = 0; i < n; i++) {
                int64_t want = ref_quant(x[i], scales[k], z, lo, hi);
                if (read_int(dt, y, i) != want)
                    fail_msg("%s scale %g: x = %.9g gave %lld, want %lld", tosac_dtype_name(dt),
                             scales[k], x[i], (long long)read_int(dt, y, i), (long long)want);
            }
        }
}

/* The general loop (every type but the four typed ones: int32 here): halfway points
 * (k + 0.5) * s round half to even before the zero point (0, then -7) is added; saturation
 * at both int32 bounds, infinities, NaN (0). Expected values by ref_quant and by hand. */
static void test_quantize_general_loop(void **state)
{
    (void)state;
    const float s = 0.25f;
    float x[611];
    int32_t y[611];
    int64_t n = 0;
    for (int k = -300; k <= 300; k++)
        x[n++] = (float)((k + 0.5) * s);
    const float special[] = {3e9f, -3e9f, 1e10f, INFINITY, -INFINITY, NAN, 0.5f, -0.5f,
                             1.5f, -2.5f};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        x[n++] = special[i];
    for (int zi = 0; zi < 2; zi++) {
        const int32_t z = zi ? -7 : 0;
        kern_quantize_f32(1, 1, n, x, &s, TOSAC_DT_I32, &z, y);
        for (int64_t i = 0; i < n; i++) {
            int64_t want = ref_quant(x[i], s, z, INT32_MIN, INT32_MAX);
            if (y[i] != want)
                fail_msg("int32 zp %d: x = %.9g gave %d, want %lld", z, x[i], y[i],
                         (long long)want);
        }
        /* the ties by hand: 0.125 / 0.25 = 0.5 -> 0, -0.375 / 0.25 = -1.5 -> -2,
         * 0.625 / 0.25 = 2.5 -> 2 */
        assert_int_equal(y[300], 0 + z);
        assert_int_equal(y[298], -2 + z);
        assert_int_equal(y[302], 2 + z);
        assert_int_equal(y[601], INT32_MAX);
        assert_int_equal(y[602], INT32_MIN);
        assert_int_equal(y[606], 0); /* NaN: 0, not the zero point */
    }
}

/* Per-channel layout [outer 2, channels 3, inner 5], each channel its scale and zero point. */
static void test_per_channel(void **state)
{
    (void)state;
    const float scales[3] = {0.25f, 0.0117f, 2.0f};
    float x[30], back[30];
    for (int i = 0; i < 30; i++)
        x[i] = frand() * 40;
    for (size_t t = 0; t < 4; t++) {
        tosac_dtype dt = k_types[t];
        int64_t lo, hi;
        kern_qrange(dt, &lo, &hi);
        uint8_t y[60], zp[6];
        for (int c = 0; c < 3; c++)
            write_int(dt, zp, c, lo + c * 7 + (lo < 0 ? 100 : 3));
        kern_quantize_f32(2, 3, 5, x, scales, dt, zp, y);
        kern_dequantize_f32(2, 3, 5, dt, y, scales, zp, back);
        for (int i = 0; i < 30; i++) {
            int c = i / 5 % 3;
            int64_t z = read_int(dt, zp, c);
            int64_t q = read_int(dt, y, i);
            assert_int_equal(q, ref_quant(x[i], scales[c], z, lo, hi));
            assert_true(back[i] == (float)((double)(q - z) * scales[c]));
        }
    }
}

static void test_dequantize_exact(void **state)
{
    (void)state;
    for (size_t t = 0; t < 4; t++) {
        tosac_dtype dt = k_types[t];
        int64_t lo, hi;
        kern_qrange(dt, &lo, &hi);
        uint8_t x[2 * 517], zp[2];
        float y[517];
        const float s = 0.0371f;
        int64_t z = hi - 5;
        write_int(dt, zp, 0, z);
        for (int i = 0; i < 517; i++) /* both ends of the range and values between */
            write_int(dt, x, i, i < 3 ? (i == 0 ? lo : i == 1 ? hi : z)
                                      : lo + (int64_t)((double)(hi - lo) * (frand() + 1) / 2));
        kern_dequantize_f32(1, 1, 517, dt, x, &s, zp, y);
        for (int i = 0; i < 517; i++)
            assert_true(y[i] == (float)((double)(read_int(dt, x, i) - z) * s));
        kern_dequantize_f32(1, 1, 517, dt, x, &s, NULL, y); /* no zero point: 0 */
        for (int i = 0; i < 517; i++)
            assert_true(y[i] == (float)((double)read_int(dt, x, i) * s));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantize_exact),
        cmocka_unit_test(test_quantize_general_loop),
        cmocka_unit_test(test_per_channel),
        cmocka_unit_test(test_dequantize_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
