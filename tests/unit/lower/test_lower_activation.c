/* Activation lowering, one single-operator model per case, under TOSA-1.0+FP (float ops),
 * TOSA-1.0+INT (a8: TABLE / CLAMP) and TOSA-1.0+INT+int16 (a16: interpolated TABLE with an
 * i32 result, then RESCALE). Every case is run as a program against the float model on the
 * CPU executor, and its delegate alone on the interpreter (lower_act_testutil.c). */
#include "lower_act_testutil.h"

#include <math.h>
#include <string.h>

#define N 64
static const lat_op base = {"Sigmoid", 4, {1, 2, 4, 8}, 0, {{0}}, NULL, 0};

/* int8: x in [-4, 4]; int16: the same range, 256 int16 steps per int8 step */
static const lat_quant q8 = {TOSAC_DT_I8, 8.0f / 255.0f, 1.0f / 255.0f, 0, -128};
static const lat_quant q16 = {TOSAC_DT_I16, 8.0f / 255.0f / 256.0f, 1.0f / 32767.0f, 0, 0};
static const lat_quant fp = {TOSAC_DT_F32, 0, 0, 0, 0};

/* The inputs lie on the int8 grid (hence on the int16 one): the comparison with the float
 * model then measures the operator, not the input's quantization. */
static void grid(float *x)
{
    for (int i = 0; i < N; i++)
        x[i] = (float)(-127 + 4 * i) * q8.sx;
}

static lat_op op_named(const char *name)
{
    lat_op op = base;
    op.op_type = name;
    return op;
}

/* out = [lo, hi]: output quantization covering it */
static lat_quant out_range(lat_quant q, float lo, float hi)
{
    if (q.dt == TOSAC_DT_I8) {
        q.sy = (hi - lo) / 255.0f;
        q.zy = (int64_t)nearbyint(-128.0 - lo / q.sy);
    } else {
        q.sy = fmaxf(fabsf(lo), fabsf(hi)) / 32767.0f;
        q.zy = 0;
    }
    return q;
}

/* Runs op under the three specs: the float ops, the int8 TABLE, the int16 TABLE+RESCALE. */
static void three_ways(const lat_op *op, const char *float_ops, float lo, float hi)
{
    float x[N];
    grid(x);
    lat_result r;
    lat_run(op, &fp, "TOSA-1.0+FP", x, 1, &r);
    assert_int_equal(r.delegated, 1);
    assert_string_equal(r.ops, float_ops);
    lat_result_free(&r);

    lat_quant a8 = out_range(q8, lo, hi);
    lat_run(op, &a8, "TOSA-1.0+INT", x, 1, &r);
    assert_int_equal(r.delegated, 1);
    assert_string_equal(r.ops, "TABLE");
    assert_int_equal(lat_out_dtype(&r, TOSA_OP_TABLE, 0), TOSAC_DT_I8);
    lat_result_free(&r);

    /* int16: 2 steps against the float model. The output rounding is half a step, each
     * TABLE entry is rounded (half a step) and displaced by half its segment's midpoint error
     * (lower_table_values_i16 halves the worst interpolation error that way): measured 1.44
     * (Selu), 1.42 (Softplus), 1.49 (Mish), under 0.9 for the others. */
    lat_quant a16 = out_range(q16, lo, hi);
    lat_run(op, &a16, "TOSA-1.0+INT+int16", x, 2, &r);
    assert_int_equal(r.delegated, 1);
    assert_string_equal(r.ops, "TABLE RESCALE");
    assert_int_equal(lat_out_dtype(&r, TOSA_OP_TABLE, 0), TOSAC_DT_I32);
    assert_int_equal(lat_out_dtype(&r, TOSA_OP_RESCALE, 0), TOSAC_DT_I16);
    lat_result_free(&r);

    /* no FP: the float model stays on the CPU */
    lat_run(op, &fp, "TOSA-1.0+INT", x, 1, &r);
    assert_int_equal(r.delegated, 0);
    lat_result_free(&r);
}

static void test_sigmoid(void **s)
{
    (void)s;
    lat_op op = op_named("Sigmoid");
    three_ways(&op, "SIGMOID", 0.0f, 1.0f);
}

