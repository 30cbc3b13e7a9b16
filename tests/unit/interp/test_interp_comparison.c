/* Comparison operators EQUAL, GREATER, GREATER_EQUAL: broadcasting, bool output, int64
 * values beyond int32, NaN operands compare false. Expected values are hand-derived. */
#include "interp_ew_testutil.h"

static void run_cmp(tosa_op op, tosac_tensor *in, const int64_t *oshape, int rank,
                    const int64_t *expect, int n)
{
    tosac_tensor out;
    tosac_error err;
    th_tensor_zero(&out, TOSAC_DT_BOOL, rank, oshape);
    if (ew_run(op, NULL, in, 2, &out, &err) != TOSAC_OK)
        fail_msg("%s", err.msg);
    ew_assert_ints(&out, expect, n);
    tosac_tensor_free(&out);
}

static void int32_broadcast(void **state)
{
    (void)state;
    tosac_tensor in[2];
    /* [2,3] vs [1,3] = {2, 5, 9} */
    th_tensor_int(&in[0], TOSAC_DT_I32, 2, EW_SHAPE(2, 3), (int64_t[]){1, 5, 10, 2, 6, 9});
    th_tensor_int(&in[1], TOSAC_DT_I32, 2, EW_SHAPE(1, 3), (int64_t[]){2, 5, 9});
    run_cmp(TOSA_OP_EQUAL, in, EW_SHAPE(2, 3), 2, (int64_t[]){0, 1, 0, 1, 0, 1}, 6);
    run_cmp(TOSA_OP_GREATER, in, EW_SHAPE(2, 3), 2, (int64_t[]){0, 0, 1, 0, 1, 0}, 6);
    run_cmp(TOSA_OP_GREATER_EQUAL, in, EW_SHAPE(2, 3), 2, (int64_t[]){0, 1, 1, 1, 1, 1}, 6);
    ew_free(in, 2);
}

static void int64_beyond_int32(void **state)
{
    (void)state;
    tosac_tensor in[2];
    const int64_t p40 = (int64_t)1 << 40;
    /* 2^40 and 0 share their low 32 bits; -2^40 < 1 although its low word is 0 */
    th_tensor_int(&in[0], TOSAC_DT_I64, 1, EW_SHAPE(3), (int64_t[]){p40, -p40, p40 + 1});
    th_tensor_int(&in[1], TOSAC_DT_I64, 1, EW_SHAPE(3), (int64_t[]){0, 1, p40 + 1});
    run_cmp(TOSA_OP_EQUAL, in, EW_SHAPE(3), 1, (int64_t[]){0, 0, 1}, 3);
    run_cmp(TOSA_OP_GREATER, in, EW_SHAPE(3), 1, (int64_t[]){1, 0, 0}, 3);
    run_cmp(TOSA_OP_GREATER_EQUAL, in, EW_SHAPE(3), 1, (int64_t[]){1, 0, 1}, 3);
    ew_free(in, 2);
}

static void floats_and_nan(void **state)
{
    (void)state;
    tosac_tensor in[2];
    /* NaN compares false everywhere; -0 == +0; inf > max */
    const double a[4] = {NAN, -0.0, INFINITY, 1.0}, b[4] = {NAN, 0.0, 65504.0, NAN};
    th_tensor_float(&in[0], TOSAC_DT_F16, 1, EW_SHAPE(4), a);
    th_tensor_float(&in[1], TOSAC_DT_F16, 1, EW_SHAPE(4), b);
    run_cmp(TOSA_OP_EQUAL, in, EW_SHAPE(4), 1, (int64_t[]){0, 1, 0, 0}, 4);
    run_cmp(TOSA_OP_GREATER, in, EW_SHAPE(4), 1, (int64_t[]){0, 0, 1, 0}, 4);
    run_cmp(TOSA_OP_GREATER_EQUAL, in, EW_SHAPE(4), 1, (int64_t[]){0, 1, 1, 0}, 4);
    ew_free(in, 2);
    th_tensor_float(&in[0], TOSAC_DT_F32, 1, EW_SHAPE(2), (double[]){1.0, 1.0 + ldexp(1, -23)});
    th_tensor_float(&in[1], TOSAC_DT_F32, 1, EW_SHAPE(1), (double[]){1.0});
    run_cmp(TOSA_OP_GREATER, in, EW_SHAPE(2), 1, (int64_t[]){0, 1}, 2);
    ew_free(in, 2);
}

static void output_must_be_bool(void **state)
{
    (void)state;
    tosac_tensor in[2], out;
    tosac_error err;
    th_tensor_int(&in[0], TOSAC_DT_I32, 1, EW_SHAPE(1), (int64_t[]){1});
    th_tensor_int(&in[1], TOSAC_DT_I32, 1, EW_SHAPE(1), (int64_t[]){1});
    th_tensor_zero(&out, TOSAC_DT_I32, 1, EW_SHAPE(1));
    ew_assert_fails(ew_run(TOSA_OP_EQUAL, NULL, in, 2, &out, &err), &err, "EQUAL",
                    "output type i32 should be bool");
    tosac_tensor_free(&out);
    ew_free(in, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(int32_broadcast),
        cmocka_unit_test(int64_beyond_int32),
        cmocka_unit_test(floats_and_nan),
        cmocka_unit_test(output_must_be_bool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
