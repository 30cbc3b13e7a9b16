/* The quantizer's graph rewrites: BatchNormalization folding, the opset upgrade (Clip
 * attributes to inputs, Softmax axis), shared ranges (Concat, pass-through ops), float
 * operators left between DQ and Q, and refusing an already quantized model. */
#include "testutil.h"

#include <math.h>
#include <string.h>

#include "quant_testgraph.h"

static tosac_code quantize(ir_model *m, quant_scheme s, int n_samples, tosac_error *err)
{
    quant_calib c;
    qtg_samples(m, n_samples, &c);
    quant_options o = {.scheme = s};
    tosac_error_clear(err);
    tosac_code rc = tosac_quantize(m, &o, &c, err);
    quant_calib_free(&c);
    return rc;
}

static const ir_node *find_op(const ir_graph *g, const char *op)
{
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i].dead && ir_node_is(&g->nodes[i], op))
            return &g->nodes[i];
    return NULL;
}

static void test_batchnorm_folded_into_conv(void **state)
{
    (void)state;
    ir_model *m = qtg_conv_relu_add(13, 1);
    quant_calib c;
    qtg_samples(m, 3, &c);
    tosac_tensor ref = qtg_run(m, &c, 0);
    quant_options o = {.scheme = QUANT_A8W8};
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_quantize(m, &o, &c, &err), TOSAC_OK);
    const ir_graph *g = m->graph;
    assert_null(find_op(g, "BatchNormalization"));
    const ir_node *conv = find_op(g, "Conv");
    /* the folded weights are what gets quantized, and the Conv feeds the Relu directly */
    assert_string_equal(qtg_in(g, conv, 1)->name, "W_bnfold_dequantized");
    assert_int_equal(find_op(g, "Relu")->inputs[0], conv->outputs[0]);
    tosac_tensor q = qtg_run(m, &c, 0);
    tosac_tensor s;
    const ir_node *dqo = qtg_producer(g, "out");
    assert_true(ir_graph_const_value(g, dqo->inputs[1], &s));
    float step = ((const float *)s.data)[0];
    const float *a = q.data, *b = ref.data;
    /* 2 output steps, as for the unfolded graph (test_quant_graph) */
    for (int64_t i = 0; i < tosac_tensor_numel(&q); i++)
        assert_true(fabsf(a[i] - b[i]) <= 2.0f * step);
    tosac_tensor_free(&q);
    tosac_tensor_free(&ref);
    quant_calib_free(&c);
    ir_model_free(m);
}

/* x [1,4] -> Clip(min 0, max 6 as opset-9 attributes) -> Softmax(axis 1) -> out */
static ir_model *clip_softmax_op9(const int64_t *shape, int rank)
{
    ir_model *m = ir_model_new();
    ir_model_set_opset(m, "", 9, NULL);
    ir_graph *g = m->graph;
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, rank, shape, NULL);
    int c = ir_graph_add_tensor(g, "clipped", TOSAC_DT_F32, rank, shape, NULL);
    int o = ir_graph_add_tensor(g, "out", TOSAC_DT_F32, rank, shape, NULL);
    int cn = ir_graph_add_node(g, "Clip", NULL, "clip", &x, 1, &c, 1, NULL);
    ir_node_set_float(g, cn, "min", 0.0f, NULL);
    ir_node_set_float(g, cn, "max", 6.0f, NULL);
    ir_graph_add_node(g, "Softmax", NULL, "softmax", &c, 1, &o, 1, NULL);
    ir_graph_mark_output(g, o, NULL);
    return m;
}

static void test_opset_upgrade_clip_softmax(void **state)
{
    (void)state;
    const int64_t shape[2] = {1, 4};
    for (int scheme = 0; scheme < 2; scheme++) {
        ir_model *m = clip_softmax_op9(shape, 2);
        tosac_error err;
        assert_int_equal(quantize(m, (quant_scheme)scheme, 2, &err), TOSAC_OK);
        assert_int_equal(ir_model_opset(m, ""), scheme == QUANT_A8W8 ? 13 : 21);
        const ir_graph *g = m->graph;
        const ir_node *clip = find_op(g, "Clip");
        assert_null(ir_node_attr(clip, "min"));
        assert_null(ir_node_attr(clip, "max"));
        assert_int_equal(clip->n_inputs, 3);
        tosac_tensor lo, hi;
        assert_true(ir_graph_const_value(g, clip->inputs[1], &lo));
        assert_true(ir_graph_const_value(g, clip->inputs[2], &hi));
        assert_true(((const float *)lo.data)[0] == 0.0f && ((const float *)hi.data)[0] == 6.0f);
        /* axis 1 of a rank-2 input: the old flattening softmax is the one-axis softmax */
        assert_int_equal(ir_node_attr_int(find_op(g, "Softmax"), "axis", -99), 1);
        ir_model_free(m);
    }
}

static void test_opset_upgrade_refuses_flattening_softmax(void **state)
{
    (void)state;
    const int64_t shape[3] = {1, 2, 3}; /* axis 1 of rank 3: softmax over 6 values before 13 */
    ir_model *m = clip_softmax_op9(shape, 3);
    tosac_error err;
    assert_int_equal(quantize(m, QUANT_A8W8, 1, &err), TOSAC_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "softmax"));
    assert_non_null(strstr(err.msg, "opset 13"));
    ir_model_free(m);
}