static void test_tanh(void **s)
{
    (void)s;
    lat_op op = op_named("Tanh");
    three_ways(&op, "TANH", -1.0f, 1.0f);
}

static void alpha_03(ir_graph *g, int k)
{
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(ir_node_set_float(g, k, "alpha", 0.3f, &err), TOSAC_OK);
}

static void alpha_m2(ir_graph *g, int k)
{
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(ir_node_set_float(g, k, "alpha", -2.0f, &err), TOSAC_OK);
}

static void test_leaky_relu(void **s)
{
    (void)s;
    lat_op op = op_named("LeakyRelu");
    op.attrs = alpha_03;
    /* 0 <= alpha <= 1: max(x, alpha x) */
    three_ways(&op, "MUL MAXIMUM", -1.2f, 4.0f);
    /* a negative alpha needs the comparison */
    op.attrs = alpha_m2;
    float x[N];
    grid(x);
    lat_result r;
    lat_run(&op, &fp, "TOSA-1.0+FP", x, 1, &r);
    assert_string_equal(r.ops, "MUL GREATER_EQUAL SELECT");
    lat_result_free(&r);
}

static void test_hard_sigmoid_swish(void **s)
{
    (void)s;
    lat_op op = op_named("HardSigmoid");
    three_ways(&op, "MUL ADD CLAMP", 0.0f, 1.0f);
    op = op_named("HardSwish");
    three_ways(&op, "MUL ADD CLAMP MUL", -0.375f, 4.0f);
}

static void test_elu_selu(void **s)
{
    (void)s;
    lat_op op = op_named("Elu");
    op.attrs = alpha_03;
    three_ways(&op, "EXP SUB MUL GREATER SELECT", -0.3f, 4.0f);
    op = op_named("Selu");
    three_ways(&op, "EXP SUB MUL GREATER SELECT MUL", -1.76f, 4.21f);
}

static void test_softplus_mish(void **s)
{
    (void)s;
    lat_op op = op_named("Softplus");
    three_ways(&op, "ABS MUL EXP ADD LOG MAXIMUM ADD", 0.0f, 4.02f);
    op = op_named("Mish");
    three_ways(&op, "ABS MUL EXP ADD LOG MAXIMUM ADD TANH MUL", -0.31f, 4.0f);
}

static void gelu_tanh(ir_graph *g, int k)
{
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(ir_node_set_string(g, k, "approximate", "tanh", &err), TOSAC_OK);
}

static void test_gelu(void **s)
{
    (void)s;
    lat_op op = op_named("Gelu");
    op.opset = 20;
    three_ways(&op, "MUL ERF ADD MUL MUL", -0.17f, 4.0f);
    op.attrs = gelu_tanh;
    three_ways(&op, "MUL MUL MUL ADD MUL TANH ADD MUL MUL", -0.17f, 4.0f);
}

/* Relu: quantized, a CLAMP at the zero point (a RESCALE first when the quantization changes) */
static void test_relu(void **s)
{
    (void)s;
    lat_op op = op_named("Relu");
    float x[N];
    grid(x);
    lat_result r;
    lat_run(&op, &fp, "TOSA-1.0+FP", x, 1, &r);
    assert_string_equal(r.ops, "CLAMP");
    lat_result_free(&r);
    lat_quant same = {TOSAC_DT_I8, 8.0f / 255.0f, 8.0f / 255.0f, -3, -3};
    lat_run(&op, &same, "TOSA-1.0+INT", x, 1, &r);
    assert_int_equal(r.delegated, 1);
    assert_string_equal(r.ops, "CLAMP");
    const tosa_block *b = tosa_graph_main_block(r.tg);
    const tosa_operator *cl = &b->ops[b->n_ops - 1];
    assert_int_equal((int8_t)cl->attr.min_val[0], -3); /* the zero point */
    assert_int_equal((int8_t)cl->attr.max_val[0], 127);
    lat_result_free(&r);
    lat_quant a16 = out_range(q16, 0.0f, 4.0f);
    lat_run(&op, &a16, "TOSA-1.0+INT+int16", x, 1, &r);
    assert_string_equal(r.ops, "RESCALE CLAMP");
    assert_int_equal(lat_out_dtype(&r, TOSA_OP_CLAMP, 0), TOSAC_DT_I16);
    lat_result_free(&r);
}

