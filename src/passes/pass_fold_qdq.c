/* Fold Q/DQ pairs into quantization parameters.
 *
 *   x_q -DQ-> x_f -Op-> y_f -Q-> y_q          becomes   x_q -Op-> y_q
 *   x_q -DQ-> x_f -Op-> t_f -Relu/Clip-> y_f -Q-> y_q   becomes   x_q -Op-> t_q -Relu/Clip-> y_q
 *
 * An op folds when every float input comes from a DequantizeLinear of a quantized tensor and
 * every output's only reader is a QuantizeLinear (directly, or through one Relu/Clip whose
 * only reader is a QuantizeLinear; t_q then takes that Q's type and parameters, as a fused
 * activation would), or, for ArgMax/ArgMin and comparisons, is the index or bool it is.
 * Non-float inputs (shapes, indices) and float constant parameters (Clip bounds, Resize
 * scales, a Conv/Gemm bias) stay as they are. DequantizeLinear
 * nodes nobody reads any more are dropped; the Q at a graph input and the DQ at a graph output
 * remain (CPU operators under INT). The importer has recorded every Q/DQ's constant scale and
 * zero point on its quantized tensor (ir_tensor.quant). Which operators never fold, which are
 * the fusable activations, which float inputs are parameters and which results are indices
 * come from the traits table (src/onnxop/onnxop_traits.c). */
#include <string.h>

#include "onnxop/onnxop_traits.h"
#include "passes/passes.h"

static bool is_op(const ir_node *n, const char *op) { return !n->dead && ir_node_is(n, op); }

/* The quantized tensor behind float input t: DQ(x_q) -> t, or -1. */
static int dq_source(const ir_graph *g, const ir_uses *u, int t)
{
    int p = ir_uses_producer(u, t);
    if (p < 0 || !is_op(&g->nodes[p], "DequantizeLinear") || g->nodes[p].n_inputs < 1)
        return -1;
    int q = g->nodes[p].inputs[0];
    const ir_tensor *qt = &g->tensors[q];
    return q >= 0 && qt->quant && tosac_dtype_is_int(qt->dtype) && qt->quant->block_size == 0
               ? q : -1;
}

/* The sole reader of t (a node index), or -1 if t has another reader or is a graph output. */
static int sole_reader(const ir_graph *g, const ir_uses *u, int t)
{
    int who[2];
    if (ir_graph_is_output(g, t) || ir_uses_consumers(u, t, who, 2) != 1)
        return -1;
    return who[0];
}

typedef struct out_plan {
    int q_node;     /* the QuantizeLinear to absorb */
    int act_node;   /* Relu/Clip between the op and the Q, or -1 */
} out_plan;

static bool plan_output(const ir_graph *g, const ir_uses *u, int t, out_plan *p)
{
    p->act_node = -1;
    int r = sole_reader(g, u, t), feeds = t;
    if (r < 0)
        return false;
    const ir_node *rn = &g->nodes[r];
    if (!rn->dead && onnxop_has(rn, ONNXOP_FUSABLE_ACT) && rn->inputs[0] == t &&
        rn->n_outputs == 1) {
        p->act_node = r;
        feeds = rn->outputs[0];
        r = sole_reader(g, u, feeds);
        if (r < 0)
            return false;
        rn = &g->nodes[r];
    }
    if (!is_op(rn, "QuantizeLinear") || rn->inputs[0] != feeds || rn->n_outputs < 1)
        return false;
    const ir_tensor *qt = &g->tensors[rn->outputs[0]];
    if (!qt->quant || qt->quant->axis >= 0 || qt->quant->block_size)
        return false; /* activations are quantized per tensor */
    p->q_node = r;
    return true;
}

static bool foldable_op(const ir_node *n)
{
    if (n->dead || strcmp(n->domain, IR_DOMAIN_ONNX) != 0 || ir_node_subgraph(n, 0))
        return false;
    return !onnxop_has(n, ONNXOP_NO_QDQ_FOLD) && n->n_outputs >= 1;
}

/* Float inputs that are parameters, not data: a constant there stays float when the op folds
 * (Clip's bounds are read in the float domain by the quantized rule; Resize's roi and
 * scales are coordinates; a float Conv/ConvTranspose/Gemm bias, as a16w8 QDQ models keep it
 * since ONNX has no 48-bit DequantizeLinear, is quantized by the lowering at the
 * accumulator's scale). */
static bool float_param_slot(const ir_graph *g, const ir_uses *u, const ir_node *n, int slot)
{
    tosac_tensor cv;
    int t = n->inputs[slot];
    if (!ir_graph_const_value_from(g, t, ir_uses_producer(u, t), &cv))
        return false;
    const onnxop_traits *tr = onnxop_traits_of(n);
    return tr && onnxop_slot_in(tr->float_params, slot);
}

/* Operators whose result is an index or a truth value, not a quantizable number: they fold on
 * their dequantized inputs alone (the order of DQ(x) is the order of x, scale > 0; the
 * comparison rules bring both sides to a common scale). */
static bool non_numeric_result(const ir_graph *g, const ir_node *n, int o)
{
    int t = n->outputs[o];
    return t >= 0 && !tosac_dtype_is_float(g->tensors[t].dtype) &&
           onnxop_has(n, ONNXOP_INDEX_RESULT);
}

