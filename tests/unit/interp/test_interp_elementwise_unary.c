/* Elementwise unary operators (incl. NEGATE with zero points) on the single-op harness.
 * Expected values are derived by hand from the TOSA 1.0 pseudocode; float cases use inputs
 * whose results are exact (or IEEE special values). */
#include "interp_ew_testutil.h"

static tosac_code un_int(tosa_op op, tosac_dtype dt, int n, const int64_t *v, tosac_tensor *out,
                         tosac_error *err)
{
    tosac_tensor in;
    th_tensor_int(&in, dt, 1, EW_SHAPE(n), v);
    th_tensor_zero(out, dt, 1, EW_SHAPE(n));
    tosac_code rc = ew_run(op, NULL, &in, 1, out, err);
    tosac_tensor_free(&in);
    return rc;
}

static void check_int(tosa_op op, tosac_dtype dt, int n, const int64_t *v, const int64_t *expect)
{
    tosac_tensor out;
    tosac_error err;
    if (un_int(op, dt, n, v, &out, &err) != TOSAC_OK)
        fail_msg("%s", err.msg);
    ew_assert_ints(&out, expect, n);
    tosac_tensor_free(&out);
}

static void check_float(tosa_op op, tosac_dtype dt, int n, const double *v, const double *expect)
{
    tosac_tensor in, out;
    tosac_error err;
    th_tensor_float(&in, dt, 1, EW_SHAPE(n), v);
    th_tensor_zero(&out, dt, 1, EW_SHAPE(n));
    if (ew_run(op, NULL, &in, 1, &out, &err) != TOSAC_OK)
        fail_msg("%s", err.msg);
    ew_assert_floats(&out, expect, n, 1);
    tosac_tensor_free(&in);
    tosac_tensor_free(&out);
}

static void abs_values_and_edges(void **state)
{
    (void)state;
    const int64_t p40 = (int64_t)1 << 40;
    check_int(TOSA_OP_ABS, TOSAC_DT_I32, 4, (int64_t[]){-5, 0, INT32_MAX, INT32_MIN + 1},
              (int64_t[]){5, 0, INT32_MAX, INT32_MAX});
    check_int(TOSA_OP_ABS, TOSAC_DT_I64, 2, (int64_t[]){-p40, INT32_MIN}, (int64_t[]){p40, 2147483648LL});
    /* -0.0 becomes +0.0 (sign checked), NaN stays NaN */
    check_float(TOSA_OP_ABS, TOSAC_DT_F32, 4, (double[]){-0.0, -2.5, NAN, -INFINITY},
                (double[]){0.0, 2.5, NAN, INFINITY});
    check_float(TOSA_OP_ABS, TOSAC_DT_BF16, 1, (double[]){-3.0}, (double[]){3.0});
    /* apply_sub_s(0, INT32_MIN) does not fit int32 */
    tosac_tensor out;
    tosac_error err;
    ew_assert_fails(un_int(TOSA_OP_ABS, TOSAC_DT_I32, 1, (int64_t[]){INT32_MIN}, &out, &err),
                    &err, "ABS", "REQUIRE");
    tosac_tensor_free(&out);
}

static void bitwise_not_and_logical_not(void **state)
{
    (void)state;
    check_int(TOSA_OP_BITWISE_NOT, TOSAC_DT_I8, 3, (int64_t[]){0, 127, -128}, (int64_t[]){-1, -128, 127});
    check_int(TOSA_OP_BITWISE_NOT, TOSAC_DT_I64, 1, (int64_t[]){(int64_t)1 << 40},
              (int64_t[]){-((int64_t)1 << 40) - 1});
    check_int(TOSA_OP_LOGICAL_NOT, TOSAC_DT_BOOL, 2, (int64_t[]){0, 1}, (int64_t[]){1, 0});
}

static void clz_counts_leading_zero_bits(void **state)
{
    (void)state;
    /* 0 -> width; negative -> 0; 0x10000 has bit 16 set -> 15 */
    check_int(TOSA_OP_CLZ, TOSAC_DT_I32, 5, (int64_t[]){0, 1, -1, 0x10000, INT32_MAX},
              (int64_t[]){32, 31, 0, 15, 1});
    check_int(TOSA_OP_CLZ, TOSAC_DT_I64, 4, (int64_t[]){0, 1, (int64_t)1 << 40, INT64_MIN},
              (int64_t[]){64, 63, 23, 0});
    tosac_tensor out;
    tosac_error err;
    ew_assert_fails(un_int(TOSA_OP_CLZ, TOSAC_DT_I16, 1, (int64_t[]){1}, &out, &err), &err, "CLZ",
                    "unsupported input1 type i16");
    tosac_tensor_free(&out);
}

