/* pass_decompose_div: float Div becomes Mul by a reciprocal; the CPU executor computes the
 * same values (within one float rounding) before and after. */
#include "passes_testutil.h"

#include <math.h>

static const int64_t s4[1] = {4};
static const float xv[4] = {3.0f, -1.5f, 7.0f, 0.25f};

static void run_ab(ir_graph *g, const float *b, float *out)
{
    tosac_tensor in[2] = {pt_host(TOSAC_DT_F32, 1, s4, xv), pt_host(TOSAC_DT_F32, 1, s4, b)}, o;
    pt_cpu(g, in, g->n_inputs, &o, 1);
    memcpy(out, o.data, sizeof(float) * 4);
    tosac_tensor_free(&o);
}

static void test_constant_divisor(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    const float six = 6.0f;
    int in[2] = {pt_input(g, "x", TOSAC_DT_F32, 1, s4), pt_const(g, "six", TOSAC_DT_F32, 0, NULL, &six)};
    int y = pt_tensor(g, "y", TOSAC_DT_F32, 1, s4);
    pt_node(g, "Div", in, 2, &y, 1);
    pt_output(g, y);
    pt_run(g, pass_decompose_div, "TOSA-1.0+FP");
    assert_int_equal(pt_count(g, "Div"), 0);
    int mul = pt_find(g, "Mul");
    assert_true(mul >= 0);
    const float *r = g->tensors[g->nodes[mul].inputs[1]].data;
    assert_non_null(r);
    assert_float_equal(r[0], 1.0f / 6.0f, 0);
    float out[4];
    run_ab(g, NULL, out);
    assert_float_equal(out[0], 0.5f, 1e-7); /* 3/6 */
    assert_float_equal(out[2], 7.0f / 6.0f, 2e-7);
    ir_graph_free(g);
}

static void test_runtime_divisor(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    int in[2] = {pt_input(g, "x", TOSAC_DT_F32, 1, s4), pt_input(g, "d", TOSAC_DT_F32, 1, s4)};
    int y = pt_tensor(g, "y", TOSAC_DT_F32, 1, s4);
    pt_node(g, "Div", in, 2, &y, 1);
    pt_output(g, y);
    const float d[4] = {2.0f, 3.0f, -0.5f, 8.0f};
    float before[4], after[4];
    run_ab(g, d, before);
    pt_run(g, pass_decompose_div, "TOSA-1.0+FP");
    assert_int_equal(pt_count(g, "Div"), 0);
    assert_int_equal(pt_count(g, "Reciprocal"), 1);
    assert_int_equal(pt_count(g, "Mul"), 1);
    run_ab(g, d, after);
    for (int i = 0; i < 4; i++)
        assert_float_equal(before[i], after[i], 1e-6 * fabs(before[i]));
    ir_graph_free(g);
}

/* DQ(x) -> Div(., DQ(60 * 0.1 = 6)) -> Q: the divisor becomes DQ(127 at scale (1/6)/127). */
static void test_qdq_constant_divisor(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    float sx = 0.1f, sy = 0.02f;
    int8_t z = 0, cval = 60;
    int x = pt_input(g, "x", TOSAC_DT_F32, 1, s4);
    int s = pt_const(g, "s", TOSAC_DT_F32, 0, NULL, &sx), zz = pt_const(g, "z", TOSAC_DT_I8, 0, NULL, &z);
    int ssy = pt_const(g, "sy", TOSAC_DT_F32, 0, NULL, &sy);
    int xq = pt_tensor(g, "xq", TOSAC_DT_I8, 1, s4), xf = pt_tensor(g, "xf", TOSAC_DT_F32, 1, s4);
    pt_quant(g, xq, sx, 0, TOSAC_DT_I8);
    int cq = pt_const(g, "cq", TOSAC_DT_I8, 0, NULL, &cval);
    pt_quant(g, cq, sx, 0, TOSAC_DT_I8);
    int cf = pt_tensor(g, "cf", TOSAC_DT_F32, 0, NULL), y = pt_tensor(g, "y", TOSAC_DT_F32, 1, s4);
    int yq = pt_tensor(g, "yq", TOSAC_DT_I8, 1, s4), out = pt_tensor(g, "out", TOSAC_DT_F32, 1, s4);
    pt_quant(g, yq, sy, 0, TOSAC_DT_I8);
    int q1[3] = {x, s, zz}, d1[3] = {xq, s, zz}, d2[3] = {cq, s, zz}, dv[2] = {xf, cf};
    int q2[3] = {y, ssy, zz}, d3[3] = {yq, ssy, zz};
    pt_node(g, "QuantizeLinear", q1, 3, &xq, 1);
    pt_node(g, "DequantizeLinear", d1, 3, &xf, 1);
    pt_node(g, "DequantizeLinear", d2, 3, &cf, 1);
    pt_node(g, "Div", dv, 2, &y, 1);
    pt_node(g, "QuantizeLinear", q2, 3, &yq, 1);
    pt_node(g, "DequantizeLinear", d3, 3, &out, 1);
    pt_output(g, out);
    float before[4], after[4];
    run_ab(g, NULL, before);
    pt_run(g, pass_decompose_div, "TOSA-1.0+INT");
    int mul = pt_find(g, "Mul");
    assert_true(mul >= 0);
    int dq = ir_graph_producer(g, g->nodes[mul].inputs[1]);
    assert_true(ir_node_is(&g->nodes[dq], "DequantizeLinear"));
    const ir_tensor *r = &g->tensors[g->nodes[dq].inputs[0]];
    assert_int_equal(r->dtype, TOSAC_DT_I8);
    assert_int_equal(((int8_t *)r->data)[0], 127);
    assert_float_equal(r->quant->scale[0], (1.0 / 6.0) / 127.0, 1e-9);
    run_ab(g, NULL, after);
    for (int i = 0; i < 4; i++)
        assert_true(fabs(before[i] - after[i]) <= sy * 1.001);
    ir_graph_free(g);
}

static void test_integer_div_stays(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    int in[2] = {pt_input(g, "x", TOSAC_DT_I32, 1, s4), pt_input(g, "d", TOSAC_DT_I32, 1, s4)};
    int y = pt_tensor(g, "y", TOSAC_DT_I32, 1, s4);
    pt_node(g, "Div", in, 2, &y, 1);
    pt_output(g, y);
    pt_run(g, pass_decompose_div, "TOSA-1.0+INT");
    assert_int_equal(pt_count(g, "Div"), 1);
    ir_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_constant_divisor),
        cmocka_unit_test(test_runtime_divisor),
        cmocka_unit_test(test_qdq_constant_divisor),
        cmocka_unit_test(test_integer_div_stays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