static const float clip_lo[1] = {-1.0f}, clip_hi[1] = {2.0f};

static void clip_attrs(ir_graph *g, int k)
{
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(ir_node_set_float(g, k, "min", -1.0f, &err), TOSAC_OK);
    assert_int_equal(ir_node_set_float(g, k, "max", 2.0f, &err), TOSAC_OK);
}

/* Clip: bounds from inputs (opset >= 11, quantized through DQ in the QDQ model) or from
 * attributes (opset 6) */
static void test_clip(void **s)
{
    (void)s;
    lat_op op = op_named("Clip");
    op.n_extra = 2;
    op.extra[0] = (lat_const){"lo", 0, {0}, clip_lo, 1.0f / 32.0f};
    op.extra[1] = (lat_const){"hi", 0, {0}, clip_hi, 1.0f / 32.0f};
    float x[N];
    grid(x);
    lat_result r;
    lat_run(&op, &fp, "TOSA-1.0+FP", x, 1, &r);
    assert_string_equal(r.ops, "CLAMP");
    lat_result_free(&r);
    /* same quantization in and out: bounds round(-1 / (8/255)) = -32, round(2 / (8/255)) = 64 */
    lat_quant same = {TOSAC_DT_I8, 8.0f / 255.0f, 8.0f / 255.0f, 0, 0};
    lat_run(&op, &same, "TOSA-1.0+INT", x, 1, &r);
    assert_int_equal(r.delegated, 1);
    assert_string_equal(r.ops, "CLAMP");
    const tosa_block *b = tosa_graph_main_block(r.tg);
    const tosa_operator *cl = &b->ops[b->n_ops - 1];
    assert_int_equal((int8_t)cl->attr.min_val[0], -32);
    assert_int_equal((int8_t)cl->attr.max_val[0], 64);
    lat_result_free(&r);
    /* the range covers the type: no CLAMP needed, and the cleanup rewires the IDENTITY */
    lat_quant a8 = out_range(q8, -1.0f, 2.0f);
    lat_run(&op, &a8, "TOSA-1.0+INT", x, 1, &r);
    assert_string_equal(r.ops, "RESCALE");
    lat_result_free(&r);

    lat_op old = op_named("Clip");
    old.opset = 6;
    old.attrs = clip_attrs;
    lat_run(&old, &fp, "TOSA-1.0+FP", x, 1, &r);
    assert_string_equal(r.ops, "CLAMP");
    const tosa_block *ob = tosa_graph_main_block(r.tg);
    float lo, hi;
    memcpy(&lo, ob->ops[ob->n_ops - 1].attr.min_val, 4);
    memcpy(&hi, ob->ops[ob->n_ops - 1].attr.max_val, 4);
    assert_true(lo == -1.0f && hi == 2.0f);
    lat_result_free(&r);
}

static const float slope_c[2] = {0.25f, -0.5f};
static const float slope_1[1] = {0.125f};

static void test_prelu(void **s)
{
    (void)s;
    lat_op op = op_named("PRelu");
    op.n_extra = 1;
    op.extra[0] = (lat_const){"slope", 3, {2, 1, 1}, slope_c, 1.0f / 128.0f};
    float x[N];
    grid(x);
    lat_result r;
    lat_run(&op, &fp, "TOSA-1.0+FP", x, 1, &r);
    assert_int_equal(r.delegated, 1);
    assert_string_equal(r.ops, "MUL GREATER_EQUAL SELECT"); /* the slope's RESHAPE folded */
    lat_result_free(&r);
    /* a per-channel slope has no table: stays on the CPU under INT */
    lat_quant a8 = out_range(q8, -1.0f, 4.0f);
    lat_run(&op, &a8, "TOSA-1.0+INT", x, 1, &r);
    assert_int_equal(r.delegated, 0);
    lat_result_free(&r);
    /* one slope: a table */
    op.extra[0] = (lat_const){"slope", 1, {1}, slope_1, 1.0f / 128.0f};
    a8 = out_range(q8, -0.5f, 4.0f);
    lat_run(&op, &a8, "TOSA-1.0+INT", x, 1, &r);
    assert_int_equal(r.delegated, 1);
    assert_string_equal(r.ops, "TABLE");
    lat_result_free(&r);
}

