/* Reduction operators along an axis: hand-computed sums/products/extremes, int64 beyond
 * int32, the step-by-step int32 overflow REQUIRE, nan_mode, axis and shape errors. */
#include "interp_ew_testutil.h"

static tosa_attr axis_attr(int32_t axis, uint32_t nan_mode)
{
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.axis = axis;
    a.nan_mode = nan_mode;
    return a;
}

static tosac_code reduce_int(tosa_op op, tosac_dtype dt, int32_t axis, int rank,
                             const int64_t *shape, const int64_t *v, const int64_t *oshape,
                             tosac_tensor *out, tosac_error *err)
{
    tosac_tensor in;
    tosa_attr a = axis_attr(axis, TOSA_NAN_PROPAGATE);
    th_tensor_int(&in, dt, rank, shape, v);
    th_tensor_zero(out, dt, rank, oshape);
    tosac_code rc = ew_run(op, &a, &in, 1, out, err);
    tosac_tensor_free(&in);
    return rc;
}

static void check_int(tosa_op op, tosac_dtype dt, int32_t axis, int rank, const int64_t *shape,
                      const int64_t *v, const int64_t *oshape, const int64_t *expect, int n)
{
    tosac_tensor out;
    tosac_error err;
    if (reduce_int(op, dt, axis, rank, shape, v, oshape, &out, &err) != TOSAC_OK)
        fail_msg("%s", err.msg);
    ew_assert_ints(&out, expect, n);
    tosac_tensor_free(&out);
}

/* [2,3] = {{1,2,3},{4,5,6}} */
static const int64_t m23[6] = {1, 2, 3, 4, 5, 6};

static void sum_along_each_axis(void **state)
{
    (void)state;
    check_int(TOSA_OP_REDUCE_SUM, TOSAC_DT_I32, 0, 2, EW_SHAPE(2, 3), m23, EW_SHAPE(1, 3),
              (int64_t[]){5, 7, 9}, 3);
    check_int(TOSA_OP_REDUCE_SUM, TOSAC_DT_I32, 1, 2, EW_SHAPE(2, 3), m23, EW_SHAPE(2, 1),
              (int64_t[]){6, 15}, 2);
    /* middle axis of [2,3,2]: value = 100*i + 10*j + k; sum over j = 300*i... */
    int64_t v[12];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 2; k++)
                v[i * 6 + j * 2 + k] = 100 * i + 10 * j + k;
    /* sum_j (100i + 10j + k) = 300i + 30 + 3k */
    check_int(TOSA_OP_REDUCE_SUM, TOSAC_DT_I32, 1, 3, EW_SHAPE(2, 3, 2), v, EW_SHAPE(2, 1, 2),
              (int64_t[]){30, 33, 330, 333}, 4);
    const int64_t p40 = (int64_t)1 << 40;
    check_int(TOSA_OP_REDUCE_SUM, TOSAC_DT_I64, 0, 1, EW_SHAPE(3), (int64_t[]){p40, p40, -1},
              EW_SHAPE(1), (int64_t[]){2 * p40 - 1}, 1);
}

static void int_sum_overflow_is_checked_per_step(void **state)
{
    (void)state;
    tosac_tensor out;
    tosac_error err;
    /* INT32_MAX + 1 - 1 fits in the end, but apply_add_s fails on the first step */
    ew_assert_fails(reduce_int(TOSA_OP_REDUCE_SUM, TOSAC_DT_I32, 0, 1, EW_SHAPE(3),
                               (int64_t[]){INT32_MAX, 1, -1}, EW_SHAPE(1), &out, &err),
                    &err, "REDUCE_SUM", "REQUIRE");
    tosac_tensor_free(&out);
    /* same order, reversed signs first: fine */
    check_int(TOSA_OP_REDUCE_SUM, TOSAC_DT_I32, 0, 1, EW_SHAPE(3), (int64_t[]){INT32_MAX, -1, 1},
              EW_SHAPE(1), (int64_t[]){INT32_MAX}, 1);
}

static void max_min_all_any(void **state)
{
    (void)state;
    check_int(TOSA_OP_REDUCE_MAX, TOSAC_DT_I8, 1, 2, EW_SHAPE(2, 3), (int64_t[]){-128, -5, -7, 3, 127, 0},
              EW_SHAPE(2, 1), (int64_t[]){-5, 127}, 2);
    check_int(TOSA_OP_REDUCE_MIN, TOSAC_DT_I16, 0, 2, EW_SHAPE(2, 3),
              (int64_t[]){-32768, 5, 7, 3, 32767, -1}, EW_SHAPE(1, 3), (int64_t[]){-32768, 5, -1}, 3);
    const int64_t p40 = (int64_t)1 << 40;
    check_int(TOSA_OP_REDUCE_MAX, TOSAC_DT_I64, 0, 1, EW_SHAPE(3), (int64_t[]){1, p40, -p40},
              EW_SHAPE(1), (int64_t[]){p40}, 1);
    check_int(TOSA_OP_REDUCE_MIN, TOSAC_DT_I64, 0, 1, EW_SHAPE(3), (int64_t[]){1, p40, -p40},
              EW_SHAPE(1), (int64_t[]){-p40}, 1);
    const int64_t b[6] = {1, 1, 0, 0, 1, 0}; /* columns: {1,0} {1,1} {0,0} */
    check_int(TOSA_OP_REDUCE_ALL, TOSAC_DT_BOOL, 0, 2, EW_SHAPE(2, 3), b, EW_SHAPE(1, 3),
              (int64_t[]){0, 1, 0}, 3);
    check_int(TOSA_OP_REDUCE_ANY, TOSAC_DT_BOOL, 0, 2, EW_SHAPE(2, 3), b, EW_SHAPE(1, 3),
              (int64_t[]){1, 1, 0}, 3);
}

