/* pass_u8_to_i8: small graphs (types, zero points, constant data) and, on the zoo's two
 * torch uint8 QDQ models, the CPU executor's outputs before and after the pass are equal bit
 * for bit (the rewrite is exact). */
#include "passes_testutil.h"

#include <stdlib.h>

#include "tosac/npy.h"
#include "tosac/onnx.h"

static const int64_t s1[1] = {6};
/* covers both saturation ends of the uint8 range at scale 0.5, zero point 3 */
static const float xs[6] = {-100.0f, -1.5f, -0.25f, 0.0f, 7.75f, 500.0f};

/* x -Q(u8, 0.5, 3)-> q -DQ-> y ; w (u8 const, 0.25, 128) -DQ-> wf ; out = y + wf */
static ir_graph *q_dq_graph(void)
{
    ir_graph *g = ir_graph_new("g", NULL);
    int x = pt_input(g, "x", TOSAC_DT_F32, 1, s1);
    float sc = 0.5f, wsc = 0.25f;
    uint8_t zp = 3, wzp = 128;
    uint8_t wv[6] = {0, 1, 127, 128, 200, 255};
    int s = pt_const(g, "s", TOSAC_DT_F32, 0, NULL, &sc);
    int z = pt_const(g, "z", TOSAC_DT_U8, 0, NULL, &zp);
    int ws = pt_const(g, "ws", TOSAC_DT_F32, 0, NULL, &wsc);
    int wz = pt_const(g, "wz", TOSAC_DT_U8, 0, NULL, &wzp);
    int w = pt_const(g, "w", TOSAC_DT_U8, 1, s1, wv);
    pt_quant(g, w, 0.25f, 128, TOSAC_DT_U8);
    int q = pt_tensor(g, "q", TOSAC_DT_U8, 1, s1);
    pt_quant(g, q, 0.5f, 3, TOSAC_DT_U8);
    int y = pt_tensor(g, "y", TOSAC_DT_F32, 1, s1), wf = pt_tensor(g, "wf", TOSAC_DT_F32, 1, s1);
    int out = pt_tensor(g, "out", TOSAC_DT_F32, 1, s1);
    int qin[3] = {x, s, z}, dqin[3] = {q, s, z}, wdq[3] = {w, ws, wz}, add[2] = {y, wf};
    pt_node(g, "QuantizeLinear", qin, 3, &q, 1);
    pt_node(g, "DequantizeLinear", dqin, 3, &y, 1);
    pt_node(g, "DequantizeLinear", wdq, 3, &wf, 1);
    pt_node(g, "Add", add, 2, &out, 1);
    pt_output(g, out);
    return g;
}

static void run6(ir_graph *g, float *out)
{
    tosac_tensor in = pt_host(TOSAC_DT_F32, 1, s1, xs), o;
    pt_cpu(g, &in, 1, &o, 1);
    assert_int_equal(o.dtype, TOSAC_DT_F32);
    memcpy(out, o.data, sizeof(float) * 6);
    tosac_tensor_free(&o);
}

