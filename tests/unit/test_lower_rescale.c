/* lower_quant_multiplier: frexp mantissa * 2^31 (2^15) rounded half to even,
 * shift = 31 - exponent (15 - exponent) within [2, 62]. Expected values derived by hand
 * (and cross-checked with python's math.frexp and round(), which rounds half to even). */
#include "testutil.h"

#include <math.h>
#include <string.h>

#include "lower/lower.h"

static void expect(double scale, int bits, int32_t mult, int32_t shift)
{
    tosac_error err;
    tosac_error_clear(&err);
    int32_t m = -1, s = -1;
    assert_int_equal(lower_quant_multiplier(scale, bits, &m, &s, &err), TOSAC_OK);
    assert_int_equal(m, mult);
    assert_int_equal(s, shift);
}

static void test_plain_scales(void **state)
{
    (void)state;
    expect(0.5, 32, 1073741824, 31);  /* 0.5 * 2^0: 2^30 >> 31 */
    expect(1.0, 32, 1073741824, 30);  /* 0.5 * 2^1 */
    expect(0.1, 32, 1717986918, 34);  /* 0.8 * 2^-3; 0.8 * 2^31 = 1717986918.4 */
    expect(0.1, 16, 26214, 18);       /* 0.8 * 2^15 = 26214.4 */
    expect(ldexp(1.0, 28), 32, 1073741824, 2); /* the largest exponent that still fits */
}

static void test_rounding(void **state)
{
    (void)state;
    /* m * 2^31 = 2^30 + 0.5 -> even 2^30; 2^30 + 1.5 -> even 2^30 + 2 */
    expect(0.5 + ldexp(1.0, -32), 32, 1073741824, 31);
    expect(0.5 + 3 * ldexp(1.0, -32), 32, 1073741826, 31);
    /* m rounds up to 1.0: renormalised to 2^30 with the exponent one higher */
    expect(1.0 - ldexp(1.0, -40), 32, 1073741824, 30);
}

static void test_clamped_shift(void **state)
{
    (void)state;
    /* 2^-40 wants shift 70: the multiplier absorbs 8 bits, 2^22 / 2^62 = 2^-40 */
    expect(ldexp(1.0, -40), 32, 4194304, 62);
    tosac_error err;
    int32_t m, s;
    tosac_error_clear(&err);
    assert_int_equal(lower_quant_multiplier(ldexp(1.0, 30), 32, &m, &s, &err),
                     TOSAC_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "too large"));
    tosac_error_clear(&err);
    assert_int_equal(lower_quant_multiplier(0.0, 32, &m, &s, &err), TOSAC_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "not a positive finite number"));
    tosac_error_clear(&err);
    assert_int_equal(lower_quant_multiplier(-1.0, 32, &m, &s, &err), TOSAC_ERR_UNSUPPORTED);
    tosac_error_clear(&err);
    assert_int_equal(lower_quant_multiplier(INFINITY, 32, &m, &s, &err), TOSAC_ERR_UNSUPPORTED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_scales),
        cmocka_unit_test(test_rounding),
        cmocka_unit_test(test_clamped_shift),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
