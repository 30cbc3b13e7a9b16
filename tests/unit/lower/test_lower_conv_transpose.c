/* ConvTranspose -> TRANSPOSE_CONV2D (lower_conv_transpose.c): float, a8w8 (i32 accumulator)
 * and a16w8 (i48) single-operator models against the CPU executor (lower_core_testutil.h),
 * strides, pads, output_padding, auto_pad SAME_UPPER, all-zero / all-one inputs, and the
 * groups (depthwise and grouped, per-group TRANSPOSE_CONV2D + CONCAT), and the refusals in
 * ONNX terms (dilations, a pad as large as the kernel). */
#include "lower_core_testutil.h"

#include <string.h>

#define INT8 "TOSA-1.0+INT"
#define INT16 "TOSA-1.0+INT+int16"
#define FP "TOSA-1.0+FP"

typedef struct tc_case {
    int64_t stride, pad, opad, dil, group;
    const char *auto_pad;   /* NULL: pads */
    const float *x;         /* NULL: tx */
    bool float_bias;        /* a plain float bias, as a16w8 QDQ models keep it */
} tc_case;

static float tx[2 * 4 * 4], tw[2 * 3 * 3 * 3], tb[3];

/* x [1,2,4,4], W [2,3,3,3] (IC 2, OC 3), b [3] */
static void tc_model(lc_b *b, const void *arg)
{
    const tc_case *t = arg;
    const int64_t xs[4] = {1, 2, 4, 4};
    int64_t ws[4] = {2, 3 / t->group, 3, 3};
    int x = lc_input(b, "x", 4, xs, t->x ? t->x : tx);
    int w = lc_weight(b, "w", 4, ws, tw, 1);
    const int64_t bs[1] = {3};
    int bias = t->float_bias ? ir_graph_add_const(lc_graph(b), "b", TOSAC_DT_F32, 1, bs, tb,
                                                  sizeof tb, NULL)
                             : lc_bias(b, "b", 3, tb, x, w);
    int ins[3] = {x, w, bias};
    ir_graph *g = lc_graph(b);
    int n = lc_node(b, "ConvTranspose", "tconv", ins, 3, 1);
    const int64_t st[2] = {t->stride, t->stride}, pads[4] = {t->pad, t->pad, t->pad, t->pad};
    const int64_t op[2] = {t->opad, t->opad}, dl[2] = {t->dil, t->dil};
    ir_node_set_ints(g, n, "strides", st, 2, NULL);
    ir_node_set_ints(g, n, "output_padding", op, 2, NULL);
    ir_node_set_ints(g, n, "dilations", dl, 2, NULL);
    ir_node_set_int(g, n, "group", t->group, NULL);
    if (t->auto_pad)
        ir_node_set_string(g, n, "auto_pad", t->auto_pad, NULL);
    else
        ir_node_set_ints(g, n, "pads", pads, 4, NULL);
    lc_output(b, lc_out(b, n, 0));
}

static void data(unsigned seed)
{
    lc_fill(tx, 32, seed, 2.0f);
    lc_fill(tw, 54, seed + 1, 0.5f);
    lc_fill(tb, 3, seed + 2, 0.5f);
}

static void expect_tconv(const lc_result *r, tosac_dtype in, tosac_dtype acc)
{
    if (r->delegated != 1)
        print_message("%s\n", r->reasons);
    assert_int_equal(r->delegated, 1); /* the CPU keeps only the boundary Q/DQ */
    const lc_op_info *op = lc_find(r, TOSA_OP_TRANSPOSE_CONV2D);
    assert_non_null(op);
    assert_int_equal(op->in_dtype, in);
    assert_int_equal(op->acc_type, acc);
    assert_int_equal(op->out_dtype, acc);
}

/* stride 2, pads 1, output_padding 1: out 8x8; stride 1 pads 0: out 6x6; SAME_UPPER. */
static const tc_case geoms[] = {
    {2, 1, 1, 1, 1, NULL, NULL, false},
    {1, 0, 0, 1, 1, NULL, NULL, false},
    {2, 0, 0, 1, 1, "SAME_UPPER", NULL, false},
    {3, 2, 2, 1, 1, NULL, NULL, false},
};

static void test_float(void **s)
{
    (void)s;
    for (int i = 0; i < 4; i++) {
        data(40u + (unsigned)i);
        lc_result r;
        lc_check(tc_model, &geoms[i], LC_FLOAT, FP, 0, &r);
        expect_tconv(&r, TOSAC_DT_F32, TOSAC_DT_F32);
    }
}

static void test_int8(void **s)
{
    (void)s;
    for (int i = 0; i < 4; i++) {
        data(50u + (unsigned)i);
        lc_result r;
        lc_check(tc_model, &geoms[i], LC_A8W8, INT8, 1, &r);
        expect_tconv(&r, TOSAC_DT_I8, TOSAC_DT_I32);
        assert_int_equal(lc_count(&r, TOSA_OP_RESCALE, TOSAC_DT_I8), 1);
    }
}

static void test_int16(void **s)
{
    (void)s;
    for (int i = 0; i < 4; i++) {
        data(60u + (unsigned)i);
        lc_result r;
        lc_check(tc_model, &geoms[i], LC_A16W8, INT16, 1, &r);
        expect_tconv(&r, TOSAC_DT_I16, TOSAC_DT_I48);
        assert_int_equal(lc_count(&r, TOSA_OP_RESCALE, TOSAC_DT_I16), 1);
    }
}

