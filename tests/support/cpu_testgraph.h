/* Graphs the CPU executor and runtime tests share (test_cpu_exec.c, test_cpu_env.c,
 * test_compile_subgraphs.c, test_runtime_api.c). Header-only. */
#ifndef TOSAC_CPU_TESTGRAPH_H
#define TOSAC_CPU_TESTGRAPH_H

#include "passes_testutil.h"

/* If(c) with inputs x: f32[n] and c: bool; then = Neg(x), else = Abs(x), both branches
 * reading the outer x through a capture. */
static inline ir_model *ct_if_model(int64_t n)
{
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t s[1] = {n};
    assert_true(ir_graph_add_input(g, "x", TOSAC_DT_F32, 1, s, &err) >= 0);
    int cnd = ir_graph_add_input(g, "c", TOSAC_DT_BOOL, 0, NULL, &err);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 1, s, &err);
    int k = pt_node(g, "If", &cnd, 1, &y, 1);
    const char *names[2] = {"then_branch", "else_branch"}, *ops[2] = {"Neg", "Abs"};
    for (int b = 0; b < 2; b++) {
        ir_graph *sub = ir_graph_new(names[b], g);
        int cx = ir_graph_resolve_tensor(sub, "x", &err);
        assert_true(cx >= 0);
        int o = ir_graph_add_tensor(sub, "o", TOSAC_DT_F32, 1, s, &err);
        pt_node(sub, ops[b], &cx, 1, &o, 1);
        ir_graph_mark_output(sub, o, &err);
        assert_int_equal(ir_node_set_graph(g, k, names[b], sub, &err), TOSAC_OK);
    }
    ir_graph_mark_output(g, y, &err);
    return m;
}

/* The body of Loop node k of g carrying a: f32[n]: (i, c_in, a) -> (c_out = Identity(c_in),
 * a_out = Add(a, b)), b being a itself (addend NULL) or the outer tensor named addend, read
 * through a capture. */
static inline void ct_loop_body(ir_graph *g, int k, int64_t n, const char *addend)
{
    tosac_error err;
    tosac_error_clear(&err);
    int64_t s[1] = {n};
    ir_graph *body = ir_graph_new("body", g);
    assert_true(ir_graph_add_input(body, "i", TOSAC_DT_I64, 0, NULL, &err) >= 0);
    int bc = ir_graph_add_input(body, "c_in", TOSAC_DT_BOOL, 0, NULL, &err);
    int ba = ir_graph_add_input(body, "a", TOSAC_DT_F32, 1, s, &err);
    int bb = addend ? ir_graph_resolve_tensor(body, addend, &err) : ba;
    int co = ir_graph_add_tensor(body, "c_out", TOSAC_DT_BOOL, 0, NULL, &err);
    int ao = ir_graph_add_tensor(body, "a_out", TOSAC_DT_F32, 1, s, &err);
    int add_in[2] = {ba, bb};
    assert_true(bc >= 0 && ba >= 0 && bb >= 0 && co >= 0 && ao >= 0);
    pt_node(body, "Identity", &bc, 1, &co, 1);
    pt_node(body, "Add", add_in, 2, &ao, 1);
    assert_int_equal(ir_graph_mark_output(body, co, &err), TOSAC_OK);
    assert_int_equal(ir_graph_mark_output(body, ao, &err), TOSAC_OK);
    assert_int_equal(ir_node_set_graph(g, k, "body", body, &err), TOSAC_OK);
}

#endif
