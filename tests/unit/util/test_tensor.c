/* tosac_tensor_int_at / tosac_tensor_f64_at: every numeric dtype read back exactly; the one
 * element reader (util/elem.h) at its edges: NaN, infinities, int64 and int32 limits. */
#include "testutil.h"

#include <math.h>
#include <string.h>

#include "interp/interp_internal.h"
#include "kernels/kern.h"
#include "tosac/tensor.h"
#include "util/elem.h"
#include "util/fp.h"

static tosac_tensor one(tosac_dtype dt, const void *bytes, size_t n)
{
    static unsigned char buf[16];
    memcpy(buf, bytes, n);
    tosac_tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = dt;
    t.rank = 1;
    t.shape[0] = 1;
    t.data = buf;
    t.nbytes = n;
    return t;
}

static void test_reads(void **state)
{
    (void)state;
    int8_t i8 = -7;
    uint16_t u16 = 65535, h = 0xc500; /* f16 -5.0 */
    int32_t i32 = INT32_MIN;
    int64_t i64 = -((int64_t)1 << 40);
    uint64_t u64 = 7;
    float f = -2.75f;
    double d = 1e10;
    uint8_t b = 1;
    tosac_tensor t = one(TOSAC_DT_I8, &i8, 1);
    assert_int_equal(tosac_tensor_int_at(&t, 0), -7);
    t = one(TOSAC_DT_U16, &u16, 2);
    assert_int_equal(tosac_tensor_int_at(&t, 0), 65535);
    t = one(TOSAC_DT_I32, &i32, 4);
    assert_true(tosac_tensor_int_at(&t, 0) == INT32_MIN);
    t = one(TOSAC_DT_I48, &i64, 8);
    assert_true(tosac_tensor_int_at(&t, 0) == i64);
    assert_true(tosac_tensor_f64_at(&t, 0) == -1099511627776.0);
    t = one(TOSAC_DT_U64, &u64, 8);
    assert_int_equal(tosac_tensor_int_at(&t, 0), 7);
    t = one(TOSAC_DT_BOOL, &b, 1);
    assert_int_equal(tosac_tensor_int_at(&t, 0), 1);
    t = one(TOSAC_DT_F32, &f, 4);
    assert_true(tosac_tensor_f64_at(&t, 0) == -2.75);
    assert_int_equal(tosac_tensor_int_at(&t, 0), -2); /* truncated toward zero */
    t = one(TOSAC_DT_F16, &h, 2);
    assert_true(tosac_tensor_f64_at(&t, 0) == -5.0);
    t = one(TOSAC_DT_F64, &d, 8);
    assert_true(tosac_tensor_f64_at(&t, 0) == 1e10);
    assert_true(tosac_tensor_int_at(&t, 0) == 10000000000LL);
}

/* Floats into int64: truncation toward zero, saturation at the int64 limits, NaN 0. */
static void test_float_edges(void **state)
{
    (void)state;
    const double two63 = 9223372036854775808.0; /* 2^63, exact */
    double d[] = {NAN,    -NAN,  INFINITY, -INFINITY, two63, -two63, -two63 * 2,
                  /* the largest double below 2^63 and its negation */
                  9223372036854774784.0, -9223372036854774784.0,
                  /* -2^63 - 1 rounds to -2^63 in double */
                  -9223372036854775809.0, 2147483647.0, 2147483648.0, -2147483649.0,
                  -0.5, 0.999, -1.999, 1e300};
    int64_t want[] = {0, 0, INT64_MAX, INT64_MIN, INT64_MAX, INT64_MIN, INT64_MIN,
                      9223372036854774784LL, -9223372036854774784LL, INT64_MIN,
                      2147483647LL, 2147483648LL, -2147483649LL, 0, 0, -1, INT64_MAX};
    size_t n = sizeof d / sizeof d[0];
    assert_int_equal(n, sizeof want / sizeof want[0]);
    for (size_t k = 0; k < n; k++) {
        assert_true(tosac_f64_to_i64_sat(d[k]) == want[k]);
        assert_true(tosac_elem_i64(TOSAC_DT_F64, d, (int64_t)k) == want[k]);
        tosac_tensor t = one(TOSAC_DT_F64, &d[k], 8);
        assert_true(tosac_tensor_int_at(&t, 0) == want[k]);
        assert_true(kern_get_i64(TOSAC_DT_F64, d, (int64_t)k) == want[k]);
    }
    /* f32, f16, bf16 and fp8 non-finite values go through the same rule */
    float f[] = {NAN, INFINITY, -INFINITY, 3e38f, -2.5f};
    int64_t fwant[] = {0, INT64_MAX, INT64_MIN, INT64_MAX, -2};
    for (int k = 0; k < 5; k++)
        assert_true(tosac_elem_i64(TOSAC_DT_F32, f, k) == fwant[k]);
    uint16_t h[] = {0x7e00 /* NaN */, 0x7c00 /* +inf */, 0xfc00 /* -inf */, 0x7bff /* 65504 */};
    int64_t hwant[] = {0, INT64_MAX, INT64_MIN, 65504};
    for (int k = 0; k < 4; k++)
        assert_true(tosac_elem_i64(TOSAC_DT_F16, h, k) == hwant[k]);
    uint16_t bf[] = {0x7fc0 /* NaN */, 0xff80 /* -inf */, 0x4f00 /* 2^31 */};
    int64_t bfwant[] = {0, INT64_MIN, 2147483648LL};
    for (int k = 0; k < 3; k++)
        assert_true(tosac_elem_i64(TOSAC_DT_BF16, bf, k) == bfwant[k]);
    uint8_t e4[] = {0x7f /* NaN */, 0x7e /* 448 */, 0xfe /* -448 */};
    int64_t e4want[] = {0, 448, -448};
    for (int k = 0; k < 3; k++) {
        assert_true(tosac_elem_i64(TOSAC_DT_FP8E4M3, e4, k) == e4want[k]);
        assert_true(tosac_elem_f64(TOSAC_DT_FP8E4M3, e4, k) == (double)e4want[k] || k == 0);
    }
    assert_true(isnan(tosac_elem_f64(TOSAC_DT_FP8E4M3, e4, 0)));
    uint8_t e5[] = {0x7c /* +inf */, 0xfc /* -inf */};
    assert_true(tosac_elem_i64(TOSAC_DT_FP8E5M2, e5, 0) == INT64_MAX);
    assert_true(tosac_elem_i64(TOSAC_DT_FP8E5M2, e5, 1) == INT64_MIN);
}