/* lower-more's unary rules take their quantized path from lower_table_unary: Exp, Log, Sqrt,
 * Reciprocal, Sin, Erf on positive inputs (0.25 .. 8, on the int8 grid of 1/32, zp -128). */
static void test_quantized_unary(void **s)
{
    (void)s;
    /* qtol16: the int16 case's bound in output steps (measured worst in brackets): the two
     * half-step roundings of the TABLE entries and the output, plus the entries' displacement
     * by half the midpoint error, h^2/16 |f''| with h = 1/32: 2 steps for Sin (|f''| = 1
     * against a step of 3e-5: bound 3, measured 2.33); Reciprocal's table is built at a
     * coarser shift to widen its crossing of 4 = hi (1/x at 0.25; measured 2.34). */
    static const struct {
        const char *op;
        float lo, hi;
        double qtol16;
    } cases[] = {{"Exp", 0.0f, 2981.0f, 1},      /* 0.99 */
                 {"Log", -1.39f, 2.08f, 1},      /* 0.74 */
                 {"Sqrt", 0.0f, 2.83f, 2},       /* 1.44 */
                 {"Reciprocal", 0.0f, 4.0f, 3},  /* 2.34 */
                 {"Sin", -1.0f, 1.0f, 3},        /* 2.33 */
                 {"Erf", 0.0f, 1.0f, 2}};        /* 1.41 */
    float x[N];
    for (int i = 0; i < N; i++)
        x[i] = (float)(8 + 3 * i) / 32.0f;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        lat_op op = op_named(cases[k].op);
        lat_quant a8 = out_range(q8, cases[k].lo, cases[k].hi);
        a8.sx = 1.0f / 32.0f;
        a8.zx = -128;
        lat_result r;
        lat_run(&op, &a8, "TOSA-1.0+INT", x, 1, &r);
        assert_int_equal(r.delegated, 1);
        assert_string_equal(r.ops, "TABLE");
        lat_result_free(&r);
        /* int16: x + 1, because the interpolated table's error is about h^2/16 max|f''|
         * (h = 128 input steps = 1/32): for 1/x at 0.25 that is 8e-3, beyond one step */
        lat_quant a16 = out_range(q16, cases[k].lo, cases[k].hi);
        a16.sx = 1.0f / 4096.0f;
        float x1[N];
        for (int i = 0; i < N; i++)
            x1[i] = x[i] + 1.0f;
        lat_run(&op, &a16, "TOSA-1.0+INT+int16", x1, cases[k].qtol16, &r);
        assert_string_equal(r.ops, "TABLE RESCALE");
        lat_result_free(&r);
    }
}

/* Ethos-U55 takes TABLE: the int8 sigmoid is delegated under the u55 subset too */
static void test_u55_table(void **s)
{
    (void)s;
    lat_op op = op_named("Sigmoid");
    float x[N];
    grid(x);
    lat_result r;
    lat_quant a8 = out_range(q8, 0.0f, 1.0f);
    lat_run(&op, &a8, "TOSA-1.0+INT+u55", x, 1, &r);
    assert_int_equal(r.delegated, 1);
    assert_string_equal(r.ops, "TABLE");
    lat_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sigmoid),
        cmocka_unit_test(test_tanh),
        cmocka_unit_test(test_leaky_relu),
        cmocka_unit_test(test_hard_sigmoid_swish),
        cmocka_unit_test(test_elu_selu),
        cmocka_unit_test(test_softplus_mish),
        cmocka_unit_test(test_gelu),
        cmocka_unit_test(test_relu),
        cmocka_unit_test(test_clip),
        cmocka_unit_test(test_prelu),
        cmocka_unit_test(test_quantized_unary),
        cmocka_unit_test(test_u55_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
