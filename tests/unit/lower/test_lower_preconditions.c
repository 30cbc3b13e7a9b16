/* The lowering rules' preconditions (lower_rule.pre / .const_params, lower_registry.c):
 * checked once before the rule runs, with the reasons the rules used to write themselves;
 * rules without them never see the check. */
#include "lower_testutil.h"

#include "lower/lower.h"

static void test_flags(void **state)
{
    (void)state;
    const lower_rule *abs = lower_find(NULL, "Abs"), *reshape = lower_find("ai.onnx", "Reshape");
    const lower_rule *conv = lower_find(NULL, "Conv"), *split = lower_find(NULL, "Split");
    assert_non_null(abs);
    assert_non_null(reshape);
    assert_non_null(conv);
    assert_non_null(split);
    assert_int_equal(abs->pre, LOWER_PRE_STATIC);
    assert_int_equal(abs->const_params, LOWER_CONST_NONE);
    assert_int_equal(reshape->pre, LOWER_PRE_NONE);
    assert_int_equal(reshape->const_params, LOWER_CONST_FROM1);
    assert_int_equal(split->const_params, LOWER_CONST_FROM1);
    assert_int_equal(conv->pre, LOWER_PRE_NONE);
    assert_ptr_equal(lower_find_rule(NULL, "Abs"), abs->fn);
    assert_null(lower_find(NULL, "NoSuchOp"));
}

/* A static-shape rule refuses an unknown dimension before its own checks run. */
static void test_static(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    const int64_t xs[2] = {2, 3}, ys[2] = {2, -1}; /* an input is declared (checked) first */
    int x = lt_input(g, "x", TOSAC_DT_F32, 2, xs), y = lt_tensor(g, "y", TOSAC_DT_F32, 2, ys);
    lt_node(g, "Abs", &x, 1, &y, 1);
    assert_string_equal(lt_trial("TOSA-1.0+INT+FP", g, 0), "Abs: 'y' has an unknown dimension 1");
    ir_graph_free(g);

    g = ir_graph_new("g", NULL);
    const int64_t ok[2] = {2, 3};
    x = lt_input(g, "x", TOSAC_DT_F32, 2, ok);
    y = lt_tensor(g, "y", TOSAC_DT_F32, 2, ok);
    lt_node(g, "Abs", &x, 1, &y, 1);
    assert_string_equal(lt_trial("TOSA-1.0+INT+FP", g, 0), "");
    ir_graph_free(g);
}

/* A runtime shape operand of Reshape / Squeeze: the const_params precondition's reason. */
static void test_const_params(void **state)
{
    (void)state;
    const char *ops[] = {"Reshape", "Squeeze"};
    for (int k = 0; k < 2; k++) {
        ir_graph *g = ir_graph_new("g", NULL);
        const int64_t xs[2] = {1, 6}, ss[1] = {1}, ys[1] = {6};
        int x = lt_input(g, "x", TOSAC_DT_F32, 2, xs), s = lt_input(g, "s", TOSAC_DT_I64, 1, ss);
        int y = lt_tensor(g, "y", TOSAC_DT_F32, 1, ys);
        int ins[2] = {x, s};
        lt_node(g, ops[k], ins, 2, &y, 1);
        char want[128];
        snprintf(want, sizeof want, "%s: a shape or axes operand is computed at run time", ops[k]);
        assert_string_equal(lt_trial("TOSA-1.0+INT+FP", g, 0), want);
        ir_graph_free(g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flags),
        cmocka_unit_test(test_static),
        cmocka_unit_test(test_const_params),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
