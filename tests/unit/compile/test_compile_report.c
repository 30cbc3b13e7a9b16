/* The compile report: every model node with its placement, nodes created or replaced by the
 * passes attributed to the model node they came from (so a decomposed Div whose Mul stays on
 * the CPU is reported as a CPU Div, never as "folded"), and CPU reasons sorted into the
 * issue's categories. */
#include "lower_core_testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition/partition.h"
#include "tosac/compile.h"
#include "util/json.h"

static tosac_error E;
static const int64_t shp[2] = {2, 3};

static ir_model *new_model(int opset)
{
    ir_model *m = ir_model_new();
    assert_non_null(m);
    assert_int_equal(ir_model_set_opset(m, "", opset, &E), TOSAC_OK);
    return m;
}

static int tensor(ir_graph *g, const char *name)
{
    int t = ir_graph_add_tensor(g, name, TOSAC_DT_F32, 2, shp, &E);
    assert_true(t >= 0);
    return t;
}

static void node(ir_graph *g, const char *op, const char *name, const int *ins, int n_in, int out)
{
    assert_true(ir_graph_add_node(g, op, NULL, name, ins, n_in, &out, 1, &E) >= 0);
}

/* Compiles m under spec and returns the parsed report. */
static tosac_json *report_of(ir_model *m, const char *spec)
{
    tosac_compile_options o;
    memset(&o, 0, sizeof o);
    o.spec = spec;
    tosac_program *p = NULL;
    char *text = NULL;
    tosac_error_clear(&E);
    tosac_code rc = tosac_compile_model(m, &o, &p, &text, &E);
    if (rc)
        fail_msg("compile: %s", E.msg);
    tosac_json *j = NULL;
    assert_int_equal(tosac_json_parse(text, strlen(text), &j, &E), TOSAC_OK);
    free(text);
    tosac_program_free(p);
    return j;
}

/* The report entry of model node `name` (the test fails if there is none). */
static const tosac_json *entry(const tosac_json *rep, const char *name)
{
    const tosac_json *nodes = tosac_json_get(rep, "nodes");
    for (int i = 0; i < tosac_json_count(nodes); i++) {
        const tosac_json *nd = tosac_json_at(nodes, i);
        if (strcmp(tosac_json_string(tosac_json_get(nd, "name")), name) == 0)
            return nd;
    }
    fail_msg("no report entry for node %s", name);
    return NULL;
}

static const char *field(const tosac_json *nd, const char *key)
{
    const char *s = tosac_json_string(tosac_json_get(nd, key));
    return s ? s : "";
}

/* No entry of the report is a pass-made node without a model origin. */
static void assert_all_attributed(const tosac_json *rep)
{
    const tosac_json *nodes = tosac_json_get(rep, "nodes");
    for (int i = 0; i < tosac_json_count(nodes); i++)
        if (tosac_json_get(tosac_json_at(nodes, i), "origin"))
            fail_msg("unattributed pass node %s",
                     field(tosac_json_at(nodes, i), "op_type"));
}

/* y = x / d with both runtime inputs: decompose_div makes Reciprocal(d) and Mul, both named
 * like the Div. */
static ir_model *div_model(void)
{
    ir_model *m = new_model(13);
    ir_graph *g = m->graph;
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 2, shp, &E);
    int d = ir_graph_add_input(g, "d", TOSAC_DT_F32, 2, shp, &E);
    int y = tensor(g, "y"), ins[2] = {x, d};
    node(g, "Div", "my_div", ins, 2, y);
    assert_int_equal(ir_graph_mark_output(g, y, &E), TOSAC_OK);
    return m;
}

