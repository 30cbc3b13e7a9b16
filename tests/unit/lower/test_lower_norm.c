/* Float normalizations: BatchNormalization folded to MUL + ADD, LayerNormalization (with its
 * optional statistics outputs) and InstanceNormalization decomposed; quantized forms refused.
 * Each model runs as a program and its delegate on the interpreter, against the float model
 * on the CPU executor (lower_act_testutil.c). */
#include "lower_act_testutil.h"

#include "lower/lower.h"
#include "tosac/interp.h"

#include <math.h>
#include <string.h>

#define N 48
static const lat_quant fp = {TOSAC_DT_F32, 0, 0, 0, 0};
static const float ch_scale[3] = {0.5f, 2.0f, -1.0f}, ch_bias[3] = {0.1f, -0.2f, 0.3f};
static const float ch_mean[3] = {1.0f, -1.0f, 0.5f}, ch_var[3] = {4.0f, 0.25f, 1.0f};
static const float ln_scale[8] = {1, 2, 3, 4, -1, -2, 0.5f, 0.25f};
static const float ln_bias[8] = {0, 0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f};

static void inputs(float *x)
{
    for (int i = 0; i < N; i++)
        x[i] = 0.1f * (float)((i * 29) % 41 - 20);
}

static void test_batchnorm(void **s)
{
    (void)s;
    lat_op op = {"BatchNormalization", 4, {1, 3, 4, 4}, 4, {{0}}, NULL, 0};
    op.extra[0] = (lat_const){"scale", 1, {3}, ch_scale, 0};
    op.extra[1] = (lat_const){"B", 1, {3}, ch_bias, 0};
    op.extra[2] = (lat_const){"mean", 1, {3}, ch_mean, 0};
    op.extra[3] = (lat_const){"var", 1, {3}, ch_var, 0};
    float x[N];
    inputs(x);
    lat_result r;
    lat_run(&op, &fp, "TOSA-1.0+FP", x, 1, &r);
    assert_int_equal(r.delegated, 1);
    assert_string_equal(r.ops, "MUL ADD");
    /* channel 1: a = 2 / sqrt(0.25 + 1e-5), one value per channel on axis 1 */
    const tosa_block *b = tosa_graph_main_block(r.tg);
    const tosa_tensor *a = NULL;
    for (int i = 0; i < b->n_ops; i++)
        if (b->ops[i].op == TOSA_OP_MUL)
            a = &b->tensors[b->ops[i].inputs[1]];
    assert_non_null(a);
    assert_int_equal(a->rank, 4);
    assert_int_equal(a->shape[1], 3);
    assert_true(fabsf(((const float *)a->data)[1] - 3.99992f) < 1e-4f);
    lat_result_free(&r);
    lat_run(&op, &fp, "TOSA-1.0+INT", x, 1, &r);
    assert_int_equal(r.delegated, 0);
    lat_result_free(&r);
}

static void ln_axis(ir_graph *g, int k)
{
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(ir_node_set_int(g, k, "axis", -1, &err), TOSAC_OK);
}

static void test_layernorm(void **s)
{
    (void)s;
    lat_op op = {"LayerNormalization", 3, {2, 3, 8}, 2, {{0}}, ln_axis, 17};
    op.extra[0] = (lat_const){"Scale", 1, {8}, ln_scale, 0};
    op.extra[1] = (lat_const){"B", 1, {8}, ln_bias, 0};
    float x[N];
    inputs(x);
    lat_result r;
    lat_run(&op, &fp, "TOSA-1.0+FP", x, 1, &r);
    assert_int_equal(r.delegated, 1);
    /* Scale's and B's rank RESHAPEs folded into the constants */
    assert_string_equal(r.ops, "REDUCE_SUM MUL SUB MUL REDUCE_SUM MUL ADD RSQRT MUL MUL ADD");
    lat_result_free(&r);
    /* without B: no ADD at the end */
    op.n_extra = 1;
    lat_run(&op, &fp, "TOSA-1.0+FP", x, 1, &r);
    assert_string_equal(r.ops, "REDUCE_SUM MUL SUB MUL REDUCE_SUM MUL ADD RSQRT MUL MUL");
    lat_result_free(&r);
}

/* The optional Mean and InvStdDev outputs: x = [1, 2, 3, 4] normalized over its last axis has
 * mean 2.5, variance 1.25, InvStdDev 1 / sqrt(1.25 + 1e-5) = 0.894423; Scale 1 */
static void test_layernorm_stats(void **s)
{
    (void)s;
    tosac_error err;
    tosac_error_clear(&err);
    ir_graph *g = ir_graph_new("g", NULL);
    const int64_t sx[2] = {1, 4}, ss[1] = {4}, st[2] = {1, 1};
    const float one[4] = {1, 1, 1, 1};
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 2, sx, &err);
    int sc = ir_graph_add_const(g, "scale", TOSAC_DT_F32, 1, ss, one, sizeof one, &err);
    int outs[3] = {ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 2, sx, &err),
                   ir_graph_add_tensor(g, "mean", TOSAC_DT_F32, 2, st, &err),
                   ir_graph_add_tensor(g, "inv", TOSAC_DT_F32, 2, st, &err)};
    int ins[2] = {x, sc};
    assert_true(ir_graph_add_node(g, "LayerNormalization", NULL, "ln", ins, 2, outs, 3, &err) >= 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(ir_graph_mark_output(g, outs[i], &err), TOSAC_OK);
    tosa_spec sp = bt_spec("TOSA-1.0+FP");
    int node = 0;
    tosa_graph *tg = NULL;
    assert_int_equal(lower_subgraph(&sp, g, &node, 1, &x, 1, outs, 3, &tg, &err), TOSAC_OK);
    const float xv[4] = {1, 2, 3, 4};
    tosac_tensor in, res[3];
    memset(&in, 0, sizeof in);
    in.dtype = TOSAC_DT_F32;
    in.rank = 2;
    memcpy(in.shape, sx, sizeof sx);
    in.data = (void *)xv;
    in.nbytes = sizeof xv;
    assert_int_equal(tosa_interp_run(tg, &in, 1, res, 3, &err), TOSAC_OK);
    assert_true(fabsf(((float *)res[1].data)[0] - 2.5f) < 1e-6f);
    assert_true(fabsf(((float *)res[2].data)[0] - 0.894423f) < 1e-5f);
    assert_true(fabsf(((float *)res[0].data)[0] + 1.5f * 0.894423f) < 1e-5f);
    for (int i = 0; i < 3; i++)
        tosac_tensor_free(&res[i]);
    tosa_graph_free(tg);
    ir_graph_free(g);
}

static void test_instancenorm(void **s)
{
    (void)s;
    lat_op op = {"InstanceNormalization", 4, {1, 3, 4, 4}, 2, {{0}}, NULL, 0};
    op.extra[0] = (lat_const){"scale", 1, {3}, ch_scale, 0};
    op.extra[1] = (lat_const){"B", 1, {3}, ch_bias, 0};
    float x[N];
    inputs(x);
    lat_result r;
    lat_run(&op, &fp, "TOSA-1.0+FP", x, 1, &r);
    assert_int_equal(r.delegated, 1);
    /* mean and variance over H then W */
    assert_string_equal(r.ops, "REDUCE_SUM REDUCE_SUM MUL SUB MUL REDUCE_SUM REDUCE_SUM MUL ADD "
                               "RSQRT MUL MUL ADD");
    lat_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batchnorm),
        cmocka_unit_test(test_layernorm),
        cmocka_unit_test(test_layernorm_stats),
        cmocka_unit_test(test_instancenorm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
