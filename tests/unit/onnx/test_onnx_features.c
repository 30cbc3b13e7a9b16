/* ONNX features beyond the zoo: TensorProto .pb files (ONNX node tests), every attribute kind
 * through export and import, constant-If folding, Constant value_* forms, recorded
 * quantization parameters (checked against the zoo's meta.json values), blocked quantization. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "tosac/onnx.h"

#define NODE_DATA "/usr/share/libonnx-testdata/data/node/"

static tosac_error err;

static void test_read_tensor_pb(void **state)
{
    (void)state;
    tosac_tensor a, b, y;
    char *name = NULL;
    tosac_error_clear(&err);
    assert_int_equal(onnx_read_tensor_file(NODE_DATA "test_add/test_data_set_0/input_0.pb", &a,
                                           &name, &err),
                     TOSAC_OK);
    assert_string_equal(name, "x");
    free(name);
    assert_int_equal(a.dtype, TOSAC_DT_F32);
    assert_int_equal(a.rank, 3);
    assert_int_equal(a.shape[0], 3);
    assert_int_equal(a.shape[1], 4);
    assert_int_equal(a.shape[2], 5);
    assert_int_equal(onnx_read_tensor_file(NODE_DATA "test_add/test_data_set_0/input_1.pb", &b,
                                           NULL, &err),
                     TOSAC_OK);
    assert_int_equal(onnx_read_tensor_file(NODE_DATA "test_add/test_data_set_0/output_0.pb", &y,
                                           NULL, &err),
                     TOSAC_OK);
    /* The ONNX test's own expected output: y = a + b exactly (float32 add). */
    for (int i = 0; i < 60; i++)
        assert_true(((float *)y.data)[i] == ((float *)a.data)[i] + ((float *)b.data)[i]);
    tosac_tensor_free(&a);
    tosac_tensor_free(&b);
    tosac_tensor_free(&y);
    assert_int_equal(onnx_read_tensor_bytes("\x08\x02\x10\x63", 4, &a, NULL, &err),
                     TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "data type type 99 is not supported"));
    tosac_error_clear(&err);
    assert_int_equal(onnx_read_tensor_file("/nonexistent.pb", &a, NULL, &err), TOSAC_ERR_INPUT);
}

/* Every attribute kind, a subgraph with an outer capture, quant params: export -> import equal. */
static void test_attribute_roundtrip(void **state)
{
    (void)state;
    tosac_error_clear(&err);
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 2, (int64_t[]){-1, 4}, &err);
    ir_tensor_set_dim_param(g, x, 0, "batch", &err);
    int c = ir_graph_add_input(g, "c", TOSAC_DT_BOOL, 0, NULL, &err);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 2, (int64_t[]){-1, 4}, &err);
    int n = ir_graph_add_node(g, "If", NULL, "if0", &c, 1, &y, 1, &err);
    ir_node_set_float(g, n, "f", 1.5f, &err);
    ir_node_set_int(g, n, "i", -7, &err);
    ir_node_set_string(g, n, "s", "hello", &err);
    ir_node_set_floats(g, n, "fs", (float[]){1, 2}, 2, &err);
    ir_node_set_ints(g, n, "is", (int64_t[]){3, 4, 5}, 3, &err);
    ir_node_set_strings(g, n, "ss", (const char *[]){"a", ""}, 2, &err);
    tosac_tensor t;
    assert_int_equal(tosac_tensor_alloc(&t, TOSAC_DT_I4, 1, (int64_t[]){3}, &err), TOSAC_OK);
    ((int8_t *)t.data)[0] = -8;
    ((int8_t *)t.data)[1] = 7;
    ((int8_t *)t.data)[2] = -1;
    ir_node_set_tensor(g, n, "t", &t, &err);
    tosac_tensor ts[1];
    assert_int_equal(tosac_tensor_alloc(&ts[0], TOSAC_DT_F16, 0, NULL, &err), TOSAC_OK);
    ir_node_set_tensors(g, n, "ts", ts, 1, &err);
    tosac_tensor_free(&t);
    for (int branch = 0; branch < 2; branch++) {
        ir_graph *b = ir_graph_new(branch ? "else" : "then", NULL);
        assert_int_equal(ir_node_set_graph(g, n, branch ? "else_branch" : "then_branch", b, &err),
                         TOSAC_OK);
        /* import order: node outputs first, captures when first read */
        int r = ir_graph_add_tensor(b, branch ? "r_else" : "r_then", TOSAC_DT_F32, -1, NULL, &err);
        int cap = ir_graph_resolve_tensor(b, "x", &err);
        ir_graph_add_node(b, branch ? "Neg" : "Relu", NULL, "", &cap, 1, &r, 1, &err);
        ir_graph_mark_output(b, r, &err);
    }
    ir_graph *subs[1] = {ir_graph_new("body", NULL)};
    ir_node_set_graphs(g, n, "gs", subs, 1, &err);
    ir_tensor_set_quant(g, y, (float[]){0.5f}, (int64_t[]){0}, 1, -1, TOSAC_DT_I8, &err);
    ir_graph_mark_output(g, y, &err);
    ir_model_set_opset(m, "com.example", 2, &err);
    assert_int_equal(err.code, TOSAC_OK);
    void *buf;
    size_t len;
    assert_int_equal(onnx_export_bytes(m, &buf, &len, &err), TOSAC_OK);
    ir_model *m2 = NULL;
    if (onnx_import_bytes(buf, len, NULL, &m2, &err))
        fail_msg("%s", err.msg);
    free(buf);
    /* quant is not part of ONNX: it is re-derived from Q/DQ nodes, so clear it to compare */
    ir_tensor_clear_quant(g, y);
    assert_true(ir_model_equal(m, m2));
    const ir_attr *a = ir_node_attr(&m2->graph->nodes[0], "t");
    assert_int_equal(((int8_t *)a->t.data)[0], -8);
    assert_int_equal(((int8_t *)a->t.data)[2], -1);
    assert_string_equal(m2->graph->tensors[0].dim_param[0], "batch");
    assert_int_equal(ir_model_opset(m2, "com.example"), 2);
    ir_model_free(m);
    ir_model_free(m2);
}