static void test_internal_tensors_become_int8(void **state)
{
    (void)state;
    ir_graph *g = q_dq_graph();
    float before[6], after[6];
    run6(g, before);
    /* hand-derived: q = clamp(round(x/0.5)+3, 0, 255) = {0,0,3,3,19,255}; y = (q-3)*0.5;
     * w: (wv-128)*0.25 = {-32,-31.75,-0.25,0,18,31.75} */
    const float expect[6] = {-1.5f - 32.0f, -1.5f - 31.75f, 0.0f - 0.25f, 0.0f, 8.0f + 18.0f,
                             126.0f + 31.75f};
    for (int i = 0; i < 6; i++)
        assert_float_equal(before[i], expect[i], 0);
    pt_run(g, pass_u8_to_i8, "TOSA-1.0+INT");
    int q = ir_graph_find_tensor(g, "q"), w = ir_graph_find_tensor(g, "w");
    assert_int_equal(g->tensors[q].dtype, TOSAC_DT_I8);
    assert_int_equal(g->tensors[q].quant->zero_point[0], 3 - 128);
    assert_int_equal(g->tensors[q].quant->zp_dtype, TOSAC_DT_I8);
    assert_int_equal(g->tensors[w].dtype, TOSAC_DT_I8);
    assert_int_equal(g->tensors[w].quant->zero_point[0], 0);
    const int8_t *wd = g->tensors[w].data;
    assert_int_equal(wd[0], -128);
    assert_int_equal(wd[3], 0);
    assert_int_equal(wd[5], 127);
    /* every Q/DQ zero point is an int8 constant now */
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (ir_node_is(n, "QuantizeLinear") || ir_node_is(n, "DequantizeLinear"))
            assert_int_equal(g->tensors[n->inputs[2]].dtype, TOSAC_DT_I8);
    }
    run6(g, after);
    assert_memory_equal(before, after, sizeof before);
    ir_graph_free(g);
}

/* A uint8 graph input read by DQ, and a uint8 graph output written by Q: the user-facing
 * tensors stay uint8, the graph inside is int8, values are identical. */
static void test_graph_boundary_keeps_uint8(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    int x = pt_input(g, "x", TOSAC_DT_U8, 1, s1);
    pt_quant(g, x, 0.5f, 100, TOSAC_DT_U8);
    float sc = 0.5f, osc = 0.75f;
    uint8_t zp = 100, ozp = 20;
    int s = pt_const(g, "s", TOSAC_DT_F32, 0, NULL, &sc);
    int z = pt_const(g, "z", TOSAC_DT_U8, 0, NULL, &zp);
    int os = pt_const(g, "os", TOSAC_DT_F32, 0, NULL, &osc);
    int oz = pt_const(g, "oz", TOSAC_DT_U8, 0, NULL, &ozp);
    int xf = pt_tensor(g, "xf", TOSAC_DT_F32, 1, s1), r = pt_tensor(g, "r", TOSAC_DT_F32, 1, s1);
    int y = pt_tensor(g, "y", TOSAC_DT_U8, 1, s1);
    pt_quant(g, y, 0.75f, 20, TOSAC_DT_U8);
    int dqin[3] = {x, s, z}, qin[3] = {r, os, oz};
    pt_node(g, "DequantizeLinear", dqin, 3, &xf, 1);
    pt_node(g, "Relu", &xf, 1, &r, 1);
    pt_node(g, "QuantizeLinear", qin, 3, &y, 1);
    pt_output(g, y);
    const uint8_t xv[6] = {0, 99, 100, 101, 180, 255};
    tosac_tensor in = pt_host(TOSAC_DT_U8, 1, s1, xv), o1, o2;
    pt_cpu(g, &in, 1, &o1, 1);
    /* hand-derived: relu((x-100)*0.5)/0.75 + 20, rounded half to even, clamped to 255 */
    const uint8_t expect[6] = {20, 20, 20, 21, 73, 123};
    assert_memory_equal(o1.data, expect, 6);
    pt_run(g, pass_u8_to_i8, "TOSA-1.0+INT");
    assert_int_equal(g->tensors[g->inputs[0]].dtype, TOSAC_DT_U8);
    assert_int_equal(g->tensors[g->outputs[0]].dtype, TOSAC_DT_U8);
    assert_string_equal(g->tensors[g->inputs[0]].name, "x");
    assert_string_equal(g->tensors[g->outputs[0]].name, "y");
    /* the Relu's neighbours are int8 now */
    int relu = pt_find(g, "Relu");
    int dq = ir_graph_producer(g, g->nodes[relu].inputs[0]);
    assert_int_equal(g->tensors[g->nodes[dq].inputs[0]].dtype, TOSAC_DT_I8);
    assert_int_equal(g->tensors[g->nodes[dq].inputs[0]].quant->zero_point[0], -28);
    pt_cpu(g, &in, 1, &o2, 1);
    assert_int_equal(o2.dtype, TOSAC_DT_U8);
    assert_memory_equal(o1.data, o2.data, 6);
    tosac_tensor_free(&o1);
    tosac_tensor_free(&o2);
    ir_graph_free(g);
}

