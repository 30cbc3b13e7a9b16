/* Elementwise binary operators and SELECT on the single-op harness. Expected values are
 * derived by hand from the TOSA 1.0 pseudocode (the derivation is in the comments). */
#include "interp_ew_testutil.h"

/* Runs a two-input integer/bool op; inputs are freed, *out holds the result (free it). */
static tosac_code bin_int(tosa_op op, const tosa_attr *attr, tosac_dtype dt, tosac_dtype odt,
                          int rank, const int64_t *s1, const int64_t *v1, const int64_t *s2,
                          const int64_t *v2, const int64_t *so, tosac_tensor *out,
                          tosac_error *err)
{
    tosac_tensor in[2];
    th_tensor_int(&in[0], dt, rank, s1, v1);
    th_tensor_int(&in[1], dt, rank, s2, v2);
    th_tensor_zero(out, odt, rank, so);
    tosac_code rc = ew_run(op, attr, in, 2, out, err);
    ew_free(in, 2);
    return rc;
}

/* Same-shape [n] integer op, result compared with expect. */
static void check_int(tosa_op op, const tosa_attr *attr, tosac_dtype dt, int n,
                      const int64_t *a, const int64_t *b, const int64_t *expect)
{
    tosac_tensor out;
    tosac_error err;
    tosac_code rc = bin_int(op, attr, dt, dt, 1, EW_SHAPE(n), a, EW_SHAPE(n), b, EW_SHAPE(n),
                            &out, &err);
    if (rc != TOSAC_OK)
        fail_msg("%s", err.msg);
    ew_assert_ints(&out, expect, n);
    tosac_tensor_free(&out);
}

/* One-element integer op expected to fail with a message holding `what`. */
static void check_int_fails(tosa_op op, const tosa_attr *attr, tosac_dtype dt, int64_t a,
                            int64_t b, const char *what)
{
    tosac_tensor out;
    tosac_error err;
    tosac_code rc = bin_int(op, attr, dt, dt, 1, EW_SHAPE(1), &a, EW_SHAPE(1), &b, EW_SHAPE(1),
                            &out, &err);
    ew_assert_fails(rc, &err, tosa_op_name(op), what);
    tosac_tensor_free(&out);
}

static void add_i32_broadcasts_both_ways(void **state)
{
    (void)state;
    /* [2,1] + [1,3] -> [2,3]: rows 1,2 plus columns 10,20,30 */
    tosac_tensor out;
    tosac_error err;
    assert_int_equal(bin_int(TOSA_OP_ADD, NULL, TOSAC_DT_I32, TOSAC_DT_I32, 2, EW_SHAPE(2, 1),
                             (int64_t[]){1, 2}, EW_SHAPE(1, 3), (int64_t[]){10, 20, 30},
                             EW_SHAPE(2, 3), &out, &err),
                     TOSAC_OK);
    ew_assert_ints(&out, (int64_t[]){11, 21, 31, 12, 22, 32}, 6);
    tosac_tensor_free(&out);
}

/* [2,1,3] op [1,4,1] -> [2,4,3] with a = 100*i + k and b = 10*j: the broadcast walk must
 * give out[i][j][k] = a op b for every index (typed int32 path and generic int64 path). */
static void broadcast_rank3_middle_axis(void **state)
{
    (void)state;
    int64_t a[6], b[4], sum[24], diff[24];
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 3; k++)
            a[i * 3 + k] = 100 * i + k;
    for (int j = 0; j < 4; j++)
        b[j] = 10 * j;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 3; k++) {
                sum[(i * 4 + j) * 3 + k] = 100 * i + 10 * j + k;
                diff[(i * 4 + j) * 3 + k] = 100 * i - 10 * j + k;
            }
    tosac_tensor out;
    tosac_error err;
    assert_int_equal(bin_int(TOSA_OP_ADD, NULL, TOSAC_DT_I32, TOSAC_DT_I32, 3, EW_SHAPE(2, 1, 3), a,
                             EW_SHAPE(1, 4, 1), b, EW_SHAPE(2, 4, 3), &out, &err), TOSAC_OK);
    ew_assert_ints(&out, sum, 24);
    tosac_tensor_free(&out);
    assert_int_equal(bin_int(TOSA_OP_SUB, NULL, TOSAC_DT_I64, TOSAC_DT_I64, 3, EW_SHAPE(2, 1, 3), a,
                             EW_SHAPE(1, 4, 1), b, EW_SHAPE(2, 4, 3), &out, &err), TOSAC_OK);
    ew_assert_ints(&out, diff, 24);
    tosac_tensor_free(&out);
}

