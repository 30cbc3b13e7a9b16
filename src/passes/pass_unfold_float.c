/* TOSA-1.0+INT+FP mixed graphs: a folded (quantized) node whose integer form does not lower
 * (quantized LayerNormalization, LogSoftmax, ...) gets its float form back, DQ -> op -> Q,
 * before partitioning. With PRO-FP the DQ and Q lower inside the delegate (lower_quant.c) and
 * the op runs in float there, so the quantized islands around it stay one delegate instead
 * of being cut by a CPU node. Without PRO-FP nothing changes (the node stays on the CPU and
 * pass_unfold_cpu restores its float form after partitioning). Without PRO-INT (TOSA-1.0+FP
 * compiling a QDQ model) the DQ of constant weights and biases is computed at compile time,
 * so the unfolded Conv/Gemm has float constant weights and delegates; the activations' Q/DQ
 * stay on the CPU (their integer side needs PRO-INT). */
#include <stdlib.h>

#include "lower/lower.h"
#include "passes/passes.h"

static bool is_qdq(const ir_node *n)
{
    return ir_node_is(n, "QuantizeLinear") || ir_node_is(n, "DequantizeLinear");
}

static bool touches_quantized(const ir_graph *g, const ir_node *n)
{
    for (int pass = 0; pass < 2; pass++) {
        const int *ts = pass ? n->outputs : n->inputs;
        int cnt = pass ? n->n_outputs : n->n_inputs;
        for (int i = 0; i < cnt; i++) {
            int t = ts[i];
            if (t >= 0 && !g->tensors[t].data && g->tensors[t].quant &&
                tosac_dtype_is_int(g->tensors[t].dtype))
                return true;
        }
    }
    return false;
}

tosac_code pass_unfold_float(ir_graph *g, const pass_ctx *c, tosac_error *err)
{
    if (!tosa_spec_supports_float(c->spec))
        return TOSAC_OK;
    unsigned char *mask = calloc((size_t)g->n_nodes + 1, 1);
    if (!mask)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    bool any = false;
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        char why[256];
        if (n->dead || is_qdq(n) || ir_node_is(n, "Constant") || !touches_quantized(g, n) ||
            lower_trial_node(c->spec, g, i, why, sizeof why))
            continue;
        mask[i] = 1;
        any = true;
    }
    tosac_code rc = any ? pass_unfold_cpu(g, mask, err) : TOSAC_OK;
    free(mask);
    /* Without PRO-INT no integer operand lowers, so the int8 weights' DequantizeLinear would
     * keep every Conv/Gemm on the CPU: dequantized once here, the weights are float
     * constants (the values the DQ gives at run time) and the node delegates in float. */
    if (!rc && any && !(tosa_spec_features(c->spec) & TOSA_FEAT_INT))
        rc = pass_fold_dequantized_weights(g, c->opset, err);
    return rc ? rc : ir_graph_toposort(g, err);
}