static void rounding_functions(void **state)
{
    (void)state;
    check_float(TOSA_OP_CEIL, TOSAC_DT_F32, 4, (double[]){-1.5, 1.25, 2.0, -0.25},
                (double[]){-1.0, 2.0, 2.0, -0.0});
    check_float(TOSA_OP_FLOOR, TOSAC_DT_F32, 3, (double[]){-1.5, 1.25, 2.0}, (double[]){-2.0, 1.0, 2.0});
    check_float(TOSA_OP_FLOOR, TOSAC_DT_F16, 2, (double[]){-0.5, 1000.5}, (double[]){-1.0, 1000.0});
    check_float(TOSA_OP_CEIL, TOSAC_DT_BF16, 1, (double[]){2.5}, (double[]){3.0});
}

static void transcendental_exact_points(void **state)
{
    (void)state;
    check_float(TOSA_OP_EXP, TOSAC_DT_F32, 3, (double[]){0.0, -INFINITY, INFINITY},
                (double[]){1.0, 0.0, INFINITY});
    /* apply_log: log(0) = -inf, log(negative) = NaN */
    check_float(TOSA_OP_LOG, TOSAC_DT_F32, 3, (double[]){1.0, 0.0, -1.0},
                (double[]){0.0, -INFINITY, NAN});
    check_float(TOSA_OP_RECIPROCAL, TOSAC_DT_F16, 3, (double[]){4.0, -0.5, 0.0},
                (double[]){0.25, -2.0, INFINITY});
    /* RSQRT: negative -> NaN, 0 -> +inf */
    check_float(TOSA_OP_RSQRT, TOSAC_DT_F32, 4, (double[]){4.0, 0.0625, -1.0, 0.0},
                (double[]){0.5, 4.0, NAN, INFINITY});
    check_float(TOSA_OP_SIN, TOSAC_DT_F32, 2, (double[]){0.0, INFINITY}, (double[]){0.0, NAN});
    check_float(TOSA_OP_COS, TOSAC_DT_F16, 1, (double[]){0.0}, (double[]){1.0});
}

static void transcendental_accuracy(void **state)
{
    (void)state;
    tosac_tensor in, out;
    tosac_error err;
    /* sin(1), cos(1), exp(1), log(10) to 17 digits (standard constants) */
    static const struct { tosa_op op; double x, y; } cases[] = {
        {TOSA_OP_SIN, 1.0, 0.8414709848078965},
        {TOSA_OP_COS, 1.0, 0.5403023058681398},
        {TOSA_OP_EXP, 1.0, 2.718281828459045},
        {TOSA_OP_LOG, 10.0, 2.302585092994046},
    };
    for (int i = 0; i < EW_N(cases); i++) {
        th_tensor_float(&in, TOSAC_DT_F32, 1, EW_SHAPE(1), &cases[i].x);
        th_tensor_zero(&out, TOSAC_DT_F32, 1, EW_SHAPE(1));
        assert_int_equal(ew_run(cases[i].op, NULL, &in, 1, &out, &err), TOSAC_OK);
        ew_assert_close(&out, &cases[i].y, 1, 0.5); /* correctly rounded to fp32 */
        tosac_tensor_free(&in);
        tosac_tensor_free(&out);
    }
}

/* NEGATE of [n] values with the given zero points. */
static tosac_code negate(tosac_dtype dt, int n, const int64_t *v, int64_t izp, int64_t ozp,
                         tosac_tensor *out, tosac_error *err)
{
    tosac_tensor in[3];
    th_tensor_int(&in[0], dt, 1, EW_SHAPE(n), v);
    th_tensor_int(&in[1], dt, 1, EW_SHAPE(1), &izp);
    th_tensor_int(&in[2], dt, 1, EW_SHAPE(1), &ozp);
    th_tensor_zero(out, dt, 1, EW_SHAPE(n));
    tosac_code rc = ew_run(TOSA_OP_NEGATE, NULL, in, 3, out, err);
    ew_free(in, 3);
    return rc;
}