/* a [1,2], b [1,2] -> Concat(axis 1) -> Reshape([4]) -> Div(2) -> Add(b2) -> out */
static ir_model *concat_reshape_div(void)
{
    ir_model *m = ir_model_new();
    ir_model_set_opset(m, "", 13, NULL);
    ir_graph *g = m->graph;
    const int64_t s2[2] = {1, 2}, s4[2] = {1, 4}, one = 1, two = 2;
    int a = ir_graph_add_input(g, "a", TOSAC_DT_F32, 2, s2, NULL);
    int b = ir_graph_add_input(g, "b", TOSAC_DT_F32, 2, s2, NULL);
    int b2 = ir_graph_add_input(g, "b2", TOSAC_DT_F32, 2, s4, NULL);
    int cat = ir_graph_add_tensor(g, "cat", TOSAC_DT_F32, 2, s4, NULL);
    int r = ir_graph_add_tensor(g, "flat", TOSAC_DT_F32, 2, s4, NULL);
    int d = ir_graph_add_tensor(g, "half", TOSAC_DT_F32, 2, s4, NULL);
    int o = ir_graph_add_tensor(g, "out", TOSAC_DT_F32, 2, s4, NULL);
    const int64_t shp[2] = {1, 4};
    int shape = ir_graph_add_const(g, "shape", TOSAC_DT_I64, 1, &two, shp, sizeof shp, NULL);
    const float twof = 2.0f;
    int k = ir_graph_add_const(g, "two", TOSAC_DT_F32, 1, &one, &twof, sizeof twof, NULL);
    int cin[2] = {a, b}, rin[2] = {cat, shape}, din[2] = {r, k}, ain[2] = {d, b2};
    int cn = ir_graph_add_node(g, "Concat", NULL, "concat", cin, 2, &cat, 1, NULL);
    ir_node_set_int(g, cn, "axis", 1, NULL);
    ir_graph_add_node(g, "Reshape", NULL, "reshape", rin, 2, &r, 1, NULL);
    ir_graph_add_node(g, "Div", NULL, "div", din, 2, &d, 1, NULL);
    ir_graph_add_node(g, "Add", NULL, "add", ain, 2, &o, 1, NULL);
    ir_graph_mark_output(g, o, NULL);
    return m;
}

static float q_scale(const ir_graph *g, const char *tensor, int64_t *zp)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (ir_node_is(n, "QuantizeLinear") && strcmp(qtg_in(g, n, 0)->name, tensor) == 0) {
            tosac_tensor s, z;
            assert_true(ir_graph_const_value(g, n->inputs[1], &s));
            assert_true(ir_graph_const_value(g, n->inputs[2], &z));
            *zp = ((const int8_t *)z.data)[0];
            return ((const float *)s.data)[0];
        }
    }
    fail_msg("no QuantizeLinear reads '%s'", tensor);
    return 0;
}

static void test_shared_ranges_and_float_ops(void **state)
{
    (void)state;
    ir_model *m = concat_reshape_div();
    tosac_error err;
    assert_int_equal(quantize(m, QUANT_A8W8, 3, &err), TOSAC_OK);
    const ir_graph *g = m->graph;
    /* Concat inputs, its output and the Reshape output share one range */
    int64_t za, zb, zc, zf, zh;
    float sa = q_scale(g, "a", &za), sb = q_scale(g, "b", &zb), sc = q_scale(g, "cat", &zc);
    float sf = q_scale(g, "flat", &zf), sh = q_scale(g, "half", &zh);
    assert_true(sa == sb && sb == sc && sc == sf);
    assert_true(za == zb && zb == zc && zc == zf);
    /* the float Div by 2 became a quantized Mul by 0.5 (quant_decompose.c): it reads the DQ
     * of flat and of an int8 constant, and its output gets its own (halved) range */
    assert_null(find_op(g, "Div"));
    const ir_node *mul = find_op(g, "Mul");
    assert_true(ir_node_is(qtg_producer(g, qtg_in(g, mul, 0)->name), "DequantizeLinear"));
    assert_true(ir_node_is(qtg_producer(g, qtg_in(g, mul, 1)->name), "DequantizeLinear"));
    assert_true(fabsf(sh - sf / 2) <= sf / 64);
    ir_model_free(m);
}

static void test_refuses_quantized_model(void **state)
{
    (void)state;
    ir_model *m = qtg_conv_relu_add(13, 0);
    ir_graph *g = m->graph;
    const float one = 1.0f;
    const int8_t zero = 0;
    int s = ir_graph_add_const(g, "s", TOSAC_DT_F32, 0, NULL, &one, sizeof one, NULL);
    int z = ir_graph_add_const(g, "z", TOSAC_DT_I8, 0, NULL, &zero, sizeof zero, NULL);
    int o = g->outputs[0];
    int q = ir_graph_add_tensor(g, "q", TOSAC_DT_I8, -1, NULL, NULL);
    int in[3] = {o, s, z};
    ir_graph_add_node(g, "QuantizeLinear", NULL, "already", in, 3, &q, 1, NULL);
    ir_graph_mark_output(g, q, NULL);
    tosac_error err;
    assert_int_equal(quantize(m, QUANT_A8W8, 1, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "already quantized"));
    assert_non_null(strstr(err.msg, "'already'"));
    ir_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batchnorm_folded_into_conv),
        cmocka_unit_test(test_opset_upgrade_clip_softmax),
        cmocka_unit_test(test_opset_upgrade_refuses_flattening_softmax),
        cmocka_unit_test(test_shared_ranges_and_float_ops),
        cmocka_unit_test(test_refuses_quantized_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