/* cond = Constant(true) -> If: the then-branch (Relu of an outer tensor) replaces the If. */
static void test_constant_if_folds(void **state)
{
    (void)state;
    tosac_error_clear(&err);
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 1, (int64_t[]){3}, &err);
    int c = ir_graph_add_tensor(g, "c", TOSAC_DT_UNKNOWN, -1, NULL, &err);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 1, (int64_t[]){3}, &err);
    int z = ir_graph_add_tensor(g, "z", TOSAC_DT_F32, 1, (int64_t[]){3}, &err);
    int k = ir_graph_add_node(g, "Constant", NULL, "", NULL, 0, &c, 1, &err);
    tosac_tensor t;
    tosac_tensor_alloc(&t, TOSAC_DT_BOOL, 0, NULL, &err);
    ((uint8_t *)t.data)[0] = 1;
    ir_node_set_tensor(g, k, "value", &t, &err);
    tosac_tensor_free(&t);
    int n = ir_graph_add_node(g, "If", NULL, "if0", &c, 1, (int[]){y, z}, 2, &err);
    for (int branch = 0; branch < 2; branch++) {
        ir_graph *b = ir_graph_new(branch ? "else" : "then", NULL);
        ir_node_set_graph(g, n, branch ? "else_branch" : "then_branch", b, &err);
        int cap = ir_graph_resolve_tensor(b, "x", &err);
        int r = ir_graph_add_tensor(b, "y", TOSAC_DT_F32, -1, NULL, &err); /* same name as outer */
        ir_graph_add_node(b, branch ? "Neg" : "Relu", NULL, "", &cap, 1, &r, 1, &err);
        ir_graph_mark_output(b, r, &err);
        ir_graph_mark_output(b, cap, &err); /* a pass-through output */
    }
    ir_graph_mark_output(g, y, &err);
    ir_graph_mark_output(g, z, &err);
    assert_int_equal(err.code, TOSAC_OK);
    void *buf;
    size_t len;
    assert_int_equal(onnx_export_bytes(m, &buf, &len, &err), TOSAC_OK);
    ir_model_free(m);
    m = NULL;
    if (onnx_import_bytes(buf, len, NULL, &m, &err))
        fail_msg("%s", err.msg);
    free(buf);
    g = m->graph;
    assert_int_equal(g->n_nodes, 3); /* Constant, Relu, Identity */
    assert_true(ir_node_is(&g->nodes[0], "Constant"));
    assert_true(ir_node_is(&g->nodes[1], "Relu"));
    assert_true(ir_node_is(&g->nodes[2], "Identity"));
    assert_int_equal(g->nodes[1].inputs[0], x);
    assert_string_equal(g->tensors[g->nodes[1].outputs[0]].name, "y");
    assert_string_equal(g->tensors[g->nodes[2].outputs[0]].name, "z");
    assert_int_equal(g->nodes[2].inputs[0], x);
    assert_int_equal(ir_model_verify(m, &err), TOSAC_OK);
    ir_model_free(m);
}

