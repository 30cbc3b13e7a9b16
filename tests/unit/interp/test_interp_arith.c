/* The spec's integer helpers at their edges. Every expected value is derived by hand in the
 * comment next to it (apply_scale: (value * multiplier + round) >> shift, floor division,
 * round = 2^(shift-1), +-2^30 more for DOUBLE_ROUND when shift > 31), and was cross-checked
 * with Python big integers while writing the test. */
#include "testutil.h"

#include "interp/interp_arith.h"
#include "tosac/tosa.h"

#define S TOSA_ROUND_SINGLE
#define D TOSA_ROUND_DOUBLE
#define I TOSA_ROUND_INEXACT

static int32_t scale32(int32_t v, int32_t m, int sh, uint32_t rm)
{
    int32_t r = 0x5a5a5a5a;
    assert_int_equal(arith_apply_scale_32(v, m, sh, rm, &r), ARITH_OK);
    return r;
}

static int32_t scale16(int64_t v, int32_t m, int sh)
{
    int32_t r = 0x5a5a5a5a;
    assert_int_equal(arith_apply_scale_16(v, m, sh, &r), ARITH_OK);
    return r;
}

static void test_scale32_ties(void **state)
{
    (void)state;
    /* 3 * 2^30 / 2^31 = 1.5: (3*2^30 + 2^30) >> 31 = 2^32 >> 31 = 2 (half rounds up) */
    assert_int_equal(scale32(3, 1 << 30, 31, S), 2);
    /* -1.5: (-3*2^30 + 2^30) >> 31 = -2^31 >> 31 = -1 (half rounds toward +inf, not away) */
    assert_int_equal(scale32(-3, 1 << 30, 31, S), -1);
    /* shift 31 is not > 31: DOUBLE_ROUND adds nothing, same 2 */
    assert_int_equal(scale32(3, 1 << 30, 31, D), 2);
}

static void test_scale32_shift2(void **state)
{
    (void)state;
    /* shift 2 allows value in [-2, 2) */
    assert_int_equal(scale32(1, 2, 2, S), 1);  /* (2 + 2) >> 2 = 1 (0.5 -> 1) */
    assert_int_equal(scale32(1, 1, 2, S), 0);  /* (1 + 2) >> 2 = 0 (0.25) */
    assert_int_equal(scale32(-2, 3, 2, S), -1); /* (-6 + 2) >> 2 = -1 (-1.5 -> -1) */
    assert_int_equal(scale32(-2, 1, 2, S), 0);  /* (-2 + 2) >> 2 = 0 (-0.5 -> 0) */
    int32_t r;
    assert_int_equal(arith_apply_scale_32(2, 1, 2, S, &r), ARITH_BAD_VALUE);  /* 2 >= 2^1 */
    assert_int_equal(arith_apply_scale_32(-3, 1, 2, S, &r), ARITH_BAD_VALUE); /* -3 < -2 */
    assert_int_equal(arith_apply_scale_32(1, 1, 1, S, &r), ARITH_BAD_SHIFT);
    assert_int_equal(arith_apply_scale_32(1, 1, 63, S, &r), ARITH_BAD_SHIFT);
}

static void test_scale32_shift62_extremes(void **state)
{
    (void)state;
    /* (2^31-1)^2 = 2^62 - 2^32 + 1; + 2^61 -> 1.5*2^62 - 2^32 + 1; >> 62 = 1 */
    assert_int_equal(scale32(INT32_MAX, INT32_MAX, 62, S), 1);
    /* double round adds 2^30 more: still below 2^63, still 1 */
    assert_int_equal(scale32(INT32_MAX, INT32_MAX, 62, D), 1);
    /* -2^31 * (2^31-1) = -2^62 + 2^31; + 2^61 = -2^61 + 2^31 -> floor(/2^62) = -1 */
    assert_int_equal(scale32(INT32_MIN, INT32_MAX, 62, S), -1);
    /* double: round = 2^61 - 2^30 -> -2^61 + 2^30 -> -1 */
    assert_int_equal(scale32(INT32_MIN, INT32_MAX, 62, D), -1);
    /* multiplier INT32_MIN is negative: REQUIRE(multiplier >= 0) fails */
    int32_t r;
    assert_int_equal(arith_apply_scale_32(1, INT32_MIN, 31, S, &r), ARITH_BAD_MULTIPLIER);
    assert_int_equal(arith_apply_scale_32(1, -1, 31, S, &r), ARITH_BAD_MULTIPLIER);
    /* multiplier 0 is fine: (0 + 2^31) >> 32 = 0 */
    assert_int_equal(scale32(INT32_MIN, 0, 32, S), 0);
    /* shift 31 only admits value in [-2^30, 2^30): INT32_MIN breaks the value REQUIRE */
    assert_int_equal(arith_apply_scale_32(INT32_MIN, 1, 31, S, &r), ARITH_BAD_VALUE);
}

