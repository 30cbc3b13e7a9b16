/* pass_fold_bn: the folded graph computes what Conv/ConvTranspose/Gemm -> BatchNormalization
 * computed (CPU executor before/after), and the BN node is gone. */
#include "passes_testutil.h"

#include <math.h>
#include <stdlib.h>

#include "tosac/npy.h"
#include "tosac/onnx.h"

/* gamma, beta, mean, var of 3 channels (one negative gamma) */
static const float gam[3] = {1.5f, -0.75f, 0.5f}, bet[3] = {0.25f, -1.0f, 2.0f};
static const float mea[3] = {0.1f, -0.2f, 0.3f}, var[3] = {0.9f, 0.25f, 4.0f};

static int add_bn(ir_graph *g, int y, int64_t rank, const int64_t *shape)
{
    const int64_t three = 3;
    int in[5] = {y, pt_const(g, "gamma", TOSAC_DT_F32, 1, &three, gam),
                 pt_const(g, "beta", TOSAC_DT_F32, 1, &three, bet),
                 pt_const(g, "mean", TOSAC_DT_F32, 1, &three, mea),
                 pt_const(g, "var", TOSAC_DT_F32, 1, &three, var)};
    int z = pt_tensor(g, "z", TOSAC_DT_F32, (int)rank, shape);
    pt_node(g, "BatchNormalization", in, 5, &z, 1);
    return z;
}

static float xin[18];

static void compare(ir_graph *g, const int64_t *xshape, int xrank, int64_t n_out, double tol)
{
    for (int i = 0; i < 18; i++)
        xin[i] = (float)((i * 7 % 11) - 5) * 0.25f;
    tosac_tensor in = pt_host(TOSAC_DT_F32, xrank, xshape, xin), o1, o2;
    pt_cpu(g, &in, 1, &o1, 1);
    pt_run(g, pass_fold_bn, "TOSA-1.0+FP");
    assert_int_equal(pt_count(g, "BatchNormalization"), 0);
    pt_cpu(g, &in, 1, &o2, 1);
    assert_int_equal(tosac_tensor_numel(&o1), n_out);
    for (int64_t i = 0; i < n_out; i++)
        assert_float_equal(((float *)o1.data)[i], ((float *)o2.data)[i], tol);
    tosac_tensor_free(&o1);
    tosac_tensor_free(&o2);
}

static void test_conv_without_bias(void **state)
{
    (void)state;
    const int64_t xs[4] = {1, 2, 3, 3}, ws[4] = {3, 2, 1, 1}, ys[4] = {1, 3, 3, 3};
    const float w[6] = {0.5f, -1.0f, 2.0f, 0.25f, -0.5f, 1.5f};
    ir_graph *g = ir_graph_new("g", NULL);
    int x = pt_input(g, "x", TOSAC_DT_F32, 4, xs);
    int in[2] = {x, pt_const(g, "w", TOSAC_DT_F32, 4, ws, w)};
    int y = pt_tensor(g, "y", TOSAC_DT_F32, 4, ys);
    pt_node(g, "Conv", in, 2, &y, 1);
    pt_output(g, add_bn(g, y, 4, ys));
    compare(g, xs, 4, 27, 1e-5);
    int conv = pt_find(g, "Conv");
    assert_int_equal(g->nodes[conv].n_inputs, 3);
    /* hand-derived: bias[1] = beta - mean*k, k = -0.75/sqrt(0.25 + 1e-5) */
    const float *b = g->tensors[g->nodes[conv].inputs[2]].data;
    double k1 = -0.75 / sqrt(0.25 + 1e-5);
    assert_float_equal(b[1], -1.0 - (-0.2) * k1, 1e-6);
    ir_graph_free(g);
}

static void test_gemm_trans_b_alpha_beta(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    const int64_t xs[2] = {6, 3}, bs[2] = {3, 3}, ys[2] = {6, 3}, three = 3;
    const float bw[9] = {1, 2, 3, -1, 0.5f, 0, 0.25f, -2, 1}, cv[3] = {0.5f, -0.5f, 1};
    ir_graph *g = ir_graph_new("g", NULL);
    int x = pt_input(g, "x", TOSAC_DT_F32, 2, xs);
    int in[3] = {x, pt_const(g, "B", TOSAC_DT_F32, 2, bs, bw),
                 pt_const(g, "C", TOSAC_DT_F32, 1, &three, cv)};
    int y = pt_tensor(g, "y", TOSAC_DT_F32, 2, ys);
    int k = pt_node(g, "Gemm", in, 3, &y, 1);
    assert_int_equal(ir_node_set_int(g, k, "transB", 1, &err), TOSAC_OK);
    assert_int_equal(ir_node_set_float(g, k, "alpha", 0.5f, &err), TOSAC_OK);
    assert_int_equal(ir_node_set_float(g, k, "beta", 2.0f, &err), TOSAC_OK);
    pt_output(g, add_bn(g, y, 2, ys));
    compare(g, xs, 2, 18, 1e-5);
    ir_graph_free(g);
}