/* A uint8 value some other operator reads as plain numbers keeps its type. */
static void test_other_reader_keeps_uint8(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    ir_graph *g = q_dq_graph();
    int q = ir_graph_find_tensor(g, "q");
    int c = pt_tensor(g, "qc", TOSAC_DT_F32, 1, s1);
    int k = pt_node(g, "Cast", &q, 1, &c, 1);
    assert_int_equal(ir_node_set_int(g, k, "to", 1, &err), TOSAC_OK);
    pt_output(g, c);
    pt_run(g, pass_u8_to_i8, "TOSA-1.0+INT");
    assert_int_equal(g->tensors[q].dtype, TOSAC_DT_U8);
    assert_int_equal(g->tensors[q].quant->zero_point[0], 3);
    assert_int_equal(g->tensors[ir_graph_find_tensor(g, "w")].dtype, TOSAC_DT_I8);
    ir_graph_free(g);
}

/* The zoo model: CPU outputs before and after fold_constants + u8_to_i8 are identical, and
 * no quantized uint8 tensor is left. */
static void zoo_equal(const char *model)
{
    char rel[256];
    tosac_error err;
    tosac_error_clear(&err);
    snprintf(rel, sizeof rel, "models/%s/model.onnx", model);
    ir_model *m = NULL;
    assert_int_equal(onnx_import_file(tu_shared(rel), &m, &err), TOSAC_OK);
    assert_int_equal(ir_model_infer_shapes(m, &err), TOSAC_OK);
    snprintf(rel, sizeof rel, "models/%s/inputs/00/input.npy", model);
    tosac_tensor in, o1, o2;
    assert_int_equal(tosac_npy_read(tu_shared(rel), &in, &err), TOSAC_OK);
    pt_cpu(m->graph, &in, 1, &o1, 1);
    pt_run(m->graph, pass_fold_constants, "TOSA-1.0+INT");
    pt_run(m->graph, pass_u8_to_i8, "TOSA-1.0+INT");
    int u8 = 0, i8q = 0;
    for (int t = 0; t < m->graph->n_tensors; t++) {
        const ir_tensor *it = &m->graph->tensors[t];
        if (ir_graph_consumers(m->graph, t, NULL, 0) == 0)
            continue; /* dropped Casts leave their unread outputs behind */
        u8 += it->quant && it->dtype == TOSAC_DT_U8;
        i8q += it->quant && it->dtype == TOSAC_DT_I8;
    }
    assert_int_equal(u8, 0);
    assert_true(i8q > 20);
    pt_cpu(m->graph, &in, 1, &o2, 1);
    assert_int_equal(o1.nbytes, o2.nbytes);
    assert_memory_equal(o1.data, o2.data, o1.nbytes);
    tosac_tensor_free(&in);
    tosac_tensor_free(&o1);
    tosac_tensor_free(&o2);
    ir_model_free(m);
}

static void test_zoo_resnet18_bit_exact(void **state)
{
    (void)state;
    zoo_equal("resnet18_qdq_u8s8_op13");
}

static void test_zoo_mobilenet_v2_bit_exact(void **state)
{
    (void)state;
    zoo_equal("mobilenet_v2_qdq_u8s8_op13");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_internal_tensors_become_int8),
        cmocka_unit_test(test_graph_boundary_keeps_uint8),
        cmocka_unit_test(test_other_reader_keeps_uint8),
        cmocka_unit_test(test_zoo_resnet18_bit_exact),
        cmocka_unit_test(test_zoo_mobilenet_v2_bit_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
