/* Activation operators: CLAMP (min/max from raw attribute bytes, nan_mode), ERF, SIGMOID,
 * TANH. Clamp results are exact by construction; transcendental references are standard
 * constants to 16+ digits (erf(1), tanh(0.5), 1/(1+e^-2)). */
#include "interp_ew_testutil.h"

static tosa_attr clamp_attr(const uint8_t *lo, const uint8_t *hi, int n, uint32_t nan_mode)
{
    tosa_attr a;
    memset(&a, 0, sizeof a);
    memcpy(a.min_val, lo, (size_t)n);
    memcpy(a.max_val, hi, (size_t)n);
    a.n_min_val = a.n_max_val = n;
    a.nan_mode = nan_mode;
    return a;
}

static tosac_code clamp_int(tosac_dtype dt, const tosa_attr *a, int n, const int64_t *v,
                            tosac_tensor *out, tosac_error *err)
{
    tosac_tensor in;
    th_tensor_int(&in, dt, 1, EW_SHAPE(n), v);
    th_tensor_zero(out, dt, 1, EW_SHAPE(n));
    tosac_code rc = ew_run(TOSA_OP_CLAMP, a, &in, 1, out, err);
    tosac_tensor_free(&in);
    return rc;
}

static tosac_code clamp_float(tosac_dtype dt, const tosa_attr *a, int n, const double *v,
                              tosac_tensor *out, tosac_error *err)
{
    tosac_tensor in;
    th_tensor_float(&in, dt, 1, EW_SHAPE(n), v);
    th_tensor_zero(out, dt, 1, EW_SHAPE(n));
    tosac_code rc = ew_run(TOSA_OP_CLAMP, a, &in, 1, out, err);
    tosac_tensor_free(&in);
    return rc;
}

static void clamp_int8_int16(void **state)
{
    (void)state;
    tosac_tensor out;
    tosac_error err;
    /* int8 [-10, 20]: -10 is 0xf6 */
    tosa_attr a = clamp_attr((const uint8_t[]){0xf6}, (const uint8_t[]){20}, 1, 0);
    assert_int_equal(clamp_int(TOSAC_DT_I8, &a, 5, (int64_t[]){-128, -10, 0, 20, 127}, &out, &err),
                     TOSAC_OK);
    ew_assert_ints(&out, (int64_t[]){-10, -10, 0, 20, 20}, 5);
    tosac_tensor_free(&out);
    /* int16 [-300, 1000]: little-endian 0xfed4, 0x03e8 */
    a = clamp_attr((const uint8_t[]){0xd4, 0xfe}, (const uint8_t[]){0xe8, 0x03}, 2, 0);
    assert_int_equal(clamp_int(TOSAC_DT_I16, &a, 5, (int64_t[]){-32768, -300, 5, 1000, 32767},
                               &out, &err), TOSAC_OK);
    ew_assert_ints(&out, (int64_t[]){-300, -300, 5, 1000, 1000}, 5);
    tosac_tensor_free(&out);
}

static void clamp_floats_and_nan_modes(void **state)
{
    (void)state;
    tosac_tensor out;
    tosac_error err;
    /* fp32 [-1, 6]: 0xbf800000, 0x40c00000 little-endian */
    const uint8_t lo[4] = {0x00, 0x00, 0x80, 0xbf}, hi[4] = {0x00, 0x00, 0xc0, 0x40};
    const double v[4] = {-5.0, 0.5, 7.0, NAN};
    tosa_attr a = clamp_attr(lo, hi, 4, TOSA_NAN_PROPAGATE);
    assert_int_equal(clamp_float(TOSAC_DT_F32, &a, 4, v, &out, &err), TOSAC_OK);
    ew_assert_floats(&out, (double[]){-1.0, 0.5, 6.0, NAN}, 4, 1);
    tosac_tensor_free(&out);
    /* IGNORE: max(NaN, min_val) = min_val */
    a.nan_mode = TOSA_NAN_IGNORE;
    assert_int_equal(clamp_float(TOSAC_DT_F32, &a, 4, v, &out, &err), TOSAC_OK);
    ew_assert_floats(&out, (double[]){-1.0, 0.5, 6.0, -1.0}, 4, 1);
    tosac_tensor_free(&out);
    /* fp16 [0, 6] = 0x0000, 0x4600 */
    a = clamp_attr((const uint8_t[]){0x00, 0x00}, (const uint8_t[]){0x00, 0x46}, 2, TOSA_NAN_PROPAGATE);
    assert_int_equal(clamp_float(TOSAC_DT_F16, &a, 3, (double[]){-1.0, 3.5, 100.0}, &out, &err),
                     TOSAC_OK);
    ew_assert_floats(&out, (double[]){0.0, 3.5, 6.0}, 3, 1);
    tosac_tensor_free(&out);
    /* bf16 [-2, 2] = 0xc000, 0x4000 */
    a = clamp_attr((const uint8_t[]){0x00, 0xc0}, (const uint8_t[]){0x00, 0x40}, 2, TOSA_NAN_PROPAGATE);
    assert_int_equal(clamp_float(TOSAC_DT_BF16, &a, 3, (double[]){-3.0, 1.5, INFINITY}, &out, &err),
                     TOSAC_OK);
    ew_assert_floats(&out, (double[]){-2.0, 1.5, 2.0}, 3, 1);
    tosac_tensor_free(&out);
}

