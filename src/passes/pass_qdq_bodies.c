/* Moves the Q/DQ at the edges of If/Loop bodies across them, so COND_IF / WHILE_LOOP edges
 * are integers (pass_fold_qdq then folds the bodies' nodes like any others):
 *
 *   outer: x_q -DQ-> x_f, captured by a body     becomes   the body captures x_q and does
 *                                                         the DQ itself
 *   If: both branches give DQ(y_q) of the parameters of the one Q reading the If's output
 *                                                   becomes   the If gives y_q (that Q dropped)
 *   Loop carried value k: initial value DQ(a_q), the body's next value DQ(n_q), the Loop's
 *     output read by one Q, all of one type and parameters
 *                                                   becomes   the Loop carries the integers;
 *                                                   the body dequantizes its carried input
 *
 * Every value keeps its meaning (the same DQ runs, only on the other side of the edge), so a
 * body left on the CPU computes what it did. tosac's quantizer gives the edges one set of
 * parameters (quant_body.c); a hand-written QDQ model moves where its parameters agree.
 * The pipeline runs this pass on the bodies too (parents first), so nested bodies follow. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/pass_util.h"
#include "passes/passes.h"

/* The integer input of a DequantizeLinear producing t (its parameters recorded on it,
 * ir_tensor.quant, not blocked), or -1. */
static int dq_input(const ir_graph *g, int t)
{
    int p = t >= 0 ? ir_graph_producer(g, t) : -1;
    if (p < 0 || g->nodes[p].dead || !ir_node_is(&g->nodes[p], "DequantizeLinear") ||
        g->nodes[p].n_inputs < 1)
        return -1;
    int q = g->nodes[p].inputs[0];
    const ir_tensor *qt = q >= 0 ? &g->tensors[q] : NULL;
    return qt && qt->quant && qt->quant->block_size == 0 && tosac_dtype_is_int(qt->dtype) ? q
                                                                                         : -1;
}

static bool same_quant(const ir_tensor *a, const ir_tensor *b)
{
    const ir_quant *p = a->quant, *q = b->quant;
    if (a->dtype != b->dtype || !p || !q || p->n != q->n || p->axis != q->axis ||
        p->zp_dtype != q->zp_dtype || p->block_size != q->block_size)
        return false;
    for (int i = 0; i < p->n; i++)
        if (p->scale[i] != q->scale[i] || p->zero_point[i] != q->zero_point[i])
            return false;
    return true;
}

/* DequantizeLinear(xq) -> y in g, the scale and zero point constants made from xq's recorded
 * parameters. */
static tosac_code add_dq(ir_graph *g, int xq, int y, tosac_error *err)
{
    const ir_quant *q = g->tensors[xq].quant;
    char base[512], name[600];
    snprintf(base, sizeof base, "%s", g->tensors[xq].name);
    int n = q->n, srank = q->axis >= 0 ? 1 : 0;
    tosac_dtype zdt = q->zp_dtype;
    size_t esz = tosac_dtype_size(zdt);
    unsigned char *zbytes = calloc((size_t)n + 1, esz ? esz : 1);
    if (!zbytes)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    for (int i = 0; i < n; i++) {
        int64_t v = q->zero_point[i];
        if (esz == 1)
            zbytes[i] = (unsigned char)(int8_t)v;
        else if (esz == 2)
            ((int16_t *)zbytes)[i] = (int16_t)v;
        else if (esz == 4)
            ((int32_t *)zbytes)[i] = (int32_t)v;
        else
            ((int64_t *)zbytes)[i] = v;
    }
    int s = pass_add_const(g, base, "_scale", TOSAC_DT_F32, srank, n, q->scale, err);
    int z = s < 0 ? -1 : pass_add_const(g, base, "_zero_point", zdt, srank, n, zbytes, err);
    free(zbytes);
    if (z < 0)
        return err->code ? err->code : TOSAC_ERR_INTERNAL;
    int ins[3] = {xq, s, z};
    snprintf(name, sizeof name, "%s_DequantizeLinear", base);
    int nd = ir_graph_add_node(g, "DequantizeLinear", NULL, name, ins, 3, &y, 1, err);
    if (nd < 0 || (q->axis >= 0 && ir_node_set_int(g, nd, "axis", q->axis, err)))
        return err->code ? err->code : TOSAC_ERR_INTERNAL;
    return TOSAC_OK;
}

/* Body sub's captures of DQ outputs of g capture the integers instead. */
static tosac_code sink_captures(ir_graph *g, ir_graph *sub, bool *changed, tosac_error *err)
{
    int nt = sub->n_tensors;
    for (int c = 0; c < nt; c++) {
        int o = sub->tensors[c].outer_id, xq = o >= 0 ? dq_input(g, o) : -1;
        if (xq < 0)
            continue;
        int cq = ir_graph_resolve_tensor(sub, g->tensors[xq].name, err);
        if (cq < 0 || sub->tensors[cq].outer_id != xq)
            continue; /* a body tensor of that name hides it: leave this capture */
        const ir_quant *q = g->tensors[xq].quant;
        if (!sub->tensors[cq].quant &&
            ir_tensor_set_quant(sub, cq, q->scale, q->zero_point, q->n, q->axis, q->zp_dtype,
                                err))
            return err->code;
        int y = pass_add_like(sub, c, "_dequantized", TOSAC_DT_F32, err);
        if (y < 0)
            return err->code;
        ir_graph_replace_uses(sub, c, y);
        tosac_code rc = add_dq(sub, cq, y, err);
        if (rc)
            return rc;
        *changed = true;
    }
    return TOSAC_OK;
}