static void test_degenerate(void **s)
{
    (void)s;
    static float zeros[32], ones[32];
    for (int i = 0; i < 32; i++)
        ones[i] = 1.0f;
    data(70);
    for (int k = 0; k < 2; k++) {
        tc_case t = geoms[0];
        t.x = k ? ones : zeros;
        lc_result r;
        lc_check(tc_model, &t, LC_A8W8, INT8, 1, &r);
        expect_tconv(&r, TOSAC_DT_I8, TOSAC_DT_I32);
        lc_check(tc_model, &t, LC_A16W8, INT16, 1, &r);
        expect_tconv(&r, TOSAC_DT_I16, TOSAC_DT_I48);
    }
}

/* What TOSA cannot express stays on the CPU with the reason in ONNX terms. */
static void test_refusals(void **s)
{
    (void)s;
    data(80);
    static const struct {
        tc_case t;
        const char *why;
    } cases[] = {
        {{1, 0, 0, 2, 1, NULL, NULL, false}, "ConvTranspose: dilations other than 1 (TOSA's "
                                      "TRANSPOSE_CONV2D has no dilation)"},
        {{2, 3, 0, 1, 1, NULL, NULL, false}, "ConvTranspose: padding of the kernel's size or more"},
    };
    for (int i = 0; i < 2; i++) {
        lc_result r;
        lc_check(tc_model, &cases[i].t, LC_FLOAT, FP, 0, &r);
        assert_int_equal(r.delegated, 0);
        assert_non_null(strstr(r.reasons, cases[i].why));
    }
}

/* Groups: x [1,2,4,4], group 2, W [2, ocg, 3, 3] (per-tensor weights), stride 2, pads 1:
 * ocg 1 is depthwise, ocg 2 grouped; one TRANSPOSE_CONV2D per group and a CONCAT. */
static float gb[4];

static void grouped_model(lc_b *b, const void *arg)
{
    int64_t ocg = *(const int64_t *)arg;
    const int64_t xs[4] = {1, 2, 4, 4}, ws[4] = {2, ocg, 3, 3};
    int x = lc_input(b, "x", 4, xs, tx);
    int w = lc_weight(b, "w", 4, ws, tw, -1);
    int ins[3] = {x, w, lc_bias(b, "b", 2 * ocg, gb, x, w)};
    int n = lc_node(b, "ConvTranspose", "tconv", ins, 3, 1);
    const int64_t st[2] = {2, 2}, pads[4] = {1, 1, 1, 1};
    ir_node_set_int(lc_graph(b), n, "group", 2, NULL);
    ir_node_set_ints(lc_graph(b), n, "strides", st, 2, NULL);
    ir_node_set_ints(lc_graph(b), n, "pads", pads, 4, NULL);
    lc_output(b, lc_out(b, n, 0));
}

static void test_grouped(void **s)
{
    (void)s;
    static const struct {
        lc_mode mode;
        const char *spec;
        tosac_dtype in, acc;
    } modes[3] = {{LC_FLOAT, FP, TOSAC_DT_F32, TOSAC_DT_F32},
                  {LC_A8W8, INT8, TOSAC_DT_I8, TOSAC_DT_I32},
                  {LC_A16W8, INT16, TOSAC_DT_I16, TOSAC_DT_I48}};
    for (int64_t ocg = 1; ocg <= 2; ocg++)
        for (int m = 0; m < 3; m++) {
            data(90u + (unsigned)(ocg * 3 + m));
            lc_fill(gb, 4, 99, 0.5f);
            lc_result r;
            lc_check(grouped_model, &ocg, modes[m].mode, modes[m].spec,
                     modes[m].mode == LC_FLOAT ? 0 : 1, &r);
            expect_tconv(&r, modes[m].in, modes[m].acc);
            assert_int_equal(lc_count(&r, TOSA_OP_TRANSPOSE_CONV2D, TOSAC_DT_UNKNOWN), 2);
            assert_int_equal(lc_count(&r, TOSA_OP_CONCAT, TOSAC_DT_UNKNOWN), 1);
        }
}

/* A float bias between DQ'd input and weights folds with them (pass_fold_qdq keeps it float)
 * and is quantized by the lowering at sx*sw[oc] into the i48 bias. */
static void test_int16_float_bias(void **s)
{
    (void)s;
    data(97);
    tc_case t = geoms[0];
    t.float_bias = true;
    lc_result r;
    lc_check(tc_model, &t, LC_A16W8, INT16, 1, &r);
    expect_tconv(&r, TOSAC_DT_I16, TOSAC_DT_I48);
}

/* Ethos-U55 runs TRANSPOSE_CONV2D at stride 2x2 (validate_u55.c), not at 3x3. */
static void test_u55(void **s)
{
    (void)s;
    data(95);
    lc_result r;
    lc_check(tc_model, &geoms[0], LC_A8W8, "TOSA-1.0+INT+u55", 1, &r);
    expect_tconv(&r, TOSAC_DT_I8, TOSAC_DT_I32);
    lc_check(tc_model, &geoms[3], LC_A8W8, "TOSA-1.0+INT+u55", 1, &r);
    assert_int_equal(r.delegated, 0);
    assert_non_null(strstr(r.reasons, "TRANSPOSE_CONV2D stride 3x3"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float),      cmocka_unit_test(test_int8),
        cmocka_unit_test(test_int16),      cmocka_unit_test(test_degenerate),
        cmocka_unit_test(test_refusals),   cmocka_unit_test(test_grouped),
        cmocka_unit_test(test_u55),        cmocka_unit_test(test_int16_float_bias),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