static void test_decomposed_div_on_cpu_is_reported_as_div(void **state)
{
    (void)state;
    tosac_json *rep = report_of(div_model(), "TOSA-1.0+INT"); /* no float at all */
    const tosac_json *d = entry(rep, "my_div");
    assert_string_equal(field(d, "op_type"), "Div");
    assert_string_equal(field(d, "placement"), "cpu");
    assert_string_equal(field(d, "category"), "needs a profile or extension");
    /* said of the Div, though its Reciprocal part is the node refused */
    assert_string_equal(field(d, "reason"), "Div: float32 operands need +FP (TOSA-1.0+INT+FP)");
    const tosac_json *parts = tosac_json_get(d, "parts");
    assert_int_equal(tosac_json_count(parts), 2);
    assert_string_equal(field(tosac_json_at(parts, 0), "op_type"), "Reciprocal");
    assert_string_equal(field(tosac_json_at(parts, 1), "op_type"), "Mul");
    assert_string_equal(field(tosac_json_at(parts, 1), "placement"), "cpu");
    assert_int_equal(tosac_json_count(tosac_json_get(rep, "nodes")), 1);
    assert_all_attributed(rep);
    tosac_json_free(rep);
}

static void test_decomposed_div_delegated(void **state)
{
    (void)state;
    tosac_json *rep = report_of(div_model(), "TOSA-1.0+FP");
    const tosac_json *d = entry(rep, "my_div");
    assert_string_equal(field(d, "placement"), "delegate");
    int64_t k = -1;
    assert_true(tosac_json_int(tosac_json_get(d, "delegate"), &k));
    assert_int_equal(k, 0);
    assert_null(tosac_json_get(d, "reason"));
    assert_int_equal(tosac_json_count(tosac_json_get(d, "parts")), 2);
    tosac_json_free(rep);
}

/* Sum(a, b, c) becomes two Adds named like the Sum; one delegate holds them. */
static void test_sum_chain_attributed(void **state)
{
    (void)state;
    ir_model *m = new_model(13);
    ir_graph *g = m->graph;
    int a = ir_graph_add_input(g, "a", TOSAC_DT_F32, 2, shp, &E);
    int b = ir_graph_add_input(g, "b", TOSAC_DT_F32, 2, shp, &E);
    int c = ir_graph_add_input(g, "c", TOSAC_DT_F32, 2, shp, &E);
    int y = tensor(g, "y"), ins[3] = {a, b, c};
    node(g, "Sum", "total", ins, 3, y);
    assert_int_equal(ir_graph_mark_output(g, y, &E), TOSAC_OK);
    tosac_json *rep = report_of(m, "TOSA-1.0+FP");
    const tosac_json *s = entry(rep, "total");
    assert_string_equal(field(s, "placement"), "delegate");
    const tosac_json *parts = tosac_json_get(s, "parts");
    assert_int_equal(tosac_json_count(parts), 2);
    for (int i = 0; i < 2; i++) {
        assert_string_equal(field(tosac_json_at(parts, i), "op_type"), "Add");
        assert_string_equal(field(tosac_json_at(parts, i), "placement"), "delegate");
    }
    assert_all_attributed(rep);
    tosac_json_free(rep);
}

/* A model node the passes leave alone keeps its own placement, even when a pass-made helper
 * named after it (here nothing) exists; an unnamed node gets a generated unique name. */
static void test_categories_in_report(void **state)
{
    (void)state;
    ir_model *m = new_model(13);
    ir_graph *g = m->graph;
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 2, shp, &E);
    int t1 = tensor(g, "t1"), t2 = tensor(g, "t2");
    node(g, "Relu", "", &x, 1, t1);
    node(g, "Erf", "", &t1, 1, t2); /* float Erf: TOSA ERF under FP, a profile refusal under INT */
    int t3 = tensor(g, "t3");
    node(g, "Hardmax", "hardmax", &t2, 1, t3); /* no rule */
    assert_int_equal(ir_graph_mark_output(g, t3, &E), TOSAC_OK);
    tosac_json *rep = report_of(m, "TOSA-1.0+FP");
    assert_string_equal(field(entry(rep, "Relu_0"), "placement"), "delegate");
    assert_string_equal(field(entry(rep, "Erf_1"), "placement"), "delegate");
    const tosac_json *mod = entry(rep, "hardmax");
    assert_string_equal(field(mod, "placement"), "cpu");
    assert_string_equal(field(mod, "category"), "case not handled by the lowering");
    assert_string_equal(field(mod, "reason"),
                        "Hardmax: tosac has no lowering for this operator yet");
    assert_null(tosac_json_get(mod, "parts"));
    tosac_json_free(rep);
}