static void add_sub_i32_range_edges(void **state)
{
    (void)state;
    /* results that land exactly on the int32 limits are fine */
    check_int(TOSA_OP_ADD, NULL, TOSAC_DT_I32, 3, (int64_t[]){INT32_MAX - 1, INT32_MIN, -1},
              (int64_t[]){1, 0, INT32_MIN + 1}, (int64_t[]){INT32_MAX, INT32_MIN, INT32_MIN});
    check_int(TOSA_OP_SUB, NULL, TOSAC_DT_I32, 2, (int64_t[]){-1, INT32_MAX},
              (int64_t[]){INT32_MAX, INT32_MAX}, (int64_t[]){INT32_MIN, 0});
    /* one past them is REQUIRE(c <= maximum_s) in apply_add_s / apply_sub_s */
    check_int_fails(TOSA_OP_ADD, NULL, TOSAC_DT_I32, INT32_MAX, 1, "REQUIRE");
    check_int_fails(TOSA_OP_SUB, NULL, TOSAC_DT_I32, 0, INT32_MIN, "REQUIRE");
}

static void add_sub_i64_beyond_int32(void **state)
{
    (void)state;
    const int64_t p40 = (int64_t)1 << 40;
    check_int(TOSA_OP_ADD, NULL, TOSAC_DT_I64, 2, (int64_t[]){p40, -p40}, (int64_t[]){p40, 5},
              (int64_t[]){2 * p40, -p40 + 5});
    check_int(TOSA_OP_SUB, NULL, TOSAC_DT_I64, 2, (int64_t[]){-p40, INT64_MIN + 1},
              (int64_t[]){p40, 1}, (int64_t[]){-2 * p40, INT64_MIN});
    check_int_fails(TOSA_OP_SUB, NULL, TOSAC_DT_I64, INT64_MIN, 1, "REQUIRE");
    check_int_fails(TOSA_OP_ADD, NULL, TOSAC_DT_I64, INT64_MAX, 1, "REQUIRE");
}

static void broadcast_errors(void **state)
{
    (void)state;
    tosac_tensor out;
    tosac_error err;
    int64_t v[6] = {0};
    /* dims 3 and 2 on axis 1 neither match nor are 1 */
    tosac_code rc = bin_int(TOSA_OP_ADD, NULL, TOSAC_DT_I32, TOSAC_DT_I32, 2, EW_SHAPE(2, 3), v,
                            EW_SHAPE(2, 2), v, EW_SHAPE(2, 3), &out, &err);
    ew_assert_fails(rc, &err, "ADD", "broadcast_shape");
    tosac_tensor_free(&out);
    /* declared output [2,4] is not the broadcast shape [2,3] */
    rc = bin_int(TOSA_OP_MAXIMUM, NULL, TOSAC_DT_I32, TOSAC_DT_I32, 2, EW_SHAPE(2, 3), v,
                 EW_SHAPE(1, 3), v, EW_SHAPE(2, 4), &out, &err);
    ew_assert_fails(rc, &err, "MAXIMUM", "broadcast_shape");
    tosac_tensor_free(&out);
    /* ranks differ */
    tosac_tensor in[2];
    th_tensor_int(&in[0], TOSAC_DT_I32, 2, EW_SHAPE(1, 3), v);
    th_tensor_int(&in[1], TOSAC_DT_I32, 1, EW_SHAPE(3), v);
    th_tensor_zero(&out, TOSAC_DT_I32, 2, EW_SHAPE(1, 3));
    ew_assert_fails(ew_run(TOSA_OP_SUB, NULL, in, 2, &out, &err), &err, "SUB", "rank");
    ew_free(in, 2);
    tosac_tensor_free(&out);
}

