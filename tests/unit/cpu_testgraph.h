/* Graphs the CPU executor tests share (test_cpu_exec.c, test_cpu_env.c). Header-only. */
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

#endif