/* One runtime-input node op(x[, x]) -> y of dtype dt, compiled under spec: its report entry's
 * category and reason. */
static void check_single(const char *op, int n_in, tosac_dtype dt, const char *spec,
                         const char *category, const char *reason)
{
    ir_model *m = new_model(18);
    ir_graph *g = m->graph;
    static const int64_t sq[2] = {3, 3}; /* square: Det's input, Det's output a scalar */
    int x = ir_graph_add_input(g, "x", dt, 2, sq, &E);
    bool det = strcmp(op, "Det") == 0;
    int y = ir_graph_add_tensor(g, "y", dt, det ? 0 : 2, sq, &E), ins[2] = {x, x};
    node(g, op, "n", ins, n_in, y);
    assert_int_equal(ir_graph_mark_output(g, y, &E), TOSAC_OK);
    tosac_json *rep = report_of(m, spec);
    const tosac_json *nd = entry(rep, "n");
    assert_string_equal(field(nd, "placement"), "cpu");
    assert_string_equal(field(nd, "category"), category);
    assert_string_equal(field(nd, "reason"), reason);
    tosac_json_free(rep);
}

/* The reasons tell apart what TOSA lacks, what a profile or extension would allow (with the
 * spec string to use), and what tosac does not lower yet. */
static void test_truthful_reasons(void **state)
{
    (void)state;
    check_single("Det", 1, TOSAC_DT_F32, "TOSA-1.0+FP", "operator not in the spec",
                 "Det: TOSA has no such operator (no determinant)");
    check_single("Erf", 1, TOSAC_DT_F32, "TOSA-1.0+INT", "needs a profile or extension",
                 "Erf: float32 operands need +FP (TOSA-1.0+INT+FP)");
    check_single("Erf", 1, TOSAC_DT_F32, "TOSA-1.0+INT+u55", "needs a profile or extension",
                 "Erf: float32 operands need +FP, which TOSA-1.0+INT+u55 cannot have");
    check_single("BitwiseAnd", 2, TOSAC_DT_I32, "TOSA-1.0+FP", "needs a profile or extension",
                 "BitwiseAnd: integer operands need +INT (TOSA-1.0+INT+FP)");
    check_single("BitwiseXor", 2, TOSAC_DT_U8, "TOSA-1.0+INT", "type not legal",
                 "BitwiseXor: TOSA has no unsigned integer types (u8 'x')");
    check_single("Mod", 2, TOSAC_DT_F32, "TOSA-1.0+FP", "case not handled by the lowering",
                 "Mod: fmod=0 on f32 (ONNX requires fmod=1 for floats)");
}

/* NonMaxSuppression (boxes, scores -> int64 indices): TOSA has no such operator. */
static void test_nms_not_in_tosa(void **state)
{
    (void)state;
    ir_model *m = new_model(13);
    ir_graph *g = m->graph;
    const int64_t bs[3] = {1, 4, 4}, ss[3] = {1, 1, 4}, is[2] = {4, 3};
    int boxes = ir_graph_add_input(g, "boxes", TOSAC_DT_F32, 3, bs, &E);
    int scores = ir_graph_add_input(g, "scores", TOSAC_DT_F32, 3, ss, &E);
    int sel = ir_graph_add_tensor(g, "sel", TOSAC_DT_I64, 2, is, &E), ins[2] = {boxes, scores};
    node(g, "NonMaxSuppression", "nms", ins, 2, sel);
    assert_int_equal(ir_graph_mark_output(g, sel, &E), TOSAC_OK);
    tosac_json *rep = report_of(m, "TOSA-1.0+FP");
    const tosac_json *nd = entry(rep, "nms");
    assert_string_equal(field(nd, "category"), "operator not in the spec");
    assert_string_equal(field(nd, "reason"),
                        "NonMaxSuppression: TOSA has no such operator (its output shape depends "
                        "on the values)");
    tosac_json_free(rep);
}

