/* pass_fold_qdq on small graphs built with the IR builder. */
#include "backend_testutil.h"

#include <string.h>

#include "passes/passes.h"
#include "tosac/ir.h"

static const int64_t shp[4] = {1, 2, 3, 3};

static int qtensor(ir_graph *g, const char *name, float scale, int64_t zp)
{
    tosac_error err;
    tosac_error_clear(&err);
    int t = ir_graph_add_tensor(g, name, TOSAC_DT_I8, 4, shp, &err);
    assert_int_equal(ir_tensor_set_quant(g, t, &scale, &zp, 1, -1, TOSAC_DT_I8, &err), TOSAC_OK);
    return t;
}

static int ftensor(ir_graph *g, const char *name)
{
    tosac_error err;
    tosac_error_clear(&err);
    return ir_graph_add_tensor(g, name, TOSAC_DT_F32, 4, shp, &err);
}

static void node(ir_graph *g, const char *op, int in, int out)
{
    tosac_error err;
    tosac_error_clear(&err);
    assert_true(ir_graph_add_node(g, op, NULL, op, &in, 1, &out, 1, &err) >= 0);
}

/* x_q -DQ-> x_f -Sigmoid-> s_f -[Relu]-> y_f -Q-> y_q -DQ-> out (graph output) */
static ir_graph *chain(bool relu, bool s_is_output)
{
    tosac_error err;
    tosac_error_clear(&err);
    ir_graph *g = ir_graph_new("g", NULL);
    int xq = qtensor(g, "x_q", 0.5f, 1);
    ir_graph_mark_input(g, xq, &err);
    int xf = ftensor(g, "x_f"), sf = ftensor(g, "s_f"), yf = relu ? ftensor(g, "y_f") : sf;
    int yq = qtensor(g, "y_q", 0.25f, -2), out = ftensor(g, "out");
    node(g, "DequantizeLinear", xq, xf);
    node(g, "Sigmoid", xf, sf);
    if (relu)
        node(g, "Relu", sf, yf);
    node(g, "QuantizeLinear", yf, yq);
    node(g, "DequantizeLinear", yq, out);
    ir_graph_mark_output(g, out, &err);
    if (s_is_output)
        ir_graph_mark_output(g, sf, &err);
    return g;
}

static int find_node(const ir_graph *g, const char *op)
{
    for (int i = 0; i < g->n_nodes; i++)
        if (ir_node_is(&g->nodes[i], op))
            return i;
    return -1;
}

static void run(ir_graph *g)
{
    tosac_error err;
    tosac_error_clear(&err);
    tosa_spec sp = bt_spec("TOSA-1.0+INT");
    pass_ctx c = {&sp, 13};
    assert_int_equal(pass_fold_qdq(g, &c, &err), TOSAC_OK);
    assert_int_equal(ir_graph_verify(g, &err), TOSAC_OK);
}

static void test_folds_pair(void **state)
{
    (void)state;
    ir_graph *g = chain(false, false);
    run(g);
    /* Sigmoid(x_q) -> y_q, and the output DQ remain */
    assert_int_equal(g->n_nodes, 2);
    int s = find_node(g, "Sigmoid");
    assert_true(s >= 0);
    assert_string_equal(g->tensors[g->nodes[s].inputs[0]].name, "x_q");
    assert_string_equal(g->tensors[g->nodes[s].outputs[0]].name, "y_q");
    assert_true(find_node(g, "DequantizeLinear") >= 0);
    assert_int_equal(find_node(g, "QuantizeLinear"), -1);
    ir_graph_free(g);
}

static void test_folds_through_relu(void **state)
{
    (void)state;
    ir_graph *g = chain(true, false);
    run(g);
    assert_int_equal(g->n_nodes, 3);
    int s = find_node(g, "Sigmoid"), r = find_node(g, "Relu");
    const ir_tensor *mid = &g->tensors[g->nodes[s].outputs[0]];
    /* the value between the op and the Relu takes the Q's type and parameters */
    assert_string_equal(mid->name, "s_f");
    assert_int_equal(mid->dtype, TOSAC_DT_I8);
    assert_non_null(mid->quant);
    assert_true(mid->quant->scale[0] == 0.25f);
    assert_int_equal(mid->quant->zero_point[0], -2);
    assert_string_equal(g->tensors[g->nodes[r].outputs[0]].name, "y_q");
    ir_graph_free(g);
}

static void test_keeps_float_when_value_escapes(void **state)
{
    (void)state;
    ir_graph *g = chain(false, true); /* s_f is also a graph output: cannot become y_q */
    run(g);
    assert_int_equal(g->n_nodes, 4);
    int s = find_node(g, "Sigmoid");
    assert_string_equal(g->tensors[g->nodes[s].inputs[0]].name, "x_f");
    ir_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_folds_pair),
        cmocka_unit_test(test_folds_through_relu),
        cmocka_unit_test(test_keeps_float_when_value_escapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
