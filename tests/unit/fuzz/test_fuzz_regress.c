/* Defects libFuzzer found (fuzz/, docs/RELIABILITY.md), as unit tests of the normal suite:
 * - an operator neither the spec nor the CPU executor has (a misspelt or custom op) is refused
 *   by compile as unsupported input (exit 2) naming the node, at the top level and inside an If
 *   body; before the fix compile built the program and its read-back check failed it as an
 *   internal error (exit 1);
 * - a negative quantization scale is refused at import (it made the quantized Softmax table
 *   convert exp(+large) = inf to an integer: undefined behaviour);
 * - a graph without nodes sorts and compiles (ir_graph_toposort passed its NULL node array to
 *   memcpy: UB, caught by the sanitizer build);
 * - a Sub without inputs is refused (shape inference read input 0 through NULL; the rule's
 *   own test is test_ir_shape's test_variadic_without_inputs);
 * - a TopK whose axis is beyond its input's rank is refused by shape inference even when its K
 *   is not known (before, compile's measuring run met it: internal error);
 * - every model kept in fuzz/regress/compile/ gets the message of its fix (or compiles, for the
 *   empty one), none an internal error. (The DequantizeLinear operand checks are in test_ir_shape.) */
#include "backend_testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/compile.h"
#include "tosac/onnx.h"

static void expect_refused(ir_model *m, const char *spec, const char *msg)
{
    tosac_error err;
    tosac_program *p;
    assert_int_equal(bt_compile_rc(m, spec, &p, NULL, &err), TOSAC_ERR_UNSUPPORTED);
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

static void test_negative_scale(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    int64_t s4[1] = {4};
    float sc = -0.5f;
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 1, s4, &err);
    int s = ir_graph_add_const(g, "s", TOSAC_DT_F32, 0, NULL, &sc, sizeof sc, &err);
    int q = ir_graph_add_tensor(g, "q", TOSAC_DT_U8, 1, s4, &err);
    assert_true(ir_graph_add_node(g, "QuantizeLinear", NULL, "quant", (int[]){x, s}, 2, &q, 1,
                                  &err) >= 0);
    assert_int_equal(ir_graph_mark_output(g, q, &err), TOSAC_OK);
    assert_int_equal(onnx_record_quant(g, &err), TOSAC_ERR_INPUT);
    assert_string_equal(err.msg, "node 0 (QuantizeLinear 'quant'): scale 0 is negative (-0.5)");
    ir_model_free(m);
}

/* The kept fuzz_compile inputs: file (under fuzz/regress/compile/) -> the compile error. */
static const struct {
    const char *file, *msg;
} KEPT[] = {
    {"crash-a34e6e603ce16f27cf6c9c5e4e439aca2eb8341e",
     "node 'DequinzateLinear_4': operator DequinzateLinear is neither in TOSA-1.0+INT nor "
     "supported on the CPU"},
    {"crash-bcd92883b89a4251961dfe15c03b7cf4221da553",
     "node 9 (DequantizeLinear ''): cannot infer the output shape: the scale is not a float "
     "tensor"},
    {"crash-e64dfe2fe5bd2d712ff4b42cbaefcdde9933c799",
     "node 6 (DequantizeLinear ''): cannot infer the output shape: the zero point's type "
     "differs from the input's"},
    {"crash-784c719c4dbebfa8f0cf93acab0fbcda509b67a4",
     "node 0 (QuantizeLinear ''): scale 0 is negative (-93.9245)"},
    {"crash-98cc68116aba36b6c06d0fcfa4490e3b6a57741a", /* no nodes and no outputs */
     "the model has no graph outputs: nothing to compile"},
    {"crash-9e9f05911cd70aae9ea35290364e5d9d0dcde91e",
     "node 17 (Sub 'base_max'): cannot infer the output shape: it has no inputs"},
    /* a TopK reading a rank-1 tensor with axis 1 and no K input: shape inference kept the
     * declared outputs, the CPU operator's prepare step refused it while compile measured the
     * program (exit 1, internal error) */
    {"crash-aead98d75d0e6e9c031d70a8b67aeadf3782ee7c",
     "node '': the axis is out of range for the input's rank"},
};

static void test_graph_without_nodes(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *m = ir_model_new();
    assert_int_equal(ir_graph_toposort(m->graph, &err), TOSAC_OK);
    assert_int_equal(m->graph->n_nodes, 0);
    ir_model_free(m);
}

static void test_kept_compile_inputs(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof KEPT / sizeof KEPT[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/fuzz/regress/compile/%s", TOSAC_SOURCE_DIR, KEPT[i].file);
        tosac_error err;
        tosac_error_clear(&err);
        ir_model *m = NULL;
        int delegates = -1;
        tosac_code rc = onnx_import_file(path, &m, &err);
        if (rc == TOSAC_OK) {
            tosac_compile_options o;
            memset(&o, 0, sizeof o);
            o.spec = "TOSA-1.0+INT";
            tosac_program *p = NULL;
            rc = tosac_compile_model(m, &o, &p, NULL, &err);
            if (p)
                delegates = tosac_program_n_delegates(p);
            tosac_program_free(p);
        }
        /* import errors carry the file's name in front ("'PATH': ...") */
        size_t ml = strlen(err.msg), kl = KEPT[i].msg ? strlen(KEPT[i].msg) : 0;
        bool ok = KEPT[i].msg ? rc != TOSAC_OK && rc != TOSAC_ERR_INTERNAL && ml >= kl &&
                                    strcmp(err.msg + ml - kl, KEPT[i].msg) == 0 &&
                                    (ml == kl || strncmp(err.msg, "'/", 2) == 0)
                              : rc == TOSAC_OK && delegates == 0;
        if (!ok)
            fail_msg("%s: code %d, message '%s'", KEPT[i].file, (int)rc, err.msg);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_op_top_level),
        cmocka_unit_test(test_unknown_op_in_if_body),
        cmocka_unit_test(test_negative_scale),
        cmocka_unit_test(test_graph_without_nodes),
        cmocka_unit_test(test_kept_compile_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