/* An a16w8 Conv under a spec without EXT-INT16: the reason names the extension to add and
 * the spec that has it, in the ONNX node's terms (not "CONV2D: ... needs EXT-INT16"). */
static void conv_model(lc_b *b, const void *arg)
{
    (void)arg;
    static float xv[1 * 2 * 4 * 4], wv[3 * 2 * 3 * 3], bv[3];
    lc_fill(xv, 32, 7, 1.0f);
    lc_fill(wv, 54, 8, 0.5f);
    lc_fill(bv, 3, 9, 0.5f);
    const int64_t xs[4] = {1, 2, 4, 4}, ws[4] = {3, 2, 3, 3};
    int x = lc_input(b, "x", 4, xs, xv);
    int w = lc_weight(b, "w", 4, ws, wv, 0);
    int ins[3] = {x, w, lc_bias(b, "b", 3, bv, x, w)};
    lc_output(b, lc_out(b, lc_node(b, "Conv", "conv", ins, 3, 1), 0));
}

static void test_int16_conv_reason(void **state)
{
    (void)state;
    lc_result r;
    lc_check(conv_model, NULL, LC_A16W8, "TOSA-1.0+INT", 1, &r);
    assert_int_equal(r.n_delegates, 0);
    if (!strstr(r.reasons, "Conv: int16 activations need +int16 (TOSA-1.0+INT+int16)"))
        fail_msg("reasons: %s", r.reasons);
    assert_non_null(strstr(r.categories, "Conv: needs a profile or extension"));
}