static void test_conv_transpose(void **state)
{
    (void)state;
    const int64_t xs[4] = {1, 2, 3, 3}, ws[4] = {2, 3, 2, 2}, ys[4] = {1, 3, 4, 4};
    float w[24];
    for (int i = 0; i < 24; i++)
        w[i] = (float)((i * 5 % 7) - 3) * 0.5f;
    ir_graph *g = ir_graph_new("g", NULL);
    int x = pt_input(g, "x", TOSAC_DT_F32, 4, xs);
    int in[2] = {x, pt_const(g, "w", TOSAC_DT_F32, 4, ws, w)};
    int y = pt_tensor(g, "y", TOSAC_DT_F32, 4, ys);
    pt_node(g, "ConvTranspose", in, 2, &y, 1);
    pt_output(g, add_bn(g, y, 4, ys));
    compare(g, xs, 4, 48, 1e-5);
    ir_graph_free(g);
}

/* The conv output is also a graph output: BN cannot be folded. */
static void test_shared_output_not_folded(void **state)
{
    (void)state;
    const int64_t xs[4] = {1, 2, 3, 3}, ws[4] = {3, 2, 1, 1}, ys[4] = {1, 3, 3, 3};
    const float w[6] = {1, 1, 1, 1, 1, 1};
    ir_graph *g = ir_graph_new("g", NULL);
    int x = pt_input(g, "x", TOSAC_DT_F32, 4, xs);
    int in[2] = {x, pt_const(g, "w", TOSAC_DT_F32, 4, ws, w)};
    int y = pt_tensor(g, "y", TOSAC_DT_F32, 4, ys);
    pt_node(g, "Conv", in, 2, &y, 1);
    pt_output(g, add_bn(g, y, 4, ys));
    pt_output(g, y);
    pt_run(g, pass_fold_bn, "TOSA-1.0+FP");
    assert_int_equal(pt_count(g, "BatchNormalization"), 1);
    ir_graph_free(g);
}

/* DQ(x) -> Conv(DQ w int8, DQ b int32 or a float b) -> BN -> Q -> DQ: weight values kept
 * (channel 1 negated), scales s_w*|k|, bias requantized (a float bias stays float, for the
 * lowering to quantize); the quantized output moves by at most one step. */
static void qdq_conv(bool float_bias)
{
    const int64_t xs[4] = {1, 2, 3, 3}, ws[4] = {3, 2, 1, 1}, ys[4] = {1, 3, 3, 3}, three = 3;
    const int8_t w[6] = {50, -100, 127, 20, -60, 90};
    const int32_t bias[3] = {100, -200, 300};
    float sx = 0.05f, sw = 0.01f, sb = 0.0005f, sy = 0.1f;
    int8_t zx = 0, zy = -3, zw = 0;
    int32_t zb = 0;
    ir_graph *g = ir_graph_new("g", NULL);
    int x = pt_input(g, "x", TOSAC_DT_F32, 4, xs);
    int ssx = pt_const(g, "sx", TOSAC_DT_F32, 0, NULL, &sx), szx = pt_const(g, "zx", TOSAC_DT_I8, 0, NULL, &zx);
    int xq = pt_tensor(g, "xq", TOSAC_DT_I8, 4, xs), xf = pt_tensor(g, "xf", TOSAC_DT_F32, 4, xs);
    pt_quant(g, xq, sx, 0, TOSAC_DT_I8);
    int qi[3] = {x, ssx, szx}, dqi[3] = {xq, ssx, szx};
    pt_node(g, "QuantizeLinear", qi, 3, &xq, 1);
    pt_node(g, "DequantizeLinear", dqi, 3, &xf, 1);
    int wq = pt_const(g, "wq", TOSAC_DT_I8, 4, ws, w);
    pt_quant(g, wq, sw, 0, TOSAC_DT_I8);
    int wf = pt_tensor(g, "wf", TOSAC_DT_F32, 4, ws);
    int wdq[3] = {wq, pt_const(g, "sw", TOSAC_DT_F32, 0, NULL, &sw),
                  pt_const(g, "zw", TOSAC_DT_I8, 0, NULL, &zw)};
    pt_node(g, "DequantizeLinear", wdq, 3, &wf, 1);
    int bq = pt_const(g, "bq", TOSAC_DT_I32, 1, &three, bias);
    pt_quant(g, bq, sb, 0, TOSAC_DT_I32);
    int bf = pt_tensor(g, "bf", TOSAC_DT_F32, 1, &three);
    int bdq[3] = {bq, pt_const(g, "sb", TOSAC_DT_F32, 0, NULL, &sb),
                  pt_const(g, "zb", TOSAC_DT_I32, 0, NULL, &zb)};
    pt_node(g, "DequantizeLinear", bdq, 3, &bf, 1);
    const float fbias[3] = {bias[0] * sb, bias[1] * sb, bias[2] * sb};
    if (float_bias)
        bf = pt_const(g, "b_float", TOSAC_DT_F32, 1, &three, fbias);
    int y = pt_tensor(g, "y", TOSAC_DT_F32, 4, ys);
    int cin[3] = {xf, wf, bf};
    pt_node(g, "Conv", cin, 3, &y, 1);
    int z = add_bn(g, y, 4, ys);
    int ssy = pt_const(g, "sy", TOSAC_DT_F32, 0, NULL, &sy), szy = pt_const(g, "zy", TOSAC_DT_I8, 0, NULL, &zy);
    int yq = pt_tensor(g, "yq", TOSAC_DT_I8, 4, ys), out = pt_tensor(g, "out", TOSAC_DT_F32, 4, ys);
    pt_quant(g, yq, sy, -3, TOSAC_DT_I8);
    int yqi[3] = {z, ssy, szy}, ydq[3] = {yq, ssy, szy};
    pt_node(g, "QuantizeLinear", yqi, 3, &yq, 1);
    pt_node(g, "DequantizeLinear", ydq, 3, &out, 1);
    pt_output(g, out);
    for (int i = 0; i < 18; i++)
        xin[i] = (float)((i * 7 % 11) - 5) * 0.5f;
    tosac_tensor in = pt_host(TOSAC_DT_F32, 4, xs, xin), o1, o2;
    pt_cpu(g, &in, 1, &o1, 1);
    pt_run(g, pass_fold_bn, "TOSA-1.0+INT");
    assert_int_equal(pt_count(g, "BatchNormalization"), 0);
    int conv = pt_find(g, "Conv");
    int nwf = g->nodes[conv].inputs[1];
    int nwq = g->nodes[ir_graph_producer(g, nwf)].inputs[0];
    const ir_tensor *W = &g->tensors[nwq];
    assert_int_equal(W->dtype, TOSAC_DT_I8);
    assert_int_equal(W->quant->axis, 0);
    assert_int_equal(W->quant->n, 3);
    const int8_t *wd = W->data;
    assert_int_equal(wd[0], 50);
    assert_int_equal(wd[2], -127); /* channel 1 (k < 0) negated */
    assert_int_equal(wd[3], -20);
    assert_int_equal(wd[5], 90);
    double k1 = 0.75 / sqrt(0.25 + 1e-5);
    assert_float_equal(W->quant->scale[1], 0.01 * k1, 1e-8);
    const ir_tensor *B = &g->tensors[g->nodes[conv].inputs[2]];
    if (float_bias) { /* (b - mean) k + beta, channel 1: (-0.1 + 0.2) * -k1 - 1 */
        assert_int_equal(B->dtype, TOSAC_DT_F32);
        assert_float_equal(((const float *)B->data)[1], 0.1 * -k1 - 1.0, 1e-6);
    } else {
        assert_int_equal(ir_graph_producer(g, g->nodes[conv].inputs[2]) >= 0, 1); /* a DQ */
    }
    pt_cpu(g, &in, 1, &o2, 1);
    for (int i = 0; i < 27; i++)
        assert_true(fabs(((float *)o1.data)[i] - ((float *)o2.data)[i]) <= sy * 1.001);
    tosac_tensor_free(&o1);
    tosac_tensor_free(&o2);
    ir_graph_free(g);
}