static void type_errors(void **state)
{
    (void)state;
    tosac_tensor in[2], out;
    tosac_error err;
    int64_t v[1] = {1};
    /* ADD has no int8 row */
    th_tensor_int(&in[0], TOSAC_DT_I8, 1, EW_SHAPE(1), v);
    th_tensor_int(&in[1], TOSAC_DT_I8, 1, EW_SHAPE(1), v);
    th_tensor_zero(&out, TOSAC_DT_I8, 1, EW_SHAPE(1));
    ew_assert_fails(ew_run(TOSA_OP_ADD, NULL, in, 2, &out, &err), &err, "ADD", "unsupported input1 type i8");
    ew_free(in, 2);
    tosac_tensor_free(&out);
    /* mixed operand types */
    th_tensor_int(&in[0], TOSAC_DT_I32, 1, EW_SHAPE(1), v);
    th_tensor_int(&in[1], TOSAC_DT_I16, 1, EW_SHAPE(1), v);
    th_tensor_zero(&out, TOSAC_DT_I32, 1, EW_SHAPE(1));
    ew_assert_fails(ew_run(TOSA_OP_BITWISE_AND, NULL, in, 2, &out, &err), &err, "BITWISE_AND",
                    "input2 type i16");
    ew_free(in, 2);
    tosac_tensor_free(&out);
}

/* MUL with a shift operand: inputs [n] of dt, output odt. */
static tosac_code run_mul(tosac_dtype dt, tosac_dtype odt, int n, const int64_t *a,
                          const int64_t *b, int64_t shift, tosac_tensor *out, tosac_error *err)
{
    tosac_tensor in[3];
    th_tensor_int(&in[0], dt, 1, EW_SHAPE(n), a);
    th_tensor_int(&in[1], dt, 1, EW_SHAPE(n), b);
    th_tensor_int(&in[2], TOSAC_DT_I8, 1, EW_SHAPE(1), &shift);
    th_tensor_zero(out, odt, 1, EW_SHAPE(n));
    tosac_code rc = ew_run(TOSA_OP_MUL, NULL, in, 3, out, err);
    ew_free(in, 3);
    return rc;
}

static void mul_i32_shift_rounds_ties_up(void **state)
{
    (void)state;
    tosac_tensor out;
    tosac_error err;
    /* shift 1: (p + 1) >> 1 — ties go toward +inf: 1.5 -> 2, -1.5 -> -1, 2.5 -> 3, -2.5 -> -2 */
    assert_int_equal(run_mul(TOSAC_DT_I32, TOSAC_DT_I32, 4, (int64_t[]){3, -3, 5, -5},
                             (int64_t[]){1, 1, 1, 1}, 1, &out, &err), TOSAC_OK);
    ew_assert_ints(&out, (int64_t[]){2, -1, 3, -2}, 4);
    tosac_tensor_free(&out);
    /* shift 2: 6/4=1.5 -> 2, -6/4 -> -1, 7/4=1.75 -> 2, -7/4=-1.75 -> -2, 5/4=1.25 -> 1 */
    assert_int_equal(run_mul(TOSAC_DT_I32, TOSAC_DT_I32, 5, (int64_t[]){3, -3, 7, -7, 5},
                             (int64_t[]){2, 2, 1, 1, 1}, 2, &out, &err), TOSAC_OK);
    ew_assert_ints(&out, (int64_t[]){2, -1, 2, -2, 1}, 5);
    tosac_tensor_free(&out);
    /* shift 63 on INT32_MIN^2 = 2^62: (2^62 + 2^62) >> 63 = 1 (no int64 overflow) */
    assert_int_equal(run_mul(TOSAC_DT_I32, TOSAC_DT_I32, 1, (int64_t[]){INT32_MIN},
                             (int64_t[]){INT32_MIN}, 63, &out, &err), TOSAC_OK);
    ew_assert_ints(&out, (int64_t[]){1}, 1);
    tosac_tensor_free(&out);
    /* shift 31: 2^62 -> 2^31 does not fit int32 */
    ew_assert_fails(run_mul(TOSAC_DT_I32, TOSAC_DT_I32, 1, (int64_t[]){INT32_MIN},
                            (int64_t[]){INT32_MIN}, 31, &out, &err), &err, "MUL", "REQUIRE");
    tosac_tensor_free(&out);
}

