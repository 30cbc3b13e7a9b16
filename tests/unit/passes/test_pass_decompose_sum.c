/* pass_decompose_sum: Sum/Mean become Add chains (and a Mul by 1/n); same CPU values. */
#include "passes_testutil.h"

static const int64_t s23[2] = {2, 3}, s3[1] = {3};
static const float av[6] = {1, 2, 3, 4, 5, 6}, bv[3] = {0.5f, -1, 2}, cv[6] = {-3, 0, 1, 8, 2, 0.25f};

static void run3(ir_graph *g, float *out)
{
    tosac_tensor in[3] = {pt_host(TOSAC_DT_F32, 2, s23, av), pt_host(TOSAC_DT_F32, 1, s3, bv),
                          pt_host(TOSAC_DT_F32, 2, s23, cv)}, o;
    pt_cpu(g, in, g->n_inputs, &o, 1);
    memcpy(out, o.data, sizeof(float) * 6);
    tosac_tensor_free(&o);
}

static ir_graph *variadic(const char *op, int k)
{
    ir_graph *g = ir_graph_new("g", NULL);
    int in[3] = {pt_input(g, "a", TOSAC_DT_F32, 2, s23), pt_input(g, "b", TOSAC_DT_F32, 1, s3),
                 pt_input(g, "c", TOSAC_DT_F32, 2, s23)};
    int y = pt_tensor(g, "y", TOSAC_DT_F32, 2, s23);
    pt_node(g, op, in, k, &y, 1);
    pt_output(g, y);
    return g;
}

static void test_sum_three(void **state)
{
    (void)state;
    ir_graph *g = variadic("Sum", 3);
    float after[6];
    pt_run(g, pass_decompose_sum, "TOSA-1.0+FP");
    assert_int_equal(pt_count(g, "Sum"), 0);
    assert_int_equal(pt_count(g, "Add"), 2);
    run3(g, after);
    /* hand-derived a + b (broadcast over rows) + c */
    const float expect[6] = {-1.5f, 1, 6, 12.5f, 6, 8.25f};
    assert_memory_equal(after, expect, sizeof expect);
    ir_graph_free(g);
}

static void test_mean_three(void **state)
{
    (void)state;
    ir_graph *g = variadic("Mean", 3);
    float before[6], after[6];
    run3(g, before);
    pt_run(g, pass_decompose_sum, "TOSA-1.0+FP");
    assert_int_equal(pt_count(g, "Mean"), 0);
    assert_int_equal(pt_count(g, "Add"), 2);
    assert_int_equal(pt_count(g, "Mul"), 1);
    run3(g, after);
    for (int i = 0; i < 6; i++)
        assert_float_equal(before[i], after[i], 1e-6);
    assert_float_equal(after[3], 12.5f / 3.0f, 1e-6);
    ir_graph_free(g);
}

static void test_sum_single(void **state)
{
    (void)state;
    ir_graph *g = variadic("Sum", 1);
    pt_run(g, pass_decompose_sum, "TOSA-1.0+FP");
    assert_int_equal(pt_count(g, "Sum"), 0);
    assert_int_equal(pt_count(g, "Identity"), 1);
    ir_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sum_three),
        cmocka_unit_test(test_mean_three),
        cmocka_unit_test(test_sum_single),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
