/* fp16 / bf16 / fp8 conversions: exact encodings at the edges of each format. */
#include "testutil.h"

#include <math.h>
#include <string.h>

#include "util/fp.h"

static float f_of(uint32_t x)
{
    float f;
    memcpy(&f, &x, 4);
    return f;
}

static void test_f16(void **state)
{
    (void)state;
    assert_int_equal(tosac_f32_to_f16(1.0f), 0x3c00);
    assert_int_equal(tosac_f32_to_f16(-2.0f), 0xc000);
    assert_int_equal(tosac_f32_to_f16(65504.0f), 0x7bff);
    assert_int_equal(tosac_f32_to_f16(65520.0f), 0x7c00);   /* tie above max rounds to inf */
    assert_int_equal(tosac_f32_to_f16(65519.0f), 0x7bff);
    assert_int_equal(tosac_f32_to_f16(ldexpf(1, -24)), 0x0001); /* smallest subnormal */
    assert_int_equal(tosac_f32_to_f16(ldexpf(1, -25)), 0x0000); /* tie to even: 0 */
    assert_int_equal(tosac_f32_to_f16(ldexpf(3, -26)), 0x0001);
    assert_int_equal(tosac_f32_to_f16(ldexpf(1, -14)), 0x0400); /* smallest normal */
    /* 1 + 2^-11 is a tie between 0x3c00 and 0x3c01: even wins */
    assert_int_equal(tosac_f32_to_f16(1.0f + ldexpf(1, -11)), 0x3c00);
    assert_int_equal(tosac_f32_to_f16(1.0f + ldexpf(3, -11)), 0x3c02);
    assert_int_equal(tosac_f32_to_f16(INFINITY), 0x7c00);
    assert_true((tosac_f32_to_f16(NAN) & 0x7c00) == 0x7c00 && (tosac_f32_to_f16(NAN) & 0x3ff));
    for (uint32_t h = 0; h < 0x10000; h++) { /* every finite half round-trips */
        if ((h & 0x7c00) == 0x7c00)
            continue;
        assert_int_equal(tosac_f32_to_f16(tosac_f16_to_f32((uint16_t)h)), h);
    }
    assert_true(tosac_f16_to_f32(0x0001) == ldexpf(1, -24));
    assert_true(isinf(tosac_f16_to_f32(0xfc00)) && tosac_f16_to_f32(0xfc00) < 0);
}

static void test_bf16(void **state)
{
    (void)state;
    assert_int_equal(tosac_f32_to_bf16(1.0f), 0x3f80);
    assert_int_equal(tosac_f32_to_bf16(f_of(0x3f808000u)), 0x3f80); /* tie, even */
    assert_int_equal(tosac_f32_to_bf16(f_of(0x3f818000u)), 0x3f82); /* tie, up to even */
    assert_int_equal(tosac_f32_to_bf16(f_of(0x3f808001u)), 0x3f81);
    assert_true(tosac_bf16_to_f32(0x4049) == f_of(0x40490000u));
    assert_true(isnan(tosac_bf16_to_f32(tosac_f32_to_bf16(NAN))));
}

static void test_fp8(void **state)
{
    (void)state;
    assert_int_equal(tosac_f32_to_fp8e4m3(448.0f, 0), 0x7e);
    assert_int_equal(tosac_f32_to_fp8e4m3(1.0f, 0), 0x38);
    assert_int_equal(tosac_f32_to_fp8e4m3(-1.0f, 0), 0xb8);
    assert_int_equal(tosac_f32_to_fp8e4m3(500.0f, 0), 0x7f); /* overflow: NaN */
    assert_int_equal(tosac_f32_to_fp8e4m3(500.0f, 1), 0x7e); /* saturating */
    assert_int_equal(tosac_f32_to_fp8e4m3(ldexpf(1, -9), 0), 0x01);
    assert_int_equal(tosac_f32_to_fp8e5m2(57344.0f, 0), 0x7b);
    assert_int_equal(tosac_f32_to_fp8e5m2(1.0f, 0), 0x3c);
    assert_int_equal(tosac_f32_to_fp8e5m2(INFINITY, 0), 0x7c);
    assert_int_equal(tosac_f32_to_fp8e5m2(ldexpf(1, -16), 0), 0x01);
    for (int b = 0; b < 256; b++) {
        float v = tosac_fp8e4m3_to_f32((uint8_t)b);
        if (!isnan(v) && !(v == 0 && (b & 0x80)))
            assert_int_equal(tosac_f32_to_fp8e4m3(v, 0), b);
        v = tosac_fp8e5m2_to_f32((uint8_t)b);
        if (!isnan(v) && !(v == 0 && (b & 0x80)))
            assert_int_equal(tosac_f32_to_fp8e5m2(v, 0), b);
    }
    assert_true(isnan(tosac_fp8e4m3_to_f32(0x7f)));
    assert_true(tosac_fp8e5m2_to_f32(0xfc) == -INFINITY);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f16),
        cmocka_unit_test(test_bf16),
        cmocka_unit_test(test_fp8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