static void mul_integer_types(void **state)
{
    (void)state;
    tosac_tensor out;
    tosac_error err;
    /* shift 0 keeps the low 32 bits: 65536^2 = 2^32 -> 0; 46341^2 = 2147488281 -> -2147479015 */
    assert_int_equal(run_mul(TOSAC_DT_I32, TOSAC_DT_I32, 3, (int64_t[]){65536, 46341, -7},
                             (int64_t[]){65536, 46341, 6}, 0, &out, &err), TOSAC_OK);
    ew_assert_ints(&out, (int64_t[]){0, -2147479015LL, -42}, 3);
    tosac_tensor_free(&out);
    /* int8 and int16 widen to int32 exactly */
    assert_int_equal(run_mul(TOSAC_DT_I8, TOSAC_DT_I32, 2, (int64_t[]){-128, 127},
                             (int64_t[]){-128, -128}, 0, &out, &err), TOSAC_OK);
    ew_assert_ints(&out, (int64_t[]){16384, -16256}, 2);
    tosac_tensor_free(&out);
    assert_int_equal(run_mul(TOSAC_DT_I16, TOSAC_DT_I32, 1, (int64_t[]){-32768},
                             (int64_t[]){-32768}, 0, &out, &err), TOSAC_OK);
    ew_assert_ints(&out, (int64_t[]){1073741824}, 1);
    tosac_tensor_free(&out);
    /* int64: 2^20 * 2^20 = 2^40; 2^32 * 2^32 wraps to 0 (low 64 bits) */
    assert_int_equal(run_mul(TOSAC_DT_I64, TOSAC_DT_I64, 2, (int64_t[]){1 << 20, (int64_t)1 << 32},
                             (int64_t[]){-(1 << 20), (int64_t)1 << 32}, 0, &out, &err), TOSAC_OK);
    ew_assert_ints(&out, (int64_t[]){-((int64_t)1 << 40), 0}, 2);
    tosac_tensor_free(&out);
    /* a shift is only allowed for int32 */
    ew_assert_fails(run_mul(TOSAC_DT_I8, TOSAC_DT_I32, 1, (int64_t[]){1}, (int64_t[]){1}, 1,
                            &out, &err), &err, "MUL", "shift == 0");
    tosac_tensor_free(&out);
    /* int8 MUL must produce int32 */
    ew_assert_fails(run_mul(TOSAC_DT_I8, TOSAC_DT_I8, 1, (int64_t[]){1}, (int64_t[]){1}, 0,
                            &out, &err), &err, "MUL", "output type i8");
    tosac_tensor_free(&out);
}

