/* Requantization in the integer domain.
 *
 *   x_q -DQ-> t_f -Q-> y_q      becomes     x_q -Identity-> y_q
 *
 * A DequantizeLinear feeding a QuantizeLinear directly is a change of quantization
 * parameters: the quantizer leaves such pairs around float operations that later passes fold
 * away (ppocr's hardswish divides by 6: decompose_div turns that into a scale), and ONNX
 * exporters emit them between differently quantized layers. As a quantized Identity (x_q
 * and y_q carry their ir_quant) the lowering emits one RESCALE and the pair no longer splits
 * a delegate; left on the CPU, pass_unfold_cpu gives it its DQ/Q semantics back. With equal
 * parameters on both sides the pair is no operation at all and x_q is used directly. Only
 * per-tensor parameters on both sides (a per-axis RESCALE on an arbitrary axis is not
 * what Identity lowers). */
#include <stdio.h>

#include "passes/passes.h"

static bool per_tensor_int(const ir_tensor *t)
{
    return t->quant && t->quant->n == 1 && t->quant->block_size == 0 &&
           tosac_dtype_is_int(t->dtype);
}

static bool same_params(const ir_tensor *a, const ir_tensor *b)
{
    return a->dtype == b->dtype && a->quant->scale[0] == b->quant->scale[0] &&
           a->quant->zero_point[0] == b->quant->zero_point[0];
}

tosac_code pass_fold_requant(ir_graph *g, const pass_ctx *c, tosac_error *err)
{
    (void)c;
    int n_nodes = g->n_nodes; /* nodes added below are not visited */
    for (int qi = 0; qi < n_nodes; qi++) {
        const ir_node *q = &g->nodes[qi];
        if (q->dead || !ir_node_is(q, "QuantizeLinear") || q->n_inputs < 1 || q->n_outputs < 1)
            continue;
        int t = q->inputs[0], y = q->outputs[0];
        int di = t >= 0 ? ir_graph_producer(g, t) : -1;
        if (di < 0 || !ir_node_is(&g->nodes[di], "DequantizeLinear") || g->nodes[di].dead ||
            g->nodes[di].n_inputs < 1)
            continue;
        int x = g->nodes[di].inputs[0];
        if (x < 0 || y < 0 || !per_tensor_int(&g->tensors[x]) || !per_tensor_int(&g->tensors[y]))
            continue;
        bool sole = !ir_graph_is_output(g, t) && ir_graph_consumers(g, t, NULL, 0) == 1;
        if (same_params(&g->tensors[x], &g->tensors[y]) && !ir_graph_is_output(g, y)) {
            /* Q(DQ(x)) with the same parameters is x itself: no node at all. */
            ir_node_kill(g, qi);
            ir_graph_replace_uses(g, y, x);
        } else if (sole) {
            /* A pure change of parameters: one RESCALE (in a delegate). When the DQ has other
             * readers it stays anyway, and moving only the Q would add a delegate output. */
            char name[256];
            snprintf(name, sizeof name, "%s_requant",
                     g->nodes[qi].name[0] ? g->nodes[qi].name : "q");
            ir_node_kill(g, qi);
            if (ir_graph_add_node(g, "Identity", NULL, name, &x, 1, &y, 1, err) < 0)
                return err->code;
        } else {
            continue;
        }
        if (!ir_graph_is_output(g, t) && ir_graph_consumers(g, t, NULL, 0) == 0)
            ir_node_kill(g, di);
    }
    ir_graph_compact(g);
    return ir_graph_toposort(g, err);
}
