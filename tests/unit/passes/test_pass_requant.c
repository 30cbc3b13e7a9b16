/* Two passes that keep quantized islands whole: quantize_scalar_mul (a float scalar Mul
 * between DQ and Q gets an exactly quantized constant, so it folds) and fold_requant (a DQ
 * feeding a Q becomes a quantized Identity, i.e. one RESCALE). Each is checked on the graph
 * structure and end to end: compiled for TOSA-1.0+INT into one delegate, outputs exact. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "backend_testutil.h"
#include "cpu/cpu_exec.h"
#include "passes/passes.h"
#include "passes_testutil.h"
#include "tosac/compile.h"
#include "tosac/onnx.h"

static const int64_t S14[2] = {1, 4};

/* x f32 -> Q(0.1, 0) -> DQ -> [Mul by c] -> Q(s_out, z_out) -> DQ -> y */
static ir_model *build(bool with_mul, float c, float s_out, int8_t z_out)
{
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    float s_in = 0.1f;
    int8_t z0 = 0;
    int x = pt_input(g, "x", TOSAC_DT_F32, 2, S14);
    int si = pt_const(g, "s_in", TOSAC_DT_F32, 0, NULL, &s_in);
    int zi = pt_const(g, "z_in", TOSAC_DT_I8, 0, NULL, &z0);
    int so = pt_const(g, "s_out", TOSAC_DT_F32, 0, NULL, &s_out);
    int zo = pt_const(g, "z_out", TOSAC_DT_I8, 0, NULL, &z_out);
    int xq = pt_tensor(g, "x_q", TOSAC_DT_I8, 2, S14), xf = pt_tensor(g, "x_f", TOSAC_DT_F32, 2, S14);
    pt_node(g, "QuantizeLinear", (const int[]){x, si, zi}, 3, &xq, 1);
    pt_node(g, "DequantizeLinear", (const int[]){xq, si, zi}, 3, &xf, 1);
    int t = xf;
    if (with_mul) {
        int cc = pt_const(g, "c", TOSAC_DT_F32, 0, NULL, &c);
        t = pt_tensor(g, "t", TOSAC_DT_F32, 2, S14);
        pt_node(g, "Mul", (const int[]){xf, cc}, 2, &t, 1);
    }
    int yq = pt_tensor(g, "y_q", TOSAC_DT_I8, 2, S14), y = pt_tensor(g, "y", TOSAC_DT_F32, 2, S14);
    pt_node(g, "QuantizeLinear", (const int[]){t, so, zo}, 3, &yq, 1);
    pt_node(g, "DequantizeLinear", (const int[]){yq, so, zo}, 3, &y, 1);
    pt_output(g, y);
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(onnx_record_quant(g, &err), TOSAC_OK);
    return m;
}

/* Compiles m for TOSA-1.0+INT, checks the delegate count, runs it on x and returns y. */
static void compile_run(ir_model *m, int want_delegates, const float *x, float *y)
{
    tosac_compile_options o;
    memset(&o, 0, sizeof o);
    o.spec = "TOSA-1.0+INT";
    tosac_program *p = NULL;
    char *report = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    tosac_code rc = tosac_compile_model(m, &o, &p, &report, &err);
    if (rc)
        fail_msg("compile: %s", err.msg);
    assert_int_equal(tosac_program_n_delegates(p), want_delegates);
    tosac_tensor in = pt_host(TOSAC_DT_F32, 2, S14, x), out;
    rc = tosac_program_run(p, &in, 1, &out, 1, &err);
    if (rc)
        fail_msg("run: %s", err.msg);
    memcpy(y, out.data, 4 * sizeof(float));
    tosac_tensor_free(&out);
    free(report);
    tosac_program_free(p);
}

static void test_scalar_mul_folds(void **state)
{
    (void)state;
    ir_model *m = build(true, -0.25f, 0.05f, 3);
    pt_run(m->graph, pass_quantize_scalar_mul, "TOSA-1.0+INT");
    pt_run(m->graph, pass_fold_qdq, "TOSA-1.0+INT");
    const ir_graph *g = m->graph;
    int mul = pt_find(g, "Mul");
    assert_true(mul >= 0);
    /* both Mul operands are now int8 quantized tensors: x_q and the constant -1 at scale 0.25 */
    for (int i = 0; i < 2; i++)
        assert_int_equal(g->tensors[g->nodes[mul].inputs[i]].dtype, TOSAC_DT_I8);
    int c = g->nodes[mul].inputs[1];
    assert_int_equal(*(const int8_t *)g->tensors[c].data, -1);
    assert_true(g->tensors[c].quant->scale[0] == 0.25f);
    ir_model_free(m);

    /* x = 0.2, -0.4, 1.0, -1.2 -> q = 2, -4, 10, -12; y_q = q * (0.1 * 0.25 / 0.05) * -1 + 3
     * = 2, 5, -2, 9 (no ties); y = 0.05 * (y_q - 3) */
    float y[4];
    compile_run(build(true, -0.25f, 0.05f, 3), 1, (const float[]){0.2f, -0.4f, 1.0f, -1.2f}, y);
    const float want[4] = {0.05f * -1, 0.05f * 2, 0.05f * -5, 0.05f * 6};
    for (int i = 0; i < 4; i++)
        assert_true(y[i] == want[i]);
}