static void shifts(void **state)
{
    (void)state;
    tosa_attr round;
    memset(&round, 0, sizeof round);
    round.round = true;
    /* -7 >> 1 = -4 (floor); with round the dropped bit (1) adds one: -3; 7 >> 1 = 3 -> 4 */
    check_int(TOSA_OP_ARITHMETIC_RIGHT_SHIFT, NULL, TOSAC_DT_I8, 3, (int64_t[]){-7, 7, -128},
              (int64_t[]){1, 1, 7}, (int64_t[]){-4, 3, -1});
    check_int(TOSA_OP_ARITHMETIC_RIGHT_SHIFT, &round, TOSAC_DT_I8, 4,
              (int64_t[]){-7, 7, 6, -128}, (int64_t[]){1, 1, 1, 0}, (int64_t[]){-3, 4, 3, -128});
    /* int32: -1 >> 31 = -1; rounded, bit 30 of -1 is set: 0 */
    check_int(TOSA_OP_ARITHMETIC_RIGHT_SHIFT, &round, TOSAC_DT_I32, 1, (int64_t[]){-1},
              (int64_t[]){31}, (int64_t[]){0});
    check_int(TOSA_OP_ARITHMETIC_RIGHT_SHIFT, NULL, TOSAC_DT_I64, 1,
              (int64_t[]){-((int64_t)1 << 40)}, (int64_t[]){40}, (int64_t[]){-1});
    check_int_fails(TOSA_OP_ARITHMETIC_RIGHT_SHIFT, NULL, TOSAC_DT_I8, 1, 8, "REQUIRE");
    check_int_fails(TOSA_OP_LOGICAL_LEFT_SHIFT, NULL, TOSAC_DT_I32, 1, -1, "REQUIRE");
    /* left shift truncates to the type: 65 << 1 = 130 -> -126; 1 << 31 = INT32_MIN */
    check_int(TOSA_OP_LOGICAL_LEFT_SHIFT, NULL, TOSAC_DT_I8, 2, (int64_t[]){65, -1},
              (int64_t[]){1, 7}, (int64_t[]){-126, -128});
    check_int(TOSA_OP_LOGICAL_LEFT_SHIFT, NULL, TOSAC_DT_I32, 1, (int64_t[]){1}, (int64_t[]){31},
              (int64_t[]){INT32_MIN});
    check_int(TOSA_OP_LOGICAL_LEFT_SHIFT, NULL, TOSAC_DT_I64, 1, (int64_t[]){3}, (int64_t[]){40},
              (int64_t[]){(int64_t)3 << 40});
    /* logical right shift works on the type's unsigned bits: int8 -1 = 0xff >> 1 = 127 */
    check_int(TOSA_OP_LOGICAL_RIGHT_SHIFT, NULL, TOSAC_DT_I8, 2, (int64_t[]){-1, -128},
              (int64_t[]){1, 7}, (int64_t[]){127, 1});
    check_int(TOSA_OP_LOGICAL_RIGHT_SHIFT, NULL, TOSAC_DT_I16, 1, (int64_t[]){-2},
              (int64_t[]){0}, (int64_t[]){-2});
    check_int(TOSA_OP_LOGICAL_RIGHT_SHIFT, NULL, TOSAC_DT_I32, 1, (int64_t[]){-1},
              (int64_t[]){28}, (int64_t[]){15});
    check_int(TOSA_OP_LOGICAL_RIGHT_SHIFT, NULL, TOSAC_DT_I64, 1, (int64_t[]){-1},
              (int64_t[]){60}, (int64_t[]){15});
}

static void bitwise_and_logical(void **state)
{
    (void)state;
    /* 0x0f0f op 0x00ff; -1 op 5 */
    check_int(TOSA_OP_BITWISE_AND, NULL, TOSAC_DT_I16, 2, (int64_t[]){0x0f0f, -1},
              (int64_t[]){0x00ff, 5}, (int64_t[]){0x000f, 5});
    check_int(TOSA_OP_BITWISE_OR, NULL, TOSAC_DT_I16, 2, (int64_t[]){0x0f0f, -1},
              (int64_t[]){0x00ff, 5}, (int64_t[]){0x0fff, -1});
    check_int(TOSA_OP_BITWISE_XOR, NULL, TOSAC_DT_I16, 2, (int64_t[]){0x0f0f, -1},
              (int64_t[]){0x00ff, 5}, (int64_t[]){0x0ff0, -6});
    check_int(TOSA_OP_BITWISE_XOR, NULL, TOSAC_DT_I64, 1, (int64_t[]){(int64_t)1 << 40},
              (int64_t[]){-1}, (int64_t[]){-((int64_t)1 << 40) - 1});
    const int64_t a[4] = {0, 0, 1, 1}, b[4] = {0, 1, 0, 1};
    check_int(TOSA_OP_LOGICAL_AND, NULL, TOSAC_DT_BOOL, 4, a, b, (int64_t[]){0, 0, 0, 1});
    check_int(TOSA_OP_LOGICAL_OR, NULL, TOSAC_DT_BOOL, 4, a, b, (int64_t[]){0, 1, 1, 1});
    check_int(TOSA_OP_LOGICAL_XOR, NULL, TOSAC_DT_BOOL, 4, a, b, (int64_t[]){0, 1, 1, 0});
}