/* Folds node ni if it fits the pattern; *done reports it. */
static tosac_code fold_node(ir_graph *g, const ir_uses *u, int ni, bool *done,
                            tosac_error *err)
{
    *done = false;
    ir_node *n = &g->nodes[ni];
    int new_in[64];
    out_plan plans[16];
    if (n->n_inputs > 64 || n->n_outputs > 16)
        return TOSAC_OK;
    bool any_q = false;
    for (int i = 0; i < n->n_inputs; i++) {
        int t = n->inputs[i];
        new_in[i] = t;
        if (t < 0 || !tosac_dtype_is_float(g->tensors[t].dtype))
            continue;
        int q = dq_source(g, u, t);
        if (q < 0 && float_param_slot(g, u, n, i))
            continue;
        if (q < 0)
            return TOSAC_OK; /* a float input that is not a dequantized value */
        new_in[i] = q;
        any_q = true;
    }
    if (!any_q)
        return TOSAC_OK;
    for (int o = 0; o < n->n_outputs; o++) {
        int t = n->outputs[o];
        plans[o].q_node = -1;
        if (non_numeric_result(g, n, o))
            continue;
        if (t < 0 || !tosac_dtype_is_float(g->tensors[t].dtype) || !plan_output(g, u, t, &plans[o]))
            return TOSAC_OK;
    }
    for (int i = 0; i < n->n_inputs; i++)
        if (new_in[i] != n->inputs[i] && ir_node_set_input(g, ni, i, new_in[i], err))
            return err->code;
    for (int o = 0; o < n->n_outputs; o++) {
        n = &g->nodes[ni];
        int t = n->outputs[o];
        if (plans[o].q_node < 0)
            continue; /* an index / bool result stays as it is */
        ir_node *q = &g->nodes[plans[o].q_node];
        int yq = q->outputs[0];
        if (plans[o].act_node < 0) {
            n->outputs[o] = yq;
        } else {
            /* t becomes the quantized input of the activation, typed like the Q output */
            const ir_quant *qq = g->tensors[yq].quant;
            g->tensors[t].dtype = g->tensors[yq].dtype;
            if (ir_tensor_set_quant(g, t, qq->scale, qq->zero_point, qq->n, qq->axis,
                                    qq->zp_dtype, err))
                return err->code;
            g->nodes[plans[o].act_node].outputs[0] = yq;
        }
        ir_node_kill(g, plans[o].q_node);
    }
    *done = true;
    return TOSAC_OK;
}

/* u with u->start[t] turned into t's reader count (ir_graph_consumers(g, t, NULL, 0)). */
static tosac_code live_reads(const ir_graph *g, ir_uses *u, tosac_error *err)
{
    tosac_code rc = ir_uses_build(g, u, err);
    for (int t = 0; !rc && t < u->n_tensors; t++)
        u->start[t] = u->start[t + 1] - u->start[t];
    return rc;
}

tosac_code pass_fold_qdq(ir_graph *g, const pass_ctx *c, tosac_error *err)
{
    (void)c;
    tosac_code trc = ir_graph_toposort(g, err); /* producers fold before their readers look */
    if (trc)
        return trc;
    /* Producers and readers from one snapshot taken in topological order (asking the graph
     * per node was quadratic). A fold changes them only where no later question looks: the
     * folded node reads x_q instead of x_f (x_f's producer is a DQ, which never folds; x_q
     * comes before the node), writes y_q (its absorbed Q now dead, which a producer question
     * skips: neither it nor the node is a DQ or a Constant), and its outputs lose the Q as
     * reader (the node's own outputs, asked only while it folds). */
    ir_uses u;
    tosac_code rc = ir_uses_build(g, &u, err);
    int n_nodes = g->n_nodes;
    for (int ni = 0; !rc && ni < n_nodes; ni++) {
        if (!foldable_op(&g->nodes[ni]))
            continue;
        bool done;
        rc = fold_node(g, &u, ni, &done, err);
    }
    ir_uses_free(&u);
    if (rc)
        return rc;
    /* DequantizeLinear nodes whose value nobody reads any more: reader counts taken once
     * and kept as nodes die (taken again after one with a body, whose captures count too) */
    rc = live_reads(g, &u, err);
    for (int ni = 0; !rc && ni < g->n_nodes; ni++) {
        ir_node *n = &g->nodes[ni];
        int y = n->n_outputs > 0 ? n->outputs[0] : -1;
        if (!is_op(n, "DequantizeLinear") || n->dead || y < 0 || ir_graph_is_output(g, y) ||
            (y < u.n_tensors && u.start[y] != 0))
            continue;
        ir_node_kill(g, ni);
        for (int k = 0; k < n->n_inputs; k++)
            if (n->inputs[k] >= 0 && n->inputs[k] < u.n_tensors)
                u.start[n->inputs[k]]--;
        if (ir_node_subgraph(n, 0)) {
            ir_uses_free(&u);
            rc = live_reads(g, &u, err);
        }
    }
    ir_uses_free(&u);
    if (rc)
        return rc;
    ir_graph_compact(g);
    return TOSAC_OK;
}