static ir_model *load(const char *rel)
{
    ir_model *m = NULL;
    tosac_error_clear(&err);
    if (onnx_import_file(tu_shared(rel), &m, &err))
        fail_msg("%s", err.msg);
    return m;
}

/* meta.json quantization.tensor_qparams: x scale 0.02951251156628132 zp 3, y scale
 * 0.051417816430330276 zp -13 (int8); weights per-channel over 16 output channels, zp 0. */
static void test_recorded_qparams(void **state)
{
    (void)state;
    ir_model *m = load("models/synth_qdq_s8_op13_conv/model.onnx");
    const ir_graph *g = m->graph;
    const ir_quant *q = g->tensors[ir_graph_find_tensor(g, "x_q")].quant;
    assert_non_null(q);
    assert_int_equal(q->axis, -1);
    assert_int_equal(q->n, 1);
    assert_true(q->scale[0] == 0.02951251156628132f);
    assert_int_equal(q->zero_point[0], 3);
    assert_int_equal(q->zp_dtype, TOSAC_DT_I8);
    q = g->tensors[ir_graph_find_tensor(g, "y_q")].quant;
    assert_true(q->scale[0] == 0.051417816430330276f);
    assert_int_equal(q->zero_point[0], -13);
    q = g->tensors[ir_graph_find_tensor(g, "w_q")].quant;
    assert_non_null(q);
    assert_int_equal(q->axis, 0);
    assert_int_equal(q->n, 16);
    for (int i = 0; i < 16; i++)
        assert_int_equal(q->zero_point[i], 0);
    ir_model_free(m);
    /* torch QDQ: u8 activations, scales from Constant nodes (1-element 1-D) */
    m = load("models/resnet18_qdq_u8s8_op13/model.onnx");
    int n_q = 0;
    for (int i = 0; i < m->graph->n_tensors; i++) {
        const ir_quant *qq = m->graph->tensors[i].quant;
        if (qq) {
            n_q++;
            assert_int_equal(qq->axis, -1);
            assert_true(qq->zp_dtype == TOSAC_DT_U8 || qq->zp_dtype == TOSAC_DT_I8 ||
                        qq->zp_dtype == TOSAC_DT_I32);
        }
    }
    assert_true(n_q > 20);
    ir_model_free(m);
    /* int16 activations at opset 21 */
    m = load("models/synth_qdq_s16_op21_add/model.onnx");
    q = m->graph->tensors[ir_graph_find_tensor(m->graph, "a_q")].quant;
    assert_int_equal(q->zp_dtype, TOSAC_DT_I16);
    assert_int_equal(q->zero_point[0], 0);
    ir_model_free(m);
}

static void test_blocked_quant_refused(void **state)
{
    (void)state;
    tosac_error_clear(&err);
    ir_model *m = ir_model_new();
    ir_model_set_opset(m, "", 21, &err);
    ir_graph *g = m->graph;
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 1, (int64_t[]){4}, &err);
    float s[2] = {1, 2};
    int si = ir_graph_add_const(g, "s", TOSAC_DT_F32, 1, (int64_t[]){2}, s, sizeof s, &err);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_UNKNOWN, -1, NULL, &err);
    int n = ir_graph_add_node(g, "QuantizeLinear", NULL, "q", (int[]){x, si}, 2, &y, 1, &err);
    ir_node_set_int(g, n, "block_size", 2, &err);
    ir_graph_mark_output(g, y, &err);
    void *buf;
    size_t len;
    assert_int_equal(onnx_export_bytes(m, &buf, &len, &err), TOSAC_OK);
    ir_model_free(m);
    m = NULL;
    assert_int_equal(onnx_import_bytes(buf, len, NULL, &m, &err), TOSAC_ERR_UNSUPPORTED);
    assert_string_equal(err.msg,
                        "node 0 (QuantizeLinear 'q'): blocked quantization (block_size) is not supported");
    assert_null(m);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_tensor_pb),     cmocka_unit_test(test_attribute_roundtrip),
        cmocka_unit_test(test_constant_if_folds),  cmocka_unit_test(test_recorded_qparams),
        cmocka_unit_test(test_blocked_quant_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