static void intdiv_truncates_and_checks(void **state)
{
    (void)state;
    check_int(TOSA_OP_INTDIV, NULL, TOSAC_DT_I32, 5, (int64_t[]){7, -7, 7, -7, INT32_MIN},
              (int64_t[]){2, 2, -2, -2, 1}, (int64_t[]){3, -3, -3, 3, INT32_MIN});
    /* -2^40 / 3 = -366503875925.33 -> -366503875925 */
    check_int(TOSA_OP_INTDIV, NULL, TOSAC_DT_I64, 1, (int64_t[]){-((int64_t)1 << 40)},
              (int64_t[]){3}, (int64_t[]){-366503875925LL});
    check_int_fails(TOSA_OP_INTDIV, NULL, TOSAC_DT_I32, 5, 0, "value2 != 0");
    check_int_fails(TOSA_OP_INTDIV, NULL, TOSAC_DT_I32, INT32_MIN, -1, "maximum_s");
    check_int_fails(TOSA_OP_INTDIV, NULL, TOSAC_DT_I64, INT64_MIN, -1, "maximum_s");
}

static void max_min_integers(void **state)
{
    (void)state;
    const int64_t p40 = (int64_t)1 << 40;
    check_int(TOSA_OP_MAXIMUM, NULL, TOSAC_DT_I32, 3, (int64_t[]){-5, INT32_MIN, 7},
              (int64_t[]){3, INT32_MAX, 7}, (int64_t[]){3, INT32_MAX, 7});
    check_int(TOSA_OP_MINIMUM, NULL, TOSAC_DT_I32, 3, (int64_t[]){-5, INT32_MIN, 7},
              (int64_t[]){3, INT32_MAX, 7}, (int64_t[]){-5, INT32_MIN, 7});
    /* int64 values whose low 32 bits would compare the other way */
    check_int(TOSA_OP_MAXIMUM, NULL, TOSAC_DT_I64, 2, (int64_t[]){p40, -p40}, (int64_t[]){1, -1},
              (int64_t[]){p40, -1});
    check_int(TOSA_OP_MINIMUM, NULL, TOSAC_DT_I64, 2, (int64_t[]){p40, -p40}, (int64_t[]){1, -1},
              (int64_t[]){1, -p40});
}

/* Two-input float op on [n] tensors of dt. */
static tosac_code bin_float(tosa_op op, const tosa_attr *attr, tosac_dtype dt, int n,
                            const double *a, const double *b, tosac_tensor *out, tosac_error *err)
{
    tosac_tensor in[3];
    th_tensor_float(&in[0], dt, 1, EW_SHAPE(n), a);
    th_tensor_float(&in[1], dt, 1, EW_SHAPE(n), b);
    th_tensor_int(&in[2], TOSAC_DT_I8, 1, EW_SHAPE(1), (int64_t[]){0}); /* MUL shift */
    th_tensor_zero(out, dt, 1, EW_SHAPE(n));
    tosac_code rc = ew_run(op, attr, in, op == TOSA_OP_MUL ? 3 : 2, out, err);
    ew_free(in, 3);
    return rc;
}

static void check_float(tosa_op op, const tosa_attr *attr, tosac_dtype dt, int n, const double *a,
                        const double *b, const double *expect)
{
    tosac_tensor out;
    tosac_error err;
    if (bin_float(op, attr, dt, n, a, b, &out, &err) != TOSAC_OK)
        fail_msg("%s", err.msg);
    ew_assert_floats(&out, expect, n, 1);
    tosac_tensor_free(&out);
}