static void clamp_errors(void **state)
{
    (void)state;
    tosac_tensor out;
    tosac_error err;
    /* min 5 > max 4 */
    tosa_attr a = clamp_attr((const uint8_t[]){5}, (const uint8_t[]){4}, 1, 0);
    ew_assert_fails(clamp_int(TOSAC_DT_I8, &a, 1, (int64_t[]){0}, &out, &err), &err, "CLAMP",
                    "max_val < min_val");
    tosac_tensor_free(&out);
    /* int16 bounds need two bytes */
    a = clamp_attr((const uint8_t[]){0}, (const uint8_t[]){4}, 1, 0);
    ew_assert_fails(clamp_int(TOSAC_DT_I16, &a, 1, (int64_t[]){0}, &out, &err), &err, "CLAMP",
                    "min_val has 1 byte");
    tosac_tensor_free(&out);
    /* fp16 NaN bound (0x7e00) */
    a = clamp_attr((const uint8_t[]){0x00, 0x7e}, (const uint8_t[]){0x00, 0x46}, 2, TOSA_NAN_PROPAGATE);
    ew_assert_fails(clamp_float(TOSAC_DT_F16, &a, 1, (double[]){0}, &out, &err), &err, "CLAMP",
                    "isnan");
    tosac_tensor_free(&out);
    /* float CLAMP needs a real nan_mode */
    a = clamp_attr((const uint8_t[]){0x00, 0x00}, (const uint8_t[]){0x00, 0x46}, 2, 0);
    ew_assert_fails(clamp_float(TOSAC_DT_F16, &a, 1, (double[]){0}, &out, &err), &err, "CLAMP",
                    "nan_mode");
    tosac_tensor_free(&out);
    /* no int32 row */
    a = clamp_attr((const uint8_t[]){0, 0, 0, 0}, (const uint8_t[]){1, 0, 0, 0}, 4, 0);
    ew_assert_fails(clamp_int(TOSAC_DT_I32, &a, 1, (int64_t[]){0}, &out, &err), &err, "CLAMP",
                    "unsupported input1 type i32");
    tosac_tensor_free(&out);
}

static void run_unary(tosa_op op, tosac_dtype dt, int n, const double *x, tosac_tensor *out)
{
    tosac_tensor in;
    tosac_error err;
    th_tensor_float(&in, dt, 1, EW_SHAPE(n), x);
    th_tensor_zero(out, dt, 1, EW_SHAPE(n));
    if (ew_run(op, NULL, &in, 1, out, &err) != TOSAC_OK)
        fail_msg("%s", err.msg);
    tosac_tensor_free(&in);
}

static void erf_sigmoid_tanh(void **state)
{
    (void)state;
    tosac_tensor out;
    /* fp32, correctly rounded (within 0.5 ulp of the true value) */
    run_unary(TOSA_OP_ERF, TOSAC_DT_F32, 3, (double[]){0.0, 1.0, -1.0}, &out);
    ew_assert_close(&out, (double[]){0.0, 0.8427007929497149, -0.8427007929497149}, 3, 0.5);
    tosac_tensor_free(&out);
    run_unary(TOSA_OP_SIGMOID, TOSAC_DT_F32, 3, (double[]){0.0, 2.0, -2.0}, &out);
    ew_assert_close(&out, (double[]){0.5, 0.8807970779778823, 0.11920292202211755}, 3, 0.5);
    tosac_tensor_free(&out);
    run_unary(TOSA_OP_TANH, TOSAC_DT_F32, 2, (double[]){0.0, 0.5}, &out);
    ew_assert_close(&out, (double[]){0.0, 0.46211715726000974}, 2, 0.5);
    tosac_tensor_free(&out);
    /* saturation and special values */
    run_unary(TOSA_OP_SIGMOID, TOSAC_DT_F16, 3, (double[]){-INFINITY, INFINITY, 0.0}, &out);
    ew_assert_floats(&out, (double[]){0.0, 1.0, 0.5}, 3, 1);
    tosac_tensor_free(&out);
    run_unary(TOSA_OP_TANH, TOSAC_DT_BF16, 2, (double[]){INFINITY, -INFINITY}, &out);
    ew_assert_floats(&out, (double[]){1.0, -1.0}, 2, 1);
    tosac_tensor_free(&out);
    run_unary(TOSA_OP_ERF, TOSAC_DT_F16, 2, (double[]){10.0, NAN}, &out);
    ew_assert_floats(&out, (double[]){1.0, NAN}, 2, 1);
    tosac_tensor_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(clamp_int8_int16),
        cmocka_unit_test(clamp_floats_and_nan_modes),
        cmocka_unit_test(clamp_errors),
        cmocka_unit_test(erf_sigmoid_tanh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