static void negate_zero_points_and_clamp(void **state)
{
    (void)state;
    tosac_tensor out;
    tosac_error err;
    /* int8, izp 3, ozp -5: -(10-3)-5 = -12; -(-128-3)-5 = 126; -(127-3)-5 = -129 -> -128 */
    assert_int_equal(negate(TOSAC_DT_I8, 3, (int64_t[]){10, -128, 127}, 3, -5, &out, &err), TOSAC_OK);
    ew_assert_ints(&out, (int64_t[]){-12, 126, -128}, 3);
    tosac_tensor_free(&out);
    /* int8 without zero points: -(-128) = 128 clamps to 127 */
    assert_int_equal(negate(TOSAC_DT_I8, 2, (int64_t[]){-128, 5}, 0, 0, &out, &err), TOSAC_OK);
    ew_assert_ints(&out, (int64_t[]){127, -5}, 2);
    tosac_tensor_free(&out);
    assert_int_equal(negate(TOSAC_DT_I16, 2, (int64_t[]){-32768, 32767}, 0, 0, &out, &err), TOSAC_OK);
    ew_assert_ints(&out, (int64_t[]){32767, -32767}, 2);
    tosac_tensor_free(&out);
    assert_int_equal(negate(TOSAC_DT_I32, 1, (int64_t[]){INT32_MAX}, 0, 0, &out, &err), TOSAC_OK);
    ew_assert_ints(&out, (int64_t[]){-INT32_MAX}, 1);
    tosac_tensor_free(&out);
    assert_int_equal(negate(TOSAC_DT_I64, 1, (int64_t[]){(int64_t)1 << 40}, 0, 0, &out, &err), TOSAC_OK);
    ew_assert_ints(&out, (int64_t[]){-((int64_t)1 << 40)}, 1);
    tosac_tensor_free(&out);
    /* 0 - INT32_MIN overflows acc_t = i32 */
    ew_assert_fails(negate(TOSAC_DT_I32, 1, (int64_t[]){INT32_MIN}, 0, 0, &out, &err), &err,
                    "NEGATE", "REQUIRE");
    tosac_tensor_free(&out);
    /* zero points are int8-only */
    ew_assert_fails(negate(TOSAC_DT_I16, 1, (int64_t[]){1}, 1, 0, &out, &err), &err, "NEGATE",
                    "input1_zp != 0");
    tosac_tensor_free(&out);
    ew_assert_fails(negate(TOSAC_DT_I32, 1, (int64_t[]){1}, 0, 2, &out, &err), &err, "NEGATE",
                    "output_zp != 0");
    tosac_tensor_free(&out);
}

static void negate_float(void **state)
{
    (void)state;
    tosac_tensor in[3], out;
    tosac_error err;
    th_tensor_float(&in[0], TOSAC_DT_F16, 1, EW_SHAPE(3), (double[]){1.5, -2.0, INFINITY});
    th_tensor_float(&in[1], TOSAC_DT_F16, 1, EW_SHAPE(1), (double[]){0.0});
    th_tensor_float(&in[2], TOSAC_DT_F16, 1, EW_SHAPE(1), (double[]){0.0});
    th_tensor_zero(&out, TOSAC_DT_F16, 1, EW_SHAPE(3));
    assert_int_equal(ew_run(TOSA_OP_NEGATE, NULL, in, 3, &out, &err), TOSAC_OK);
    ew_assert_floats(&out, (double[]){-1.5, 2.0, -INFINITY}, 3, 1);
    /* a non-zero float zero point is an error */
    interp_set_float(&in[1], 0, 1.0f);
    ew_assert_fails(ew_run(TOSA_OP_NEGATE, NULL, in, 3, &out, &err), &err, "NEGATE", "izp != 0");
    ew_free(in, 3);
    tosac_tensor_free(&out);
}

static void shape_mismatch_is_an_error(void **state)
{
    (void)state;
    tosac_tensor in, out;
    tosac_error err;
    th_tensor_float(&in, TOSAC_DT_F32, 1, EW_SHAPE(3), (double[]){1, 2, 3});
    th_tensor_zero(&out, TOSAC_DT_F32, 1, EW_SHAPE(4));
    ew_assert_fails(ew_run(TOSA_OP_EXP, NULL, &in, 1, &out, &err), &err, "EXP", "output shape [4]");
    tosac_tensor_free(&out);
    th_tensor_zero(&out, TOSAC_DT_F16, 1, EW_SHAPE(3));
    ew_assert_fails(ew_run(TOSA_OP_SIN, NULL, &in, 1, &out, &err), &err, "SIN", "output type f16");
    tosac_tensor_free(&out);
    tosac_tensor_free(&in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(abs_values_and_edges),
        cmocka_unit_test(bitwise_not_and_logical_not),
        cmocka_unit_test(clz_counts_leading_zero_bits),
        cmocka_unit_test(rounding_functions),
        cmocka_unit_test(transcendental_exact_points),
        cmocka_unit_test(transcendental_accuracy),
        cmocka_unit_test(negate_zero_points_and_clamp),
        cmocka_unit_test(negate_float),
        cmocka_unit_test(shape_mismatch_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
