/* Header-only helpers for the lowering-rule tests (test_lower_<family>.c): build a tiny IR
 * graph, lower it under a spec, list the emitted operators, and run the result with the
 * interpreter against literal expected values. */
#ifndef TOSAC_LOWER_TESTUTIL_H
#define TOSAC_LOWER_TESTUTIL_H

#include "backend_testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lower/lower.h"
#include "tosac/interp.h"
#include "tosac/ir.h"

#define lt_input bt_input

#define lt_tensor bt_tensor

#define lt_const bt_const

static inline void lt_quant(ir_graph *g, int t, float scale, int64_t zp)
{
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(ir_tensor_set_quant(g, t, &scale, &zp, 1, -1, g->tensors[t].dtype, &err),
                     TOSAC_OK);
}

/* Adds node op(ins) -> outs; the first output becomes a graph output. Returns the node. */
static inline int lt_node(ir_graph *g, const char *op, const int *ins, int n_in,
                          const int *outs, int n_out)
{
    tosac_error err;
    tosac_error_clear(&err);
    int k = ir_graph_add_node(g, op, NULL, op, ins, n_in, outs, n_out, &err);
    assert_true(k >= 0);
    assert_int_equal(ir_graph_mark_output(g, outs[0], &err), TOSAC_OK);
    return k;
}

/* Lowers every node of g, in order, under spec; NULL (err set) when that fails. */
static inline tosa_graph *lt_lower(const char *spec, const ir_graph *g, tosac_error *err)
{
    tosa_spec sp = bt_spec(spec);
    int nodes[16];
    assert_true(g->n_nodes <= 16);
    for (int i = 0; i < g->n_nodes; i++)
        nodes[i] = i;
    tosa_graph *tg = NULL;
    tosac_error_clear(err);
    lower_subgraph(&sp, g, nodes, g->n_nodes, g->inputs, g->n_inputs, g->outputs, g->n_outputs,
                   &tg, err);
    return tg;
}

/* Same, asserting success (the failure message is printed). */
static inline tosa_graph *lt_lower_ok(const char *spec, const ir_graph *g)
{
    tosac_error err;
    tosa_graph *tg = lt_lower(spec, g, &err);
    if (!tg)
        fprintf(stderr, "lowering under %s failed: %s\n", spec, err.msg);
    assert_non_null(tg);
    return tg;
}

/* The non-CONST operators of the main block, space separated ("RESCALE REDUCE_SUM ..."). */
static inline const char *lt_ops(const tosa_graph *tg)
{
    static char buf[1024];
    const tosa_block *b = tosa_graph_main_block(tg);
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < b->n_ops; i++) {
        tosa_op op = b->ops[i].op;
        if (op == TOSA_OP_CONST || op == TOSA_OP_CONST_SHAPE)
            continue;
        used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s", used ? " " : "",
                                 tosa_op_name(op));
    }
    return buf;
}

/* The first operator of kind op in the main block (the test fails if there is none). */
static inline const tosa_operator *lt_find_op(const tosa_graph *tg, tosa_op op, int nth)
{
    const tosa_block *b = tosa_graph_main_block(tg);
    for (int i = 0; i < b->n_ops; i++)
        if (b->ops[i].op == op && nth-- == 0)
            return &b->ops[i];
    fail_msg("no %s operator", tosa_op_name(op));
    return NULL;
}

static inline tosac_dtype lt_out_dtype(const tosa_graph *tg, const tosa_operator *o)
{
    return tosa_graph_main_block(tg)->tensors[o->outputs[0]].dtype;
}

/* Trial lowering of node under spec: "" when legal, else the reason. */
static inline const char *lt_trial(const char *spec, const ir_graph *g, int node)
{
    static char why[256];
    tosa_spec sp = bt_spec(spec);
    if (lower_trial_node(&sp, g, node, why, sizeof why))
        return "";
    return why;
}

/* A host tensor borrowing data (not freed). */
#define lt_host bt_host

/* Runs tg on the inputs; asserts success and that output 0 has the expected shape. */
static inline void lt_run(const tosa_graph *tg, const tosac_tensor *ins, int n_in,
                          tosac_tensor *out)
{
    tosac_error err;
    tosac_error_clear(&err);
    tosac_code rc = tosa_interp_run(tg, ins, n_in, out, 1, &err);
    if (rc)
        fprintf(stderr, "interpreter: %s\n", err.msg);
    assert_int_equal(rc, TOSAC_OK);
}

static inline void lt_expect_f32(const tosac_tensor *t, const float *want, int n, double atol,
                                 double rtol)
{
    assert_int_equal(t->dtype, TOSAC_DT_F32);
    assert_int_equal(tosac_tensor_numel(t), n);
    const float *got = t->data;
    for (int i = 0; i < n; i++) {
        bool ok = isnan(want[i]) ? isnan(got[i])
                                 : fabs((double)got[i] - want[i]) <= atol + rtol * fabs(want[i]);
        if (!ok)
            fail_msg("element %d: got %.9g, want %.9g", i, got[i], want[i]);
    }
}

/* Exact comparison of any dtype's bytes. */
static inline void lt_expect_bytes(const tosac_tensor *t, tosac_dtype dt, const void *want, int n)
{
    assert_int_equal(t->dtype, dt);
    assert_int_equal(tosac_tensor_numel(t), n);
    assert_memory_equal(t->data, want, (size_t)n * tosac_dtype_size(dt));
}

/* Quantized output vs the float reference: atol = 1e-3 + qtol * scale (qtol 1), rtol 1e-3. */
static inline void lt_expect_dequant(const tosac_tensor *t, float scale, int64_t zp,
                                     const float *ref, int n)
{
    assert_int_equal(tosac_tensor_numel(t), n);
    for (int i = 0; i < n; i++) {
        int64_t q = t->dtype == TOSAC_DT_I8 ? ((const int8_t *)t->data)[i]
                                            : ((const int16_t *)t->data)[i];
        double got = (double)scale * (double)(q - zp);
        if (fabs(got - ref[i]) > 1e-3 + scale + 1e-3 * fabs(ref[i]))
            fail_msg("element %d: got %g (q %lld), want %g", i, got, (long long)q, ref[i]);
    }
}

#endif