static void test_qdq_conv(void **state)
{
    (void)state;
    qdq_conv(false);
}

static void test_qdq_conv_float_bias(void **state)
{
    (void)state;
    qdq_conv(true);
}

/* ppocr (float, 35 BatchNormalization after Conv): all folded, outputs within 1e-5. */
static void test_zoo_ppocr(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *m = NULL;
    assert_int_equal(onnx_import_file(tu_shared("models/ppocr_mobile_v2_cls/model.onnx"), &m,
                                      &err), TOSAC_OK);
    const int64_t dims[4] = {1, 3, 48, 192};
    assert_int_equal(ir_model_set_input_shape(m, "x", 4, dims, &err), TOSAC_OK);
    assert_int_equal(ir_model_infer_shapes(m, &err), TOSAC_OK);
    tosac_tensor in, o1, o2;
    assert_int_equal(tosac_npy_read(tu_shared("models/ppocr_mobile_v2_cls/inputs/00/x.npy"), &in,
                                    &err), TOSAC_OK);
    pt_cpu(m->graph, &in, 1, &o1, 1);
    pt_run(m->graph, pass_fold_constants, "TOSA-1.0+FP");
    assert_int_equal(pt_count(m->graph, "BatchNormalization"), 35);
    pt_run(m->graph, pass_fold_bn, "TOSA-1.0+FP");
    assert_int_equal(pt_count(m->graph, "BatchNormalization"), 0);
    pt_cpu(m->graph, &in, 1, &o2, 1);
    assert_int_equal(tosac_tensor_numel(&o1), 2);
    for (int i = 0; i < 2; i++)
        assert_float_equal(((float *)o1.data)[i], ((float *)o2.data)[i], 1e-5);
    tosac_tensor_free(&in);
    tosac_tensor_free(&o1);
    tosac_tensor_free(&o2);
    ir_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_without_bias),
        cmocka_unit_test(test_gemm_trans_b_alpha_beta),
        cmocka_unit_test(test_conv_transpose),
        cmocka_unit_test(test_shared_output_not_folded),
        cmocka_unit_test(test_qdq_conv),
        cmocka_unit_test(test_qdq_conv_float_bias),
        cmocka_unit_test(test_zoo_ppocr),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
