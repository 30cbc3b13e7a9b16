/* Helpers for the pass tests (tests/unit/passes/test_pass_*.c): building small IR graphs, running a
 * pass, running a graph on the CPU executor. Header-only. */
#ifndef TOSAC_PASSES_TESTUTIL_H
#define TOSAC_PASSES_TESTUTIL_H

#include "backend_testutil.h"

#include <string.h>

#include "cpu/cpu_exec.h"
#include "passes/passes.h"
#include "tosac/ir.h"

#define pt_tensor bt_tensor

#define pt_input bt_input

#define pt_const bt_const

static inline void pt_quant(ir_graph *g, int t, float scale, int64_t zp, tosac_dtype zdt)
{
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(ir_tensor_set_quant(g, t, &scale, &zp, 1, -1, zdt, &err), TOSAC_OK);
}

static inline int pt_node(ir_graph *g, const char *op, const int *in, int n_in, const int *out,
                          int n_out)
{
    tosac_error err;
    tosac_error_clear(&err);
    int k = ir_graph_add_node(g, op, NULL, op, in, n_in, out, n_out, &err);
    assert_true(k >= 0);
    return k;
}

static inline void pt_output(ir_graph *g, int t)
{
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(ir_graph_mark_output(g, t, &err), TOSAC_OK);
}

static inline int pt_count(const ir_graph *g, const char *op)
{
    int n = 0;
    for (int i = 0; i < g->n_nodes; i++)
        n += !g->nodes[i].dead && ir_node_is(&g->nodes[i], op);
    return n;
}

static inline int pt_find(const ir_graph *g, const char *op)
{
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i].dead && ir_node_is(&g->nodes[i], op))
            return i;
    return -1;
}

/* Runs one pass under spec (opset 13); the graph must verify afterwards. */
static inline void pt_run(ir_graph *g, pass_fn fn, const char *spec)
{
    tosac_error err;
    tosac_error_clear(&err);
    tosa_spec sp = bt_spec(spec);
    pass_ctx c = {&sp, 13};
    tosac_code rc = fn(g, &c, &err);
    if (rc)
        fprintf(stderr, "pass failed: %s\n", err.msg);
    assert_int_equal(rc, TOSAC_OK);
    rc = ir_graph_verify(g, &err);
    if (rc)
        fprintf(stderr, "verify failed: %s\n", err.msg);
    assert_int_equal(rc, TOSAC_OK);
}

/* Runs g (a model's graph: the model is borrowed) on the CPU executor. */
static inline void pt_cpu(ir_graph *g, const tosac_tensor *in, int n_in, tosac_tensor *out,
                          int n_out)
{
    tosac_error err;
    tosac_error_clear(&err);
    cpu_plan *p = NULL;
    tosac_code rc = cpu_plan_create(g, 13, &p, &err);
    if (!rc)
        rc = cpu_plan_run(p, in, n_in, out, n_out, &err);
    if (rc)
        fprintf(stderr, "cpu run failed: %s\n", err.msg);
    assert_int_equal(rc, TOSAC_OK);
    cpu_plan_free(p);
}

#define pt_host bt_host

#endif
