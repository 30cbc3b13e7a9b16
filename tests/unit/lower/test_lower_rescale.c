/* lower_quant_multiplier: frexp mantissa * 2^31 (2^15) rounded half to even,
 * shift = 31 - exponent (15 - exponent) within [2, 62]. Expected values derived by hand
 * (and cross-checked with python's math.frexp and round(), which rounds half to even).
 * lower_rescale: the RESCALE it emits (constants, attributes) run on the interpreter, and a
 * requantizing QDQ model compiled and run whole, on values that land exactly on .5 steps:
 * TOSA's SINGLE_ROUND adds 2^(shift-1) before the shift, so ties go towards +infinity. */
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "interp_harness.h"
#include "lower/lower.h"
#include "tosac/compile.h"
#include "tosac/interp.h"
#include "tosac/program.h"

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
    expect(1.0, 16, 16384, 14);       /* 0.5 * 2^15, shift 15 - 1 */
}

/* The multiplier's top end: 2^31-1 is the largest it takes; a mantissa that rounds to 2^31
 * is renormalised (2^30, one shift less), never stored as a negative int32. */
static void test_multiplier_limits(void **state)
{
    (void)state;
    expect((2147483648.0 - 1.0) / 2147483648.0, 32, 2147483647, 31);  /* exactly 2^31-1 */
    expect((2147483648.0 - 0.75) / 2147483648.0, 32, 2147483647, 31); /* ...47.25 -> ...47 */
    expect((2147483648.0 - 0.5) / 2147483648.0, 32, 1073741824, 30);  /* tie -> even 2^31 */
    expect((32768.0 - 1.0) / 32768.0, 16, 32767, 15);                 /* 16-bit: 2^15-1 */
    expect((32768.0 - 0.5) / 32768.0, 16, 16384, 14);
    /* shift 2 is the floor: just below 2^29 still fits, 2^29 (shift 1) is refused, and so is
     * a value just below it whose mantissa rounds up to 1.0 */
    expect(ldexp(1.0 - ldexp(1.0, -30), 29), 32, 2147483646, 2);
    int32_t m, s;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(lower_quant_multiplier(ldexp(1.0, 29), 32, &m, &s, &err),
                     TOSAC_ERR_UNSUPPORTED);
    tosac_error_clear(&err);
    assert_int_equal(lower_quant_multiplier(ldexp(1.0 - ldexp(1.0, -40), 29), 32, &m, &s, &err),
                     TOSAC_ERR_UNSUPPORTED);
    tosac_error_clear(&err);
    assert_int_equal(lower_quant_multiplier(NAN, 32, &m, &s, &err), TOSAC_ERR_UNSUPPORTED);
    /* shift 62 is the ceiling: 2^-32 is 2^30 >> 62 exactly; 2^-33 folds one bit. */
    expect(ldexp(1.0, -32), 32, 1073741824, 62);
    expect(ldexp(1.0, -33), 32, 536870912, 62);
    /* A tiny ratio is not refused: 2^-62 is multiplier 1; 2^-63 folds to 0.5 -> 0 (half to
     * even), and 0 is the correctly rounded x * 2^-63 for every |x| < 2^48. */
    expect(ldexp(1.0, -62), 32, 1, 62);
    expect(ldexp(1.0, -63), 32, 0, 62);
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

/* RESCALE of an IR input x (dtype in_dt, [n]) by scales, lowered by lower_rescale into a
 * fresh block; checks the emitted multiplier/shift constants and returns the interpreter's
 * output for the input values. */
static void run_rescale(tosac_dtype in_dt, tosac_dtype out_dt, double scale, int64_t in_zp,
                        int64_t out_zp, const int64_t *x, int n, int32_t want_mult,
                        int want_shift, int64_t *y)
{
    tosac_error err;
    tosac_error_clear(&err);
    tosa_spec spec;
    assert_int_equal(tosa_spec_parse("TOSA-1.0+INT+int16", &spec, &err), TOSAC_OK);
    ir_graph *g = ir_graph_new("main", NULL);
    int64_t shape[1] = {n};
    int xin = ir_graph_add_input(g, "x", in_dt, 1, shape, &err);
    assert_true(xin >= 0);
    tosa_graph *tg = tosa_graph_new(1, 0);
    tosa_block *b = tosa_region_add_block(tosa_graph_add_region(tg, "main"), "main");
    lower_ctx c;
    assert_int_equal(lower_ctx_init(&c, &spec, g, b, &err), TOSAC_OK);
    int t = lower_declare(&c, xin);
    lower_rescale_args a = {.out_dtype = out_dt, .scales = &scale, .n = 1, .in_zp = in_zp,
                            .out_zp = out_zp, .out = -1, .prefix = NULL};
    int out = lower_rescale(&c, t, &a);
    if (out < 0)
        fail_msg("lower_rescale: %s", err.msg);
    assert_int_equal(tosa_block_set_io(b, &t, 1, &out, 1, &err), TOSAC_OK);
    lower_ctx_fini(&c);
    const tosa_operator *op = NULL;
    for (int i = 0; i < b->n_ops; i++)
        if (b->ops[i].op == TOSA_OP_RESCALE)
            op = &b->ops[i];
    assert_non_null(op);
    assert_int_equal(op->n_inputs, 5);
    assert_true(op->attr.scale32);
    assert_int_equal(op->attr.rounding_mode, TOSA_ROUND_SINGLE);
    assert_false(op->attr.per_channel);
    const tosa_tensor *mt = &b->tensors[op->inputs[1]], *st = &b->tensors[op->inputs[2]];
    assert_int_equal(mt->dtype, TOSAC_DT_I32);
    assert_int_equal(((const int32_t *)mt->data)[0], want_mult);
    assert_int_equal(st->dtype, TOSAC_DT_I8);
    assert_int_equal(((const int8_t *)st->data)[0], want_shift);
    tosac_tensor in, res;
    th_tensor_int(&in, in_dt, 1, shape, x);
    if (tosa_interp_run(tg, &in, 1, &res, 1, &err))
        fail_msg("interp: %s", err.msg);
    assert_int_equal(res.dtype, out_dt);
    for (int i = 0; i < n; i++)
        y[i] = out_dt == TOSAC_DT_I8 ? ((const int8_t *)res.data)[i]
             : out_dt == TOSAC_DT_I16 ? ((const int16_t *)res.data)[i]
                                      : ((const int32_t *)res.data)[i];
    tosac_tensor_free(&in);
    tosac_tensor_free(&res);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

static void expect_rows(const int64_t *got, const int64_t *want, int n)
{
    for (int i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("element %d: got %lld, expected %lld", i, (long long)got[i],
                     (long long)want[i]);
}

/* Ratio 0.5 on odd values: every result is a tie, rounded towards +inf (1.5 -> 2,
 * -1.5 -> -1, 0.5 -> 1, -0.5 -> 0); in_zp subtracted first, out_zp added after, then the
 * int8 clamp (255 * 0.5 = 127.5 -> 128 -> 127). */
static void test_lower_rescale_ties(void **state)
{
    (void)state;
    const int64_t x[8] = {3, -3, 1, -1, 0, 127, -127, 5};
    int64_t y[8];
    run_rescale(TOSAC_DT_I8, TOSAC_DT_I8, 0.5, 0, 0, x, 8, 1073741824, 31, y);
    expect_rows(y, (const int64_t[]){2, -1, 1, 0, 0, 64, -63, 3}, 8);
    const int64_t xz[4] = {127, -128, -127, 0};
    run_rescale(TOSAC_DT_I8, TOSAC_DT_I8, 0.5, -128, 10, xz, 4, 1073741824, 31, y);
    /* (127+128)*0.5 = 127.5 -> 128 +10 -> clamp 127; 0 -> 10; 1*.5 -> 1 +10; 128*.5=64+10 */
    expect_rows(y, (const int64_t[]){127, 10, 11, 74}, 4);
}

/* Ratio exactly 1 (int16 -> int8) is a clamp; ratio 3 (int8 -> int32) is exact; ratio 0.1
 * on multiples of 5 lands on ties (5 * 0.1 = 0.5 -> 1, 15 -> 2, -5 -> 0, -25 -> -2): the
 * multiplier 1717986918 is 0.1 * 2^34 rounded down, so a tie comes out just below .5 and
 * SINGLE_ROUND gives the lower neighbour instead. */
static void test_lower_rescale_ratios(void **state)
{
    (void)state;
    int64_t y[6];
    const int64_t x16[6] = {300, -300, 127, -128, 1, -1};
    run_rescale(TOSAC_DT_I16, TOSAC_DT_I8, 1.0, 0, 0, x16, 6, 1073741824, 30, y);
    expect_rows(y, (const int64_t[]){127, -128, 127, -128, 1, -1}, 6);
    const int64_t x8[4] = {127, -128, 1, -1};
    run_rescale(TOSAC_DT_I8, TOSAC_DT_I32, 3.0, 0, 0, x8, 4, 1610612736, 29, y);
    expect_rows(y, (const int64_t[]){381, -384, 3, -3}, 4);
    const int64_t x5[4] = {5, 15, -5, -25};
    run_rescale(TOSAC_DT_I8, TOSAC_DT_I8, 0.1, 0, 0, x5, 4, 1717986918, 34, y);
    /* 5 * 1717986918 = 8589934590 < 2^33 = 8589934592: 0.4999999998 -> 0 */
    expect_rows(y, (const int64_t[]){0, 1, 0, -2}, 4);
}

/* The whole compile path: x (float) -> Q(1, 0) -> DQ -> Q(2, 0) -> DQ -> y, compiled for
 * TOSA-1.0+INT and run. The middle DQ -> Q requantization is a RESCALE by 1/2 in the
 * delegate; odd inputs are ties, so y = 2 * floor(x / 2 + 1/2). */
static void test_compiled_requant_ties(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    int64_t shape[1] = {8}, one[1] = {1};
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 1, shape, &err);
    const float s1 = 1.0f, s2 = 2.0f;
    const int8_t zp = 0;
    int cs1 = ir_graph_add_const(g, "s1", TOSAC_DT_F32, 0, one, &s1, sizeof s1, &err);
    int cs2 = ir_graph_add_const(g, "s2", TOSAC_DT_F32, 0, one, &s2, sizeof s2, &err);
    int czp = ir_graph_add_const(g, "zp", TOSAC_DT_I8, 0, one, &zp, sizeof zp, &err);
    int t[4];
    const char *names[4] = {"q1", "d1", "q2", "y"};
    const tosac_dtype dts[4] = {TOSAC_DT_I8, TOSAC_DT_F32, TOSAC_DT_I8, TOSAC_DT_F32};
    for (int i = 0; i < 4; i++)
        t[i] = ir_graph_add_tensor(g, names[i], dts[i], 1, shape, &err);
    int in[4][3] = {{x, cs1, czp}, {t[0], cs1, czp}, {t[1], cs2, czp}, {t[2], cs2, czp}};
    const char *ops[4] = {"QuantizeLinear", "DequantizeLinear", "QuantizeLinear",
                          "DequantizeLinear"};
    for (int i = 0; i < 4; i++)
        assert_true(ir_graph_add_node(g, ops[i], NULL, names[i], in[i], 3, &t[i], 1, &err) >= 0);
    assert_int_equal(ir_graph_mark_output(g, t[3], &err), TOSAC_OK);
    tosac_compile_options o;
    memset(&o, 0, sizeof o);
    o.spec = "TOSA-1.0+INT";
    tosac_program *p = NULL;
    char *report = NULL;
    if (tosac_compile_model(m, &o, &p, &report, &err))
        fail_msg("compile: %s", err.msg);
    assert_non_null(strstr(report, "\"placement\": \"delegate\""));
    free(report);
    const double xv[8] = {1, 3, 5, -1, -3, -5, 0, 100};
    tosac_tensor xt, yt;
    th_tensor_float(&xt, TOSAC_DT_F32, 1, shape, xv);
    if (tosac_program_run(p, &xt, 1, &yt, 1, &err))
        fail_msg("run: %s", err.msg);
    const float want[8] = {2, 4, 6, 0, -2, -4, 0, 100};
    for (int i = 0; i < 8; i++)
        if (((const float *)yt.data)[i] != want[i])
            fail_msg("y[%d] = %g, expected %g", i, ((const float *)yt.data)[i], want[i]);
    tosac_tensor_free(&xt);
    tosac_tensor_free(&yt);
    tosac_program_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_scales),
        cmocka_unit_test(test_rounding),
        cmocka_unit_test(test_clamped_shift),
        cmocka_unit_test(test_multiplier_limits),
        cmocka_unit_test(test_lower_rescale_ties),
        cmocka_unit_test(test_lower_rescale_ratios),
        cmocka_unit_test(test_compiled_requant_ties),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