static void test_dq_q_pair_becomes_identity(void **state)
{
    (void)state;
    ir_model *m = build(false, 0, 0.2f, -5);
    pt_run(m->graph, pass_fold_qdq, "TOSA-1.0+INT");
    pt_run(m->graph, pass_fold_requant, "TOSA-1.0+INT");
    const ir_graph *g = m->graph;
    int id = pt_find(g, "Identity");
    assert_true(id >= 0);
    assert_string_equal(g->tensors[g->nodes[id].inputs[0]].name, "x_q");
    assert_string_equal(g->tensors[g->nodes[id].outputs[0]].name, "y_q");
    assert_int_equal(pt_count(g, "QuantizeLinear"), 1);   /* the graph input's */
    assert_int_equal(pt_count(g, "DequantizeLinear"), 1); /* the graph output's */
    ir_model_free(m);

    /* q = 2, -4, 10, -12 -> requantized by 0.1/0.2 with zp -5: -4, -7, 0, -11 -> y = q_in*0.1 */
    float y[4];
    compile_run(build(false, 0, 0.2f, -5), 1, (const float[]){0.2f, -0.4f, 1.0f, -1.2f}, y);
    const float want[4] = {0.2f * 1, 0.2f * -2, 0.2f * 5, 0.2f * -6};
    for (int i = 0; i < 4; i++)
        assert_true(y[i] == want[i]);
}

/* Q(DQ(x)) with the very same parameters is x itself: no node is left for it. */
static void test_identical_pair_disappears(void **state)
{
    (void)state;
    ir_model *m = build(false, 0, 0.1f, 0);
    pt_run(m->graph, pass_fold_qdq, "TOSA-1.0+INT");
    pt_run(m->graph, pass_fold_requant, "TOSA-1.0+INT");
    const ir_graph *g = m->graph;
    assert_int_equal(pt_count(g, "Identity"), 0);
    assert_int_equal(pt_count(g, "QuantizeLinear"), 1);
    int dq = pt_find(g, "DequantizeLinear");
    assert_int_equal(pt_count(g, "DequantizeLinear"), 1);
    assert_string_equal(g->tensors[g->nodes[dq].inputs[0]].name, "x_q");
    ir_model_free(m);
}

/* Equal zero points but another scale (0.1 -> 0.2, zp 0 both sides) is a requantization,
 * not a no-op: an Identity (one RESCALE by 0.5), and y = 0.2 * round(q_in / 2) with
 * q_in = 2, -4, 10, -12 (no ties): had the pair been dropped y would be 0.2 * q_in. */
static void test_same_zero_point_other_scale(void **state)
{
    (void)state;
    ir_model *m = build(false, 0, 0.2f, 0);
    pt_run(m->graph, pass_fold_qdq, "TOSA-1.0+INT");
    pt_run(m->graph, pass_fold_requant, "TOSA-1.0+INT");
    const ir_graph *g = m->graph;
    int id = pt_find(g, "Identity");
    assert_true(id >= 0);
    assert_string_equal(g->tensors[g->nodes[id].inputs[0]].name, "x_q");
    assert_string_equal(g->tensors[g->nodes[id].outputs[0]].name, "y_q");
    ir_model_free(m);

    float y[4];
    compile_run(build(false, 0, 0.2f, 0), 1, (const float[]){0.2f, -0.4f, 1.0f, -1.2f}, y);
    const float want[4] = {0.2f * 1, 0.2f * -2, 0.2f * 5, 0.2f * -6};
    for (int i = 0; i < 4; i++)
        assert_true(y[i] == want[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalar_mul_folds),
        cmocka_unit_test(test_dq_q_pair_becomes_identity),
        cmocka_unit_test(test_identical_pair_disappears),
        cmocka_unit_test(test_same_zero_point_other_scale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
