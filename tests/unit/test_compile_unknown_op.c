/* An operator neither the spec nor the CPU executor has (a misspelt or custom op) is refused by
 * compile as unsupported input (exit 2) naming the node, at the top level and inside an If
 * body; before the fix compile built the program and its read-back check failed it as an
 * internal error (exit 1). The third case is the model libFuzzer found (fuzz/regress/compile). */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/compile.h"
#include "tosac/onnx.h"

static void expect_refused(ir_model *m, const char *spec, const char *msg)
{
    tosac_error err;
    tosac_error_clear(&err);
    tosac_compile_options o;
    memset(&o, 0, sizeof o);
    o.spec = spec;
    tosac_program *p = NULL;
    assert_int_equal(tosac_compile_model(m, &o, &p, NULL, &err), TOSAC_ERR_UNSUPPORTED);
    assert_null(p);
    assert_string_equal(err.msg, msg);
}

/* A branch of g returning op(x), x read from g. */
static ir_graph *body(ir_graph *g, const char *name, const char *op, const char *node)
{
    tosac_error err;
    tosac_error_clear(&err);
    int64_t s[1] = {4};
    ir_graph *b = ir_graph_new(name, g);
    int bx = ir_graph_resolve_tensor(b, "x", &err);
    int bo = ir_graph_add_tensor(b, "o", TOSAC_DT_F32, 1, s, &err);
    assert_true(ir_graph_add_node(b, op, NULL, node, &bx, 1, &bo, 1, &err) >= 0);
    assert_int_equal(ir_graph_mark_output(b, bo, &err), TOSAC_OK);
    return b;
}

/* y = Frobnicate(x) at the top level, or inside the then branch of If(c) when in_body. */
static ir_model *frob_model(bool in_body)
{
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t s[1] = {4};
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 1, s, &err);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 1, s, &err);
    assert_true(x >= 0 && y >= 0);
    if (!in_body) {
        assert_true(ir_graph_add_node(g, "Frobnicate", NULL, "frob", &x, 1, &y, 1, &err) >= 0);
    } else {
        int c = ir_graph_add_input(g, "c", TOSAC_DT_BOOL, 0, NULL, &err);
        int k = ir_graph_add_node(g, "If", NULL, "the_if", &c, 1, &y, 1, &err);
        assert_true(c >= 0 && k >= 0);
        ir_graph *then = body(g, "then_branch", "Frobnicate", "frob_in_body");
        ir_graph *els = body(g, "else_branch", "Neg", "neg");
        assert_int_equal(ir_node_set_graph(g, k, "then_branch", then, &err), TOSAC_OK);
        assert_int_equal(ir_node_set_graph(g, k, "else_branch", els, &err), TOSAC_OK);
    }
    assert_int_equal(ir_graph_mark_output(g, y, &err), TOSAC_OK);
    return m;
}

static void test_unknown_op_top_level(void **state)
{
    (void)state;
    expect_refused(frob_model(false), "TOSA-1.0+FP",
                   "node 'frob': operator Frobnicate is neither in TOSA-1.0+FP nor supported on "
                   "the CPU");
}

static void test_unknown_op_in_if_body(void **state)
{
    (void)state;
    expect_refused(frob_model(true), "TOSA-1.0+FP",
                   "node 'frob_in_body': operator Frobnicate is neither in TOSA-1.0+FP nor "
                   "supported on the CPU");
}

static void test_fuzz_found_model(void **state)
{
    (void)state;
    const char *path = TOSAC_SOURCE_DIR
        "/fuzz/regress/compile/crash-a34e6e603ce16f27cf6c9c5e4e439aca2eb8341e";
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *m = NULL;
    assert_int_equal(onnx_import_file(path, &m, &err), TOSAC_OK);
    expect_refused(m, "TOSA-1.0+INT",
                   "node 'DequinzateLinear_4': operator DequinzateLinear is neither in "
                   "TOSA-1.0+INT nor supported on the CPU");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_op_top_level),
        cmocka_unit_test(test_unknown_op_in_if_body),
        cmocka_unit_test(test_fuzz_found_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