static void reduce_float(tosa_op op, tosac_dtype dt, uint32_t nan_mode, int n, const double *v,
                         const double *expect)
{
    /* [2,n/2] reduced along axis 1 */
    tosac_tensor in, out;
    tosac_error err;
    tosa_attr a = axis_attr(1, nan_mode);
    th_tensor_float(&in, dt, 2, EW_SHAPE(2, n / 2), v);
    th_tensor_zero(&out, dt, 2, EW_SHAPE(2, 1));
    if (ew_run(op, &a, &in, 1, &out, &err) != TOSAC_OK)
        fail_msg("%s", err.msg);
    ew_assert_floats(&out, expect, 2, 1);
    tosac_tensor_free(&in);
    tosac_tensor_free(&out);
}

static void float_reductions(void **state)
{
    (void)state;
    const double v[6] = {1.5, -2.0, 4.0, NAN, 3.0, -1.0};
    reduce_float(TOSA_OP_REDUCE_SUM, TOSAC_DT_F32, 0, 6, v, (double[]){3.5, NAN});
    reduce_float(TOSA_OP_REDUCE_PRODUCT, TOSAC_DT_F16, 0, 6, v, (double[]){-12.0, NAN});
    reduce_float(TOSA_OP_REDUCE_MAX, TOSAC_DT_F32, TOSA_NAN_PROPAGATE, 6, v, (double[]){4.0, NAN});
    reduce_float(TOSA_OP_REDUCE_MAX, TOSAC_DT_F32, TOSA_NAN_IGNORE, 6, v, (double[]){4.0, 3.0});
    reduce_float(TOSA_OP_REDUCE_MIN, TOSAC_DT_BF16, TOSA_NAN_IGNORE, 6, v, (double[]){-2.0, -1.0});
    /* IGNORE over NaNs only leaves NaN; PROPAGATE min of {inf, inf} is inf */
    reduce_float(TOSA_OP_REDUCE_MIN, TOSAC_DT_F32, TOSA_NAN_IGNORE, 4,
                 (double[]){NAN, NAN, INFINITY, INFINITY}, (double[]){NAN, INFINITY});
    /* fp16 sum rounds once: 2048 + 1 + 1 = 2050 exactly (2049 alone is not representable) */
    reduce_float(TOSA_OP_REDUCE_SUM, TOSAC_DT_F16, 0, 6, (double[]){2048, 1, 1, 0.5, 0.25, 0.25},
                 (double[]){2050, 1.0});
}

static void axis_and_shape_errors(void **state)
{
    (void)state;
    tosac_tensor out;
    tosac_error err;
    ew_assert_fails(reduce_int(TOSA_OP_REDUCE_SUM, TOSAC_DT_I32, 2, 2, EW_SHAPE(2, 3), m23,
                               EW_SHAPE(2, 1), &out, &err), &err, "REDUCE_SUM", "axis >= rank");
    tosac_tensor_free(&out);
    ew_assert_fails(reduce_int(TOSA_OP_REDUCE_MAX, TOSAC_DT_I32, -1, 2, EW_SHAPE(2, 3), m23,
                               EW_SHAPE(2, 1), &out, &err), &err, "REDUCE_MAX", "axis < 0");
    tosac_tensor_free(&out);
    /* output keeps size 3 on the reduced axis */
    ew_assert_fails(reduce_int(TOSA_OP_REDUCE_MIN, TOSAC_DT_I32, 1, 2, EW_SHAPE(2, 3), m23,
                               EW_SHAPE(2, 3), &out, &err), &err, "REDUCE_MIN", "shape[axis] != 1");
    tosac_tensor_free(&out);
    /* other dims must match */
    ew_assert_fails(reduce_int(TOSA_OP_REDUCE_SUM, TOSAC_DT_I32, 1, 2, EW_SHAPE(2, 3), m23,
                               EW_SHAPE(3, 1), &out, &err), &err, "REDUCE_SUM", "output dim 0");
    tosac_tensor_free(&out);
    /* REDUCE_PRODUCT is float-only */
    ew_assert_fails(reduce_int(TOSA_OP_REDUCE_PRODUCT, TOSAC_DT_I32, 1, 2, EW_SHAPE(2, 3), m23,
                               EW_SHAPE(2, 1), &out, &err), &err, "REDUCE_PRODUCT", "unsupported");
    tosac_tensor_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sum_along_each_axis),
        cmocka_unit_test(int_sum_overflow_is_checked_per_step),
        cmocka_unit_test(max_min_all_any),
        cmocka_unit_test(float_reductions),
        cmocka_unit_test(axis_and_shape_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
