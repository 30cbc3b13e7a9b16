/* The IR verifier: each broken invariant is reported with the node/tensor and the reason. */
#include "testutil.h"

#include <string.h>

#include "tosac/ir.h"

/* x -> Relu -> a -> Neg -> y */
static ir_graph *chain(void)
{
    tosac_error err;
    tosac_error_clear(&err);
    ir_graph *g = ir_graph_new("main", NULL);
    int64_t s[1] = {4};
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 1, s, &err);
    int a = ir_graph_add_tensor(g, "a", TOSAC_DT_F32, 1, s, &err);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 1, s, &err);
    ir_graph_add_node(g, "Relu", NULL, "r", &x, 1, &a, 1, &err);
    ir_graph_add_node(g, "Neg", NULL, "n", &a, 1, &y, 1, &err);
    ir_graph_mark_output(g, y, &err);
    assert_int_equal(err.code, TOSAC_OK);
    assert_int_equal(ir_graph_verify(g, &err), TOSAC_OK);
    return g;
}

static void expect_fail(ir_graph *g, const char *a, const char *b)
{
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(ir_graph_verify(g, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, a));
    if (b)
        assert_non_null(strstr(err.msg, b));
}

static void test_cycle(void **state)
{
    (void)state;
    ir_graph *g = chain();
    g->nodes[0].inputs[0] = 2; /* Relu reads y, which Neg(Relu) produces */
    expect_fail(g, "cycle through node", "main");
    ir_graph_free(g);
}

static void test_self_loop(void **state)
{
    (void)state;
    ir_graph *g = chain();
    g->nodes[1].inputs[0] = 2; /* Neg reads its own output */
    expect_fail(g, "cycle through node 1 (Neg 'n')", "tensor 'y'");
    ir_graph_free(g);
}

static void test_dangling_input(void **state)
{
    (void)state;
    ir_graph *g = chain();
    tosac_error err;
    tosac_error_clear(&err);
    int ghost = ir_graph_add_tensor(g, "ghost", TOSAC_DT_F32, 1, NULL, &err);
    g->nodes[1].inputs[0] = ghost;
    expect_fail(g, "node 1 (Neg 'n'): input 0 'ghost' is not produced", NULL);
    ir_graph_free(g);
}

static void test_out_of_range(void **state)
{
    (void)state;
    ir_graph *g = chain();
    g->nodes[0].inputs[0] = 77;
    expect_fail(g, "node 0 (Relu 'r'): input 0 is tensor 77, out of range", NULL);
    g->nodes[0].inputs[0] = -1; /* omitted optional input: fine */
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(ir_graph_verify(g, &err), TOSAC_OK);
    g->nodes[0].outputs[0] = -5;
    expect_fail(g, "output 0 is tensor -5", NULL);
    g->nodes[0].outputs[0] = 1;
    g->outputs[0] = 3;
    expect_fail(g, "output 0 is tensor 3, out of range", NULL);
    ir_graph_free(g);
}

static void test_double_producer(void **state)
{
    (void)state;
    ir_graph *g = chain();
    g->nodes[1].outputs[0] = 1; /* Neg writes 'a' too */
    expect_fail(g, "node 1 (Neg 'n'): output 'a' is already produced", NULL);
    g->nodes[1].outputs[0] = 0; /* writes the graph input */
    expect_fail(g, "output 'x' is already produced", NULL);
    ir_graph_free(g);
}

static void test_output_unproduced(void **state)
{
    (void)state;
    ir_graph *g = chain();
    tosac_error err;
    tosac_error_clear(&err);
    int z = ir_graph_add_tensor(g, "z", TOSAC_DT_F32, 1, NULL, &err);
    ir_graph_mark_output(g, z, &err);
    expect_fail(g, "output 'z' is not produced", NULL);
    ir_graph_free(g);
}

static void test_bad_quant_and_data(void **state)
{
    (void)state;
    ir_graph *g = chain();
    tosac_error err;
    tosac_error_clear(&err);
    float sc[3] = {1, 2, 3};
    int64_t zp[3] = {0, 0, 0};
    assert_int_equal(ir_tensor_set_quant(g, 1, sc, zp, 3, 0, TOSAC_DT_I8, &err), TOSAC_OK);
    expect_fail(g, "tensor 'a': 3 scales for dimension 0 of size 4", NULL);
    assert_int_equal(ir_tensor_set_quant(g, 1, sc, zp, 3, 1, TOSAC_DT_I8, &err), TOSAC_OK);
    expect_fail(g, "quantization axis 1 for rank 1", NULL);
    ir_tensor_clear_quant(g, 1);
    assert_int_equal(ir_tensor_set_quant(g, 1, sc, zp, 3, -1, TOSAC_DT_I8, &err),
                     TOSAC_ERR_INPUT);
    /* constant whose data no longer matches its shape */
    tosac_error_clear(&err);
    float d[2] = {1, 2};
    int k = ir_graph_add_const(g, "k", TOSAC_DT_F32, 1, (int64_t[]){2}, d, sizeof d, &err);
    g->tensors[k].shape[0] = 3;
    expect_fail(g, "constant 'k': 8 bytes of data for a shape of 12 bytes", NULL);
    ir_graph_free(g);
}

static void test_duplicate_name_rejected(void **state)
{
    (void)state;
    ir_graph *g = chain();
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(ir_graph_add_tensor(g, "a", TOSAC_DT_F32, 1, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "tensor name 'a' is used twice"));
    ir_graph_free(g);
}

static void test_subgraph_errors_reported(void **state)
{
    (void)state;
    ir_graph *g = chain();
    tosac_error err;
    tosac_error_clear(&err);
    ir_graph *body = ir_graph_new("body", NULL);
    int t = ir_graph_add_tensor(body, "t", TOSAC_DT_F32, 1, NULL, &err);
    ir_graph_mark_output(body, t, &err);
    assert_int_equal(ir_node_set_graph(g, 1, "then_branch", body, &err), TOSAC_OK);
    expect_fail(g, "graph 'body': output 't' is not produced", NULL);
    body->parent = NULL;
    expect_fail(g, "node 1 (Neg 'n'): subgraph 'then_branch' is missing or has the wrong parent",
                NULL);
    body->parent = g;
    ir_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cycle),
        cmocka_unit_test(test_self_loop),
        cmocka_unit_test(test_dangling_input),
        cmocka_unit_test(test_out_of_range),
        cmocka_unit_test(test_double_producer),
        cmocka_unit_test(test_output_unproduced),
        cmocka_unit_test(test_bad_quant_and_data),
        cmocka_unit_test(test_duplicate_name_rejected),
        cmocka_unit_test(test_subgraph_errors_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
