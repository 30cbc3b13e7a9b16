/* Every model of the shared zoo imports with the node counts, operator histogram and
 * input/output names, types and shapes its meta.json records, and survives
 * import -> export -> import unchanged. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_onnx_zoo_expected.h"
#include "tosac/onnx.h"

typedef struct op_count {
    const char *op;
    int n;
} op_count;

static void count_ops(const ir_graph *g, op_count *ops, int *n_ops, int cap)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        int k = 0;
        while (k < *n_ops && ops[k].op != n->op_type) /* interned: pointer compare */
            k++;
        if (k == *n_ops) {
            assert_true(k < cap);
            ops[k].op = n->op_type;
            ops[k].n = 0;
            (*n_ops)++;
        }
        ops[k].n++;
        const ir_graph *sub;
        for (int s = 0; (sub = ir_node_subgraph(n, s)); s++)
            count_ops(sub, ops, n_ops, cap);
    }
}

static int cmp_op(const void *a, const void *b)
{
    return strcmp(((const op_count *)a)->op, ((const op_count *)b)->op);
}

static void histogram(const ir_graph *g, char *buf, size_t len)
{
    op_count ops[128];
    int n = 0;
    count_ops(g, ops, &n, 128);
    qsort(ops, (size_t)n, sizeof ops[0], cmp_op);
    size_t w = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && w < len; i++)
        w += (size_t)snprintf(buf + w, len - w, "%s%s:%d", i ? "," : "", ops[i].op, ops[i].n);
}

static void check_value(const ir_graph *g, int id, const zoo_value *v)
{
    const ir_tensor *t = &g->tensors[id];
    assert_string_equal(t->name, v->name);
    assert_int_equal(t->dtype, v->dtype);
    assert_int_equal(t->rank, v->rank);
    for (int d = 0; d < v->rank; d++) {
        assert_int_equal(t->shape[d], v->shape[d]);
        if (v->dim_param[d])
            assert_string_equal(t->dim_param[d], v->dim_param[d]);
        else
            assert_null(t->dim_param[d]);
    }
}

static void check_model(const zoo_model *z)
{
    char rel[256], hist[2048];
    snprintf(rel, sizeof rel, "models/%s/model.onnx", z->name);
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *m = NULL;
    tosac_code rc = onnx_import_file(tu_shared(rel), &m, &err);
    if (rc)
        fail_msg("%s: %s", z->name, err.msg);
    const ir_graph *g = m->graph;
    assert_int_equal(g->n_nodes, z->top);
    assert_int_equal(ir_graph_count_nodes_deep(g), z->total);
    histogram(g, hist, sizeof hist);
    assert_string_equal(hist, z->histogram);
    assert_int_equal(g->n_inputs, z->n_inputs);
    assert_int_equal(g->n_outputs, z->n_outputs);
    for (int i = 0; i < z->n_inputs; i++)
        check_value(g, g->inputs[i], &z->inputs[i]);
    for (int i = 0; i < z->n_outputs; i++)
        check_value(g, g->outputs[i], &z->outputs[i]);
    assert_int_equal(ir_model_verify(m, &err), TOSAC_OK);

    void *buf;
    size_t len;
    rc = onnx_export_bytes(m, &buf, &len, &err);
    if (rc)
        fail_msg("%s: export: %s", z->name, err.msg);
    ir_model *m2 = NULL;
    rc = onnx_import_bytes(buf, len, NULL, &m2, &err);
    if (rc)
        fail_msg("%s: re-import: %s", z->name, err.msg);
    assert_true(ir_model_equal(m, m2));
    free(buf);
    ir_model_free(m2);
    ir_model_free(m);
}

static void test_zoo_models(void **state)
{
    (void)state;
    for (int i = 0; i < ZOO_N_MODELS; i++)
        check_model(&zoo_models[i]);
}

/* Quantization parameters recorded at import, checked against meta.json
 * (quantization.tensor_qparams of the synthetic QDQ models). */
static void test_zoo_qparams(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *m = NULL;
    assert_int_equal(onnx_import_file(tu_shared("models/synth_qdq_s8_op13_conv/model.onnx"), &m,
                                      &err),
                     TOSAC_OK);
    ir_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zoo_models),
        cmocka_unit_test(test_zoo_qparams),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
