/* TOSA-1.0+INT+FP mixed graphs: a float operator between quantized ones. The a8w8 model
 * x -> Conv -> LayerNormalization -> Relu -> y has no integer form for the normalization.
 *   - TOSA-1.0+INT+FP: pass_unfold_float gives it DQ -> float op -> Q back, the Q/DQ lower
 *     inside (lower_quant.c): ONE delegate holds the int8 CONV2D, the float normalization and
 *     the int8 Relu, and the edge Q/DQ too (the delegate reads and writes float);
 *   - TOSA-1.0+INT: the normalization stays on the CPU ("case not handled by the lowering")
 *     and splits the graph into two integer delegates;
 *   - TOSA-1.0+FP (no PRO-INT): every node runs in float; the int8 weights' and the int32
 *     bias's DequantizeLinear are computed at compile time (float constants), so the Conv
 *     delegates as a float CONV2D; the activations' Q/DQ lower with PRO-FP operators
 *     (lower_quant.c), so the whole graph is one delegate.
 * Outputs against the reference either way (lower_core_testutil.h). */
#include "lower_core_testutil.h"

#include <string.h>

static float x[1 * 2 * 6 * 6], w[4 * 2 * 3 * 3], bias[4];
static const float ln_s[6] = {1, 0.5f, -1, 2, 1.5f, 0.25f}, ln_b[6] = {0, 0.1f, 0.2f, 0, -0.1f, 0};

static void model(lc_b *b, const void *arg)
{
    (void)arg;
    const int64_t xs[4] = {1, 2, 6, 6}, ws[4] = {4, 2, 3, 3}, ls[1] = {6};
    const int64_t pads[4] = {1, 1, 1, 1};
    int xi = lc_input(b, "x", 4, xs, x);
    int wi = lc_weight(b, "w", 4, ws, w, 0);
    int ins[3] = {xi, wi, lc_bias(b, "b", 4, bias, xi, wi)};
    int conv = lc_node(b, "Conv", "conv", ins, 3, 1);
    ir_node_set_ints(lc_graph(b), conv, "pads", pads, 4, NULL);
    int c = lc_q(b, lc_out(b, conv, 0));
    int lnin[3] = {c, lc_weight(b, "ln_s", 1, ls, ln_s, -1), lc_weight(b, "ln_b", 1, ls, ln_b, -1)};
    int ln = lc_node(b, "LayerNormalization", "ln", lnin, 3, 1);
    ir_node_set_int(lc_graph(b), ln, "axis", -1, NULL);
    int l = lc_q(b, lc_out(b, ln, 0));
    lc_output(b, lc_out(b, lc_node(b, "Relu", "relu", &l, 1, 1), 0));
}

static void test_one_delegate_with_fp(void **state)
{
    (void)state;
    lc_fill(x, 72, 1, 2.0f);
    lc_fill(w, 72, 2, 0.5f);
    lc_fill(bias, 4, 3, 0.5f);
    lc_result r;
    lc_check(model, NULL, LC_A8W8, "TOSA-1.0+INT+FP", 1, &r);
    assert_int_equal(r.n_delegates, 1);
    assert_int_equal(r.cpu, 0);
    /* Conv, LayerNormalization, Relu and the edge Q and DQ */
    assert_int_equal(r.delegated, 5);
    const lc_op_info *conv = lc_find(&r, TOSA_OP_CONV2D);
    assert_non_null(conv);
    assert_int_equal(conv->in_dtype, TOSAC_DT_I8);
    assert_int_equal(conv->acc_type, TOSAC_DT_I32);
    assert_true(lc_count(&r, TOSA_OP_RSQRT, TOSAC_DT_F32) >= 1); /* the float normalization */
    assert_true(r.dtypes[TOSAC_DT_I8] && r.dtypes[TOSAC_DT_F32]);
    assert_int_equal(r.boundary[0], TOSAC_DT_F32);
}

static void test_split_without_fp(void **state)
{
    (void)state;
    lc_fill(x, 72, 4, 2.0f);
    lc_fill(w, 72, 5, 0.5f);
    lc_fill(bias, 4, 6, 0.5f);
    lc_result r;
    lc_check(model, NULL, LC_A8W8, "TOSA-1.0+INT", 1, &r);
    assert_int_equal(r.n_delegates, 2);
    assert_int_equal(r.delegated, 2); /* Conv, Relu */
    assert_non_null(strstr(r.categories, "LayerNormalization: case not handled by the lowering"));
    assert_false(r.dtypes[TOSAC_DT_F32]);
}

static void test_fp_only(void **state)
{
    (void)state;
    lc_fill(x, 72, 7, 2.0f);
    lc_fill(w, 72, 8, 0.5f);
    lc_fill(bias, 4, 9, 0.5f);
    lc_result r;
    /* one output step: a float CONV2D sums in another order than the CPU's kernel, so an
     * activation within an ulp of a rounding boundary may quantize one step apart */
    lc_check(model, NULL, LC_A8W8, "TOSA-1.0+FP", 1, &r);
    /* one float delegate: Conv, LayerNormalization, Relu and the edge Q and DQ, whose
     * integer side stays inside (CAST f32 <-> i8 are PRO-FP) */
    assert_int_equal(r.n_delegates, 1);
    assert_int_equal(r.cpu, 0);
    assert_int_equal(r.delegated, 5);
    assert_null(strstr(r.reasons, "Conv"));
    assert_null(strstr(r.reasons, "weights are not constant"));
    const lc_op_info *conv = lc_find(&r, TOSA_OP_CONV2D);
    assert_non_null(conv);
    assert_int_equal(conv->in_dtype, TOSAC_DT_F32);
    assert_int_equal(conv->acc_type, TOSAC_DT_F32); /* f32 weights and bias, as CONV2D needs */
    assert_int_equal(lc_count(&r, TOSA_OP_RESCALE, TOSAC_DT_UNKNOWN), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_delegate_with_fp),
        cmocka_unit_test(test_split_without_fp),
        cmocka_unit_test(test_fp_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