static void float_arithmetic(void **state)
{
    (void)state;
    check_float(TOSA_OP_ADD, NULL, TOSAC_DT_F32, 2, (double[]){1.5, -0.25}, (double[]){2.25, 0.25},
                (double[]){3.75, 0.0});
    check_float(TOSA_OP_SUB, NULL, TOSAC_DT_F32, 2, (double[]){1.5, INFINITY}, (double[]){2.0, INFINITY},
                (double[]){-0.5, NAN});
    check_float(TOSA_OP_MUL, NULL, TOSAC_DT_F32, 2, (double[]){1.5, -0.0}, (double[]){-2.0, 3.0},
                (double[]){-3.0, -0.0});
    /* fp16: 1 + 2^-11 is a tie between 1 and 1+2^-10 -> even (1); 1 + 3*2^-11 -> 1 + 2^-9 */
    check_float(TOSA_OP_ADD, NULL, TOSAC_DT_F16, 2, (double[]){1.0, 1.0},
                (double[]){ldexp(1, -11), 3 * ldexp(1, -11)}, (double[]){1.0, 1.0 + ldexp(1, -9)});
    /* bf16 (8 significant bits): 1 + 2^-8 is a tie -> even (1); 3 * 1.5 = 4.5 */
    check_float(TOSA_OP_ADD, NULL, TOSAC_DT_BF16, 1, (double[]){1.0}, (double[]){ldexp(1, -8)},
                (double[]){1.0});
    check_float(TOSA_OP_MUL, NULL, TOSAC_DT_BF16, 1, (double[]){3.0}, (double[]){1.5},
                (double[]){4.5});
    /* pow: exact powers, and a negative base with a fractional exponent is NaN */
    check_float(TOSA_OP_POW, NULL, TOSAC_DT_F32, 3, (double[]){2.0, 4.0, -8.0},
                (double[]){10.0, 0.5, 1.0 / 3.0}, (double[]){1024.0, 2.0, NAN});
}

static void float_max_min_nan_modes(void **state)
{
    (void)state;
    tosa_attr prop, ign;
    memset(&prop, 0, sizeof prop);
    memset(&ign, 0, sizeof ign);
    prop.nan_mode = TOSA_NAN_PROPAGATE;
    ign.nan_mode = TOSA_NAN_IGNORE;
    const double a[3] = {1.0, NAN, NAN}, b[3] = {2.0, 3.0, NAN};
    check_float(TOSA_OP_MAXIMUM, &prop, TOSAC_DT_F32, 3, a, b, (double[]){2.0, NAN, NAN});
    check_float(TOSA_OP_MAXIMUM, &ign, TOSAC_DT_F32, 3, a, b, (double[]){2.0, 3.0, NAN});
    check_float(TOSA_OP_MINIMUM, &prop, TOSAC_DT_F16, 3, a, b, (double[]){1.0, NAN, NAN});
    check_float(TOSA_OP_MINIMUM, &ign, TOSAC_DT_F16, 3, a, b, (double[]){1.0, 3.0, NAN});
    /* float ops need a real nan_mode */
    tosac_tensor out;
    tosac_error err;
    ew_assert_fails(bin_float(TOSA_OP_MAXIMUM, NULL, TOSAC_DT_F32, 1, a, b, &out, &err), &err,
                    "MAXIMUM", "nan_mode");
    tosac_tensor_free(&out);
}