static void test_scale32_double_vs_single(void **state)
{
    (void)state;
    /* 1 * 2^30 / 2^32 = 0.25. single: (2^30 + 2^31) >> 32 = 0.
     * double: (2^30 + 2^31 + 2^30) = 2^32 >> 32 = 1 (first rounding at bit 31 makes a tie) */
    assert_int_equal(scale32(1, 1 << 30, 32, S), 0);
    assert_int_equal(scale32(1, 1 << 30, 32, D), 1);
    /* -1 * (2^31-1) / 2^32 ~ -0.49999999977. single: (-(2^31-1) + 2^31) = 1 >> 32 = 0.
     * double: round = 2^31 - 2^30: -(2^31-1) + 2^30 = -2^30 + 1 -> floor(/2^32) = -1 */
    assert_int_equal(scale32(-1, INT32_MAX, 32, S), 0);
    assert_int_equal(scale32(-1, INT32_MAX, 32, D), -1);
    /* INEXACT_ROUND may be exact: this implementation rounds once, like SINGLE_ROUND */
    assert_int_equal(scale32(1, 1 << 30, 32, I), 0);
    assert_int_equal(scale32(-1, INT32_MAX, 32, I), 0);
}

static void test_scale16_i48(void **state)
{
    (void)state;
    int32_t r;
    /* (2^47 - 1 + 2^16) >> 17 = 2^30 (2^16 - 1 < 2^17 leftover) */
    assert_int_equal(scale16(((int64_t)1 << 47) - 1, 1, 17), 1 << 30);
    /* (2^47 - 1 + 2^15) >> 16 = 2^31: outside int32 -> REQUIRE fails */
    assert_int_equal(arith_apply_scale_16(((int64_t)1 << 47) - 1, 1, 16, &r), ARITH_OVERFLOW);
    /* (-2^47 + 2^15) >> 16 = floor(-2^31 + 0.5) = -2^31 = INT32_MIN: fits */
    assert_int_equal(scale16(-((int64_t)1 << 47), 1, 16), INT32_MIN);
    /* multiplier 2: -2^32 -> outside int32 */
    assert_int_equal(arith_apply_scale_16(-((int64_t)1 << 47), 2, 16, &r), ARITH_OVERFLOW);
    /* (2^47-1)*32767 = 2^62 - 2^47 - 32767; + 2^61 -> >> 62 = 1 */
    assert_int_equal(scale16(((int64_t)1 << 47) - 1, 32767, 62), 1);
    /* ties: 6/4 = 1.5 -> (6+2)>>2 = 2; -6/4 = -1.5 -> (-6+2)>>2 = -1 */
    assert_int_equal(scale16(6, 1, 2), 2);
    assert_int_equal(scale16(-6, 1, 2), -1);
    /* 2^47 is not an int48 value; multiplier must fit int16 and be >= 0 */
    assert_int_equal(arith_apply_scale_16((int64_t)1 << 47, 1, 20, &r), ARITH_BAD_VALUE);
    assert_int_equal(arith_apply_scale_16(1, 32768, 20, &r), ARITH_BAD_VALUE);
    assert_int_equal(arith_apply_scale_16(1, -1, 20, &r), ARITH_BAD_MULTIPLIER);
    assert_int_equal(arith_apply_scale_16(1, 1, 63, &r), ARITH_BAD_SHIFT);
    assert_true(arith_in_i48(((int64_t)1 << 47) - 1));
    assert_true(arith_in_i48(-((int64_t)1 << 47)));
    assert_false(arith_in_i48(-((int64_t)1 << 47) - 1));
}