/* The QuantizeLinear that alone reads t, its output into *yq; -1 when none. */
static int sole_q(const ir_graph *g, int t, int *yq)
{
    int r = t >= 0 ? pass_sole_reader(g, t) : -1;
    if (r < 0 || !ir_node_is(&g->nodes[r], "QuantizeLinear") || g->nodes[r].inputs[0] != t ||
        g->nodes[r].n_outputs < 1)
        return -1;
    *yq = g->nodes[r].outputs[0];
    const ir_tensor *qt = &g->tensors[*yq];
    return qt->quant && qt->quant->block_size == 0 ? r : -1;
}

static tosac_code hoist_if_outputs(ir_graph *g, int ni)
{
    ir_graph *br[2] = {ir_node_subgraph(&g->nodes[ni], 0), ir_node_subgraph(&g->nodes[ni], 1)};
    if (!br[0] || !br[1])
        return TOSAC_OK;
    for (int o = 0; o < g->nodes[ni].n_outputs; o++) {
        int yq, qn = sole_q(g, g->nodes[ni].outputs[o], &yq), x[2] = {-1, -1};
        for (int b = 0; qn >= 0 && b < 2; b++)
            if (o >= br[b]->n_outputs || (x[b] = dq_input(br[b], br[b]->outputs[o])) < 0 ||
                !same_quant(&br[b]->tensors[x[b]], &g->tensors[yq]))
                qn = -1;
        if (qn < 0)
            continue;
        br[0]->outputs[o] = x[0];
        br[1]->outputs[o] = x[1];
        g->nodes[ni].outputs[o] = yq;
        ir_node_kill(g, qn);
    }
    return TOSAC_OK;
}

static tosac_code carry_loop_values(ir_graph *g, int ni, bool *changed, tosac_error *err)
{
    ir_graph *body = ir_node_subgraph(&g->nodes[ni], 0);
    int nv = g->nodes[ni].n_inputs - 2;
    if (!body || nv < 1 || body->n_inputs != 2 + nv || body->n_outputs < 1 + nv ||
        g->nodes[ni].n_outputs < nv)
        return TOSAC_OK;
    for (int k = 0; k < nv; k++) {
        const ir_node *n = &g->nodes[ni];
        int yq, qn = sole_q(g, n->outputs[k], &yq);
        int a = qn < 0 ? -1 : dq_input(g, n->inputs[2 + k]);
        int nx = a < 0 ? -1 : dq_input(body, body->outputs[1 + k]);
        int vin = body->inputs[2 + k];
        if (nx < 0 || !same_quant(&g->tensors[a], &g->tensors[yq]) ||
            !same_quant(&body->tensors[nx], &g->tensors[yq]) ||
            body->tensors[vin].dtype != TOSAC_DT_F32 || ir_graph_is_output(body, vin))
            continue;
        int vq = pass_add_like(body, vin, "_quantized", g->tensors[yq].dtype, err);
        const ir_quant *q = g->tensors[yq].quant;
        if (vq < 0 || ir_tensor_set_quant(body, vq, q->scale, q->zero_point, q->n, q->axis,
                                          q->zp_dtype, err))
            return err->code;
        body->inputs[2 + k] = vq;
        tosac_code rc = add_dq(body, vq, vin, err);
        if (rc || (rc = ir_node_set_input(g, ni, 2 + k, a, err)))
            return rc;
        body->outputs[1 + k] = nx;
        g->nodes[ni].outputs[k] = yq;
        ir_node_kill(g, qn);
        *changed = true;
    }
    return TOSAC_OK;
}

tosac_code pass_qdq_bodies(ir_graph *g, const pass_ctx *c, tosac_error *err)
{
    (void)c;
    tosac_code rc = TOSAC_OK;
    int n_nodes = g->n_nodes;
    for (int i = 0; i < n_nodes && !rc; i++) {
        const ir_node *n = &g->nodes[i];
        bool loop = ir_node_is(n, "Loop");
        if (n->dead || !(loop || ir_node_is(n, "If")))
            continue;
        ir_graph *sub;
        for (int k = 0; !rc && (sub = ir_node_subgraph(&g->nodes[i], k)); k++) {
            bool changed = false;
            rc = sink_captures(g, sub, &changed, err);
            if (!rc && loop)
                rc = carry_loop_values(g, i, &changed, err);
            if (!rc && changed) /* the float captures nobody reads any more */
                rc = ir_graph_prune_tensors(sub, NULL, err);
        }
        if (!rc && !loop)
            rc = hoist_if_outputs(g, i);
    }
    ir_graph_compact(g);
    return rc;
}