static void select_broadcasts_any_type(void **state)
{
    (void)state;
    tosac_tensor in[3], out;
    tosac_error err;
    /* cond [2,1] = {1,0}; input2 [2,2] i8; input3 [1,2] i8 -> row 0 from input2, row 1 input3 */
    th_tensor_int(&in[0], TOSAC_DT_BOOL, 2, EW_SHAPE(2, 1), (int64_t[]){1, 0});
    th_tensor_int(&in[1], TOSAC_DT_I8, 2, EW_SHAPE(2, 2), (int64_t[]){1, 2, 3, 4});
    th_tensor_int(&in[2], TOSAC_DT_I8, 2, EW_SHAPE(1, 2), (int64_t[]){-1, -2});
    th_tensor_zero(&out, TOSAC_DT_I8, 2, EW_SHAPE(2, 2));
    assert_int_equal(ew_run(TOSA_OP_SELECT, NULL, in, 3, &out, &err), TOSAC_OK);
    ew_assert_ints(&out, (int64_t[]){1, 2, -1, -2}, 4);
    ew_free(in, 3);
    tosac_tensor_free(&out);
    /* int64 beyond int32, element-wise condition */
    const int64_t p40 = (int64_t)1 << 40;
    th_tensor_int(&in[0], TOSAC_DT_BOOL, 1, EW_SHAPE(2), (int64_t[]){0, 1});
    th_tensor_int(&in[1], TOSAC_DT_I64, 1, EW_SHAPE(2), (int64_t[]){p40, p40 + 1});
    th_tensor_int(&in[2], TOSAC_DT_I64, 1, EW_SHAPE(2), (int64_t[]){-p40, -p40 - 1});
    th_tensor_zero(&out, TOSAC_DT_I64, 1, EW_SHAPE(2));
    assert_int_equal(ew_run(TOSA_OP_SELECT, NULL, in, 3, &out, &err), TOSAC_OK);
    ew_assert_ints(&out, (int64_t[]){-p40, p40 + 1}, 2);
    ew_free(in, 3);
    tosac_tensor_free(&out);
    /* f32, scalar-like [1] condition broadcast over [3] */
    th_tensor_int(&in[0], TOSAC_DT_BOOL, 1, EW_SHAPE(1), (int64_t[]){0});
    th_tensor_float(&in[1], TOSAC_DT_F32, 1, EW_SHAPE(3), (double[]){1, 2, 3});
    th_tensor_float(&in[2], TOSAC_DT_F32, 1, EW_SHAPE(3), (double[]){-0.5, NAN, 7});
    th_tensor_zero(&out, TOSAC_DT_F32, 1, EW_SHAPE(3));
    assert_int_equal(ew_run(TOSA_OP_SELECT, NULL, in, 3, &out, &err), TOSAC_OK);
    ew_assert_floats(&out, (double[]){-0.5, NAN, 7}, 3, 1);
    tosac_tensor_free(&out);
    /* condition must be bool */
    tosac_tensor_free(&in[0]);
    th_tensor_int(&in[0], TOSAC_DT_I8, 1, EW_SHAPE(1), (int64_t[]){0});
    th_tensor_zero(&out, TOSAC_DT_F32, 1, EW_SHAPE(3));
    ew_assert_fails(ew_run(TOSA_OP_SELECT, NULL, in, 3, &out, &err), &err, "SELECT",
                    "unsupported input1 type i8");
    ew_free(in, 3);
    tosac_tensor_free(&out);
}

static void rank0_operands(void **state)
{
    (void)state;
    tosac_tensor out;
    tosac_error err;
    assert_int_equal(bin_int(TOSA_OP_SUB, NULL, TOSAC_DT_I32, TOSAC_DT_I32, 0, NULL,
                             (int64_t[]){5}, NULL, (int64_t[]){7}, NULL, &out, &err), TOSAC_OK);
    ew_assert_ints(&out, (int64_t[]){-2}, 1);
    tosac_tensor_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(add_i32_broadcasts_both_ways),
        cmocka_unit_test(broadcast_rank3_middle_axis),
        cmocka_unit_test(add_sub_i32_range_edges),
        cmocka_unit_test(add_sub_i64_beyond_int32),
        cmocka_unit_test(broadcast_errors),
        cmocka_unit_test(type_errors),
        cmocka_unit_test(mul_i32_shift_rounds_ties_up),
        cmocka_unit_test(mul_integer_types),
        cmocka_unit_test(shifts),
        cmocka_unit_test(bitwise_and_logical),
        cmocka_unit_test(intdiv_truncates_and_checks),
        cmocka_unit_test(max_min_integers),
        cmocka_unit_test(float_arithmetic),
        cmocka_unit_test(float_max_min_nan_modes),
        cmocka_unit_test(select_broadcasts_any_type),
        cmocka_unit_test(rank0_operands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