static void test_reciprocal_scale(void **state)
{
    (void)state;
    int32_t m;
    int s;
    /* value 1: k = 32 - clz(0) = 0; multiplier = 2^30 + 1, shift 30 */
    assert_int_equal(arith_reciprocal_scale(1, &m, &s), ARITH_OK);
    assert_int_equal(m, (1 << 30) + 1);
    assert_int_equal(s, 30);
    /* value 3: k = 32 - clz(2) = 2; (2^30 + 1) * 4 / 3 = 4294967300 / 3 = 1431655766 */
    assert_int_equal(arith_reciprocal_scale(3, &m, &s), ARITH_OK);
    assert_int_equal(m, 1431655766);
    assert_int_equal(s, 32);
    /* value 4: k = 32 - clz(3) = 2; 4294967300 / 4 = 1073741825 */
    assert_int_equal(arith_reciprocal_scale(4, &m, &s), ARITH_OK);
    assert_int_equal(m, 1073741825);
    assert_int_equal(s, 32);
    assert_int_equal(arith_reciprocal_scale(0, &m, &s), ARITH_BAD_VALUE);
}

static void test_saturate_and_extend(void **state)
{
    (void)state;
    assert_int_equal(arith_saturate(200, TOSAC_DT_I8), 127);
    assert_int_equal(arith_saturate(-200, TOSAC_DT_I8), -128);
    assert_int_equal(arith_saturate(40000, TOSAC_DT_I16), 32767);
    assert_int_equal(arith_saturate(-40000, TOSAC_DT_I16), -32768);
    assert_int_equal(arith_saturate(256, TOSAC_DT_U8), 255);
    assert_int_equal(arith_saturate(-1, TOSAC_DT_U8), 0);
    assert_int_equal(arith_saturate(70000, TOSAC_DT_U16), 65535);
    assert_int_equal(arith_saturate((int64_t)1 << 40, TOSAC_DT_I32), INT32_MAX);
    assert_int_equal(arith_saturate((int64_t)1 << 50, TOSAC_DT_I48), ((int64_t)1 << 47) - 1);
    assert_int_equal(arith_sign_extend(0xff, 8), -1);
    assert_int_equal(arith_sign_extend(0x7f, 8), 127);
    assert_int_equal(arith_sign_extend(0x18000, 16), -32768); /* low 16 bits 0x8000 */
    assert_int_equal(arith_zero_extend(-1, 16), 65535);
    assert_int_equal(arith_zero_extend(-128, 8), 128);
    assert_int_equal(arith_clz32(0), 32);
    assert_int_equal(arith_clz32(1), 31);
    assert_int_equal(arith_clz32(0x80000000u), 0);
    assert_int_equal(arith_clz64(0), 64);
    assert_int_equal(arith_clz64((uint64_t)1 << 40), 23);
}

static void test_add_sub_overflow(void **state)
{
    (void)state;
    int64_t r;
    assert_int_equal(arith_add_s(INT32_MAX, 1, 32, &r), ARITH_OVERFLOW);
    assert_int_equal(arith_add_s(INT32_MAX, -1, 32, &r), ARITH_OK);
    assert_int_equal(r, INT32_MAX - 1);
    assert_int_equal(arith_sub_s(INT32_MIN, 1, 32, &r), ARITH_OVERFLOW);
    assert_int_equal(arith_add_s(INT64_MAX, 1, 64, &r), ARITH_OVERFLOW);
    assert_int_equal(arith_add_s(127, 1, 8, &r), ARITH_OVERFLOW);
    assert_int_equal(arith_sub_s(-100, 28, 8, &r), ARITH_OK);
    assert_int_equal(r, -128);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scale32_ties),
        cmocka_unit_test(test_scale32_shift2),
        cmocka_unit_test(test_scale32_shift62_extremes),
        cmocka_unit_test(test_scale32_double_vs_single),
        cmocka_unit_test(test_scale16_i48),
        cmocka_unit_test(test_reciprocal_scale),
        cmocka_unit_test(test_saturate_and_extend),
        cmocka_unit_test(test_add_sub_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
