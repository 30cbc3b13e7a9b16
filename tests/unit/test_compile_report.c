/* The compile report: every model node with its placement, nodes created or replaced by the
 * passes attributed to the model node they came from (so a decomposed Div whose Mul stays on
 * the CPU is reported as a CPU Div, never as "folded"), and CPU reasons sorted into the
 * issue's categories. */
#include "backend_testutil.h"

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
    assert_string_equal(field(d, "category"), "type not legal");
    assert_non_null(strstr(field(d, "reason"), "needs PRO-FP"));
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
 * named after it (here nothing) exists; an unsupported node gets "operator not in the
 * spec", an unnamed node a generated unique name. */
static void test_categories_in_report(void **state)
{
    (void)state;
    ir_model *m = new_model(13);
    ir_graph *g = m->graph;
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 2, shp, &E);
    int t1 = tensor(g, "t1"), t2 = tensor(g, "t2");
    node(g, "Relu", "", &x, 1, t1);
    node(g, "Erf", "", &t1, 1, t2); /* float Erf: TOSA ERF under FP, a type refusal under INT */
    int ins[2] = {t2, t2};
    int t3 = tensor(g, "t3");
    node(g, "Mod", "mod", ins, 2, t3); /* no TOSA lowering */
    assert_int_equal(ir_graph_mark_output(g, t3, &E), TOSAC_OK);
    tosac_json *rep = report_of(m, "TOSA-1.0+FP");
    assert_string_equal(field(entry(rep, "Relu_0"), "placement"), "delegate");
    assert_string_equal(field(entry(rep, "Erf_1"), "placement"), "delegate");
    const tosac_json *mod = entry(rep, "mod");
    assert_string_equal(field(mod, "placement"), "cpu");
    assert_string_equal(field(mod, "category"), "operator not in the spec");
    assert_string_equal(field(mod, "reason"), "no TOSA lowering for Mod");
    assert_null(tosac_json_get(mod, "parts"));
    tosac_json_free(rep);
}

/* partition_categorise on the reasons the trial lowering gives. */
static void test_categorise(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 2, shp, &E);
    int y = tensor(g, "y");
    node(g, "Mul", "mul", &x, 1, y);
    node(g, "DequantizeLinear", "dq", &x, 1, y);
    node(g, "Constant", "k", NULL, 0, y);
    const ir_node *mul = &g->nodes[0], *dq = &g->nodes[1], *k = &g->nodes[2];
    static const struct {
        int node;
        const char *why, *category;
    } cases[] = {
        {0, "U55 restriction: MATMUL is not supported on Ethos-U55", "U55 restriction"},
        {0, "no TOSA lowering for Mod", "operator not in the spec"},
        {0, "FFT2D is not an operator of TOSA 1.0", "operator not in the spec"},
        {0, "MUL: in_t=f32 out_t=f32 needs PRO-FP", "type not legal"},
        {0, "RESCALE: in_t=i48 needs EXT-INT16", "type not legal"},
        {0, "SUB: no form for in_out_t=i64", "int64 not kept"},
        {0, "GATHER: no form for index_t=i32 in_out_t=i64", "int64 not kept"},
        {0, "ARGMAX: in_t=f32 out_t=i64 needs PRO-FP & EXT-INT64", "type not legal"},
        {0, "Conv with auto_pad SAME_LOWER", "case not handled by the lowering"},
        {1, "CAST: in_t=i8 out_t=f32 needs PRO-FP", "boundary rule"},
        {1, "RESCALE: in_t=i48 needs EXT-INT16", "type not legal"},
        {2, "constant (folded into the delegates that read it)", "constant"},
    };
    const ir_node *nodes[3] = {mul, dq, k};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char why[512];
        snprintf(why, sizeof why, "%s", cases[i].why);
        const char *cat = partition_categorise(nodes[cases[i].node], why, sizeof why);
        if (strcmp(cat, cases[i].category) != 0)
            fail_msg("'%s': category '%s', want '%s'", cases[i].why, cat, cases[i].category);
    }
    /* the boundary rule explains itself and keeps the detail */
    char why[512] = "CAST: in_t=i8 out_t=f32 needs PRO-FP";
    partition_categorise(dq, why, sizeof why);
    assert_non_null(strstr(why, "boundaries integer"));
    assert_non_null(strstr(why, "DequantizeLinear"));
    assert_non_null(strstr(why, "(CAST: in_t=i8 out_t=f32 needs PRO-FP)"));
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
        cmocka_unit_test(test_categorise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