/* Integer limits: exact as int64 and as double; U64 wraps as int64 and is unsigned as a
 * double; dtypes the reader does not decode give 0. */
static void test_int_edges(void **state)
{
    (void)state;
    int32_t i32[] = {INT32_MAX, INT32_MIN};
    assert_true(tosac_elem_i64(TOSAC_DT_I32, i32, 0) == 2147483647LL);
    assert_true(tosac_elem_i64(TOSAC_DT_I32, i32, 1) == -2147483648LL);
    assert_true(tosac_elem_f64(TOSAC_DT_I32, i32, 0) == 2147483647.0);
    uint32_t u32 = 2147483648u; /* 2^31: beyond int32, exact as int64 */
    assert_true(tosac_elem_i64(TOSAC_DT_U32, &u32, 0) == 2147483648LL);
    int64_t i64[] = {INT64_MAX, INT64_MIN};
    assert_true(tosac_elem_i64(TOSAC_DT_I64, i64, 0) == INT64_MAX);
    assert_true(tosac_elem_i64(TOSAC_DT_SHAPE, i64, 1) == INT64_MIN);
    assert_true(tosac_elem_f64(TOSAC_DT_I64, i64, 1) == -9223372036854775808.0);
    uint64_t u64[] = {UINT64_MAX, (uint64_t)1 << 63, (uint64_t)INT64_MAX};
    assert_true(tosac_elem_i64(TOSAC_DT_U64, u64, 0) == -1);
    assert_true(tosac_elem_i64(TOSAC_DT_U64, u64, 1) == INT64_MIN);
    assert_true(tosac_elem_i64(TOSAC_DT_U64, u64, 2) == INT64_MAX);
    assert_true(tosac_elem_f64(TOSAC_DT_U64, u64, 1) == 9223372036854775808.0);
    assert_true(tosac_elem_f64(TOSAC_DT_U64, u64, 0) == 18446744073709551616.0);
    uint8_t raw = 0x5a;
    assert_true(tosac_elem_i64(TOSAC_DT_UNKNOWN, &raw, 0) == 0);
    assert_true(tosac_elem_f64(TOSAC_DT_FP4E2M1, &raw, 0) == 0.0);
    assert_true(tosac_elem_i64(TOSAC_DT_MXINT8, &raw, 0) == 0);
    assert_false(tosac_elem_reads_int(TOSAC_DT_MXINT8));
    assert_true(tosac_elem_reads_int(TOSAC_DT_SHAPE));
    assert_true(tosac_elem_reads_float(TOSAC_DT_FP8E5M2));
    assert_false(tosac_elem_reads_float(TOSAC_DT_FP6E2M3));
}

/* The interpreter reads integers through the same reader and float storage as its bits;
 * its float reader decodes (and converts integers from int64 in one rounding). */
static void test_interp_reads(void **state)
{
    (void)state;
    uint16_t h = 0xc500; /* f16 -5.0 */
    tosac_tensor t = one(TOSAC_DT_F16, &h, 2);
    assert_int_equal(interp_get_int(&t, 0), 0xc500);
    assert_true(interp_get_float(&t, 0) == -5.0f);
    int64_t big = ((int64_t)1 << 53) + 1; /* int64 -> float directly: 2^53 + 1 rounds once */
    t = one(TOSAC_DT_I64, &big, 8);
    assert_true(interp_get_int(&t, 0) == big);
    assert_true(interp_get_float(&t, 0) == 9007199254740992.0f);
    /* 2^54 + 2^30 + 1: directly it is above the half-way point and rounds up to 2^54 + 2^31;
     * through double it would become the tie 2^54 + 2^30 and round to even, 2^54 */
    int64_t odd = ((int64_t)1 << 54) + ((int64_t)1 << 30) + 1;
    t = one(TOSAC_DT_I64, &odd, 8);
    assert_true(interp_get_float(&t, 0) == 18014400656965632.0f);
    int32_t v = INT32_MIN;
    t = one(TOSAC_DT_I32, &v, 4);
    assert_true(interp_get_int(&t, 0) == INT32_MIN);
    /* writing a NaN or an infinity into an integer tensor saturates, never undefined */
    int64_t o64 = 5;
    tosac_tensor o = one(TOSAC_DT_I64, &o64, 8);
    o.data = &o64;
    interp_set_float(&o, 0, NAN);
    assert_true(o64 == 0);
    interp_set_float(&o, 0, INFINITY);
    assert_true(o64 == INT64_MAX);
    interp_set_float(&o, 0, -INFINITY);
    assert_true(o64 == INT64_MIN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_reads),
                                       cmocka_unit_test(test_float_edges),
                                       cmocka_unit_test(test_int_edges),
                                       cmocka_unit_test(test_interp_reads)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