/* partition_categorise on the details the trial lowering gives, under the spec named. */
static void test_categorise(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 2, shp, &E);
    int y = tensor(g, "y");
    node(g, "Mul", "mul", &x, 1, y);
    node(g, "DequantizeLinear", "dq", &x, 1, y);
    node(g, "Constant", "k", NULL, 0, y);
    node(g, "Conv", "conv", &x, 1, y);
    node(g, "ScatterElements", "sc", &x, 1, y);
    assert_true(ir_graph_add_node(g, "Frob", "com.example", "frob", &x, 1, &y, 1, &E) >= 0);
    static const struct {
        int node;
        const char *spec, *why, *category, *reason; /* reason NULL: kept as it is */
    } cases[] = {
        {0, "TOSA-1.0+INT+u55", "U55 restriction: MATMUL is not supported on Ethos-U55",
         "U55 restriction", NULL},
        {4, "TOSA-1.0+INT", "no TOSA lowering for ScatterElements",
         "case not handled by the lowering",
         "ScatterElements: tosac has no lowering for it yet (TOSA has SCATTER)"},
        {5, "TOSA-1.0+INT", "no TOSA lowering for com.example.Frob",
         "case not handled by the lowering",
         "com.example.Frob: tosac has no lowering for this operator yet"},
        {0, "TOSA-1.0+INT", "DIM is not an operator of TOSA 1.0", "operator not in the spec",
         "Mul: its lowering needs DIM, which TOSA 1.0 does not have (TOSA 1.1 has it)"},
        {0, "TOSA-1.0+INT", "MUL: in_t=f32 out_t=f32 needs PRO-FP",
         "needs a profile or extension", "Mul: float32 operands need +FP (TOSA-1.0+INT+FP)"},
        {3, "TOSA-1.0+INT", "CONST: out_t=i48 needs EXT-INT16", "needs a profile or extension",
         "Conv: int16 activations need +int16 (TOSA-1.0+INT+int16)"},
        {3, "TOSA-1.0+INT", "CONV2D: in_t=i16 weight_t=i8 out_t=i48 acc_t=i48 needs PRO-INT & "
         "EXT-INT16", "needs a profile or extension",
         "Conv: int16 activations need +int16 (TOSA-1.0+INT+int16)"},
        {0, "TOSA-1.1+INT", "ARGMAX: in_t=f32 out_t=i64 needs PRO-FP & EXT-INT64",
         "needs a profile or extension",
         "Mul: float32 operands and int64 values need +FP+int64 (TOSA-1.1+INT+FP+int64)"},
        {0, "TOSA-1.0+INT", "SUB: no form for in_out_t=i64", "int64 not kept",
         "Mul: its int64 values are not provably within int32, and TOSA-1.0+INT has no int64 "
         "(EXT-INT64: TOSA-1.1+INT+int64 keeps it)"},
        {0, "TOSA-1.1+INT+FP", "SUB: in_out_t=i64 needs EXT-INT64", "int64 not kept",
         "Mul: its int64 values are not provably within int32, and TOSA-1.1+INT+FP has no "
         "int64 (EXT-INT64: TOSA-1.1+INT+FP+int64 keeps it)"},
        {0, "TOSA-1.0+INT", "GATHER: no form for index_t=i32 in_out_t=i64", "int64 not kept",
         "Mul: its int64 values are not provably within int32, and TOSA has no form for them "
         "(GATHER: no form for index_t=i32 in_out_t=i64)"},
        {0, "TOSA-1.1+INT+int64", "REDUCE_PRODUCT: no form for in_out_t=i64", "type not legal",
         "Mul: TOSA 1.1 has no such form (REDUCE_PRODUCT: no form for in_out_t=i64)"},
        {0, "TOSA-1.0+INT", "ADD: no form for in_out_t=u16", "type not legal",
         "Mul: TOSA has no unsigned integer types (u16)"},
        {0, "TOSA-1.0+INT", "ADD: no form for in_out_t=i8", "type not legal",
         "Mul: TOSA 1.0 has no such form (ADD: no form for in_out_t=i8)"},
        {3, "TOSA-1.0+INT", "Conv with auto_pad SAME_LOWER", "case not handled by the lowering",
         NULL},
        {0, "TOSA-1.0+INT", "Mul needs two inputs and an output",
         "case not handled by the lowering", NULL},
        {0, "TOSA-1.0+INT", "'y' has an unknown dimension 0", "case not handled by the lowering",
         "Mul: 'y' has an unknown dimension 0"},
        {1, "TOSA-1.0+INT", "CAST: in_t=i8 out_t=f32 needs PRO-FP", "boundary rule",
         "delegates without PRO-FP keep their boundaries integer, so this DequantizeLinear runs "
         "on the CPU (CAST: in_t=i8 out_t=f32 needs PRO-FP)"},
        {1, "TOSA-1.0+INT", "RESCALE: in_t=i48 needs EXT-INT16", "needs a profile or extension",
         "DequantizeLinear: int16 activations need +int16 (TOSA-1.0+INT+int16)"},
        {2, "TOSA-1.0+INT", "constant (folded into the delegates that read it)", "constant",
         NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char why[512];
        snprintf(why, sizeof why, "%s", cases[i].why);
        tosa_spec sp = bt_spec(cases[i].spec);
        const char *cat = partition_categorise(&sp, &g->nodes[cases[i].node], why, sizeof why);
        if (strcmp(cat, cases[i].category) != 0)
            fail_msg("'%s': category '%s', want '%s'", cases[i].why, cat, cases[i].category);
        const char *want = cases[i].reason ? cases[i].reason : cases[i].why;
        if (strcmp(why, want) != 0)
            fail_msg("'%s': reason '%s', want '%s'", cases[i].why, why, want);
    }
    ir_graph_free(g);
}

int main(void)
{
    tosac_error_clear(&E);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decomposed_div_on_cpu_is_reported_as_div),
        cmocka_unit_test(test_decomposed_div_delegated),
        cmocka_unit_test(test_sum_chain_attributed),
        cmocka_unit_test(test_categories_in_report),
        cmocka_unit_test(test_truthful_reasons),
        cmocka_unit_test(test_nms_not_in_tosa),
        cmocka_unit_test(test_int16_conv_reason),
        cmocka_unit_test(test_categorise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
