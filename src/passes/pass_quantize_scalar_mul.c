/* Scalar float multipliers inside quantized islands.
 *
 *   x_q -DQ-> x_f -Mul(c)-> y_f -Q-> y_q,  c a float scalar constant
 *
 * The quantizer leaves operations it does not quantize in float between a DQ and a Q, and a
 * Div by a constant becomes Mul by its reciprocal (decompose_div): ppocr's hardswish ends in
 * "/ 6". Such a Mul cannot fold (its constant has no quantization) and would put a float hop
 * through the CPU between two delegates. The constant is exactly representable as a
 * quantized value: sign(c) with scale |c| and zero point 0. With that DQ in front of it the
 * Mul folds like any other into an integer MUL whose rescale carries s_x * |c| / s_y. */
#include <math.h>

#include "passes/pass_util.h"
#include "passes/passes.h"

/* The float scalar value of constant t, when t is one. */
static bool float_scalar(const ir_graph *g, int t, float *v)
{
    tosac_tensor cv;
    if (t < 0 || !ir_graph_const_value(g, t, &cv) || cv.dtype != TOSAC_DT_F32 ||
        tosac_tensor_numel(&cv) != 1)
        return false;
    *v = *(const float *)cv.data;
    return isfinite(*v) && *v != 0.0f;
}

static bool from_quantized_dq(const ir_graph *g, int t)
{
    int p = t >= 0 ? ir_graph_producer(g, t) : -1;
    if (p < 0 || !ir_node_is(&g->nodes[p], "DequantizeLinear") || g->nodes[p].n_inputs < 1)
        return false;
    const ir_tensor *q = &g->tensors[g->nodes[p].inputs[0]];
    return q->quant && tosac_dtype_is_int(q->dtype);
}

/* Replaces input slot `slot` of node ni (the scalar c) by DQ(sign(c) as i8, scale |c|). */
static tosac_code quantize_slot(ir_graph *g, int ni, int slot, float c, tosac_error *err)
{
    int t = g->nodes[ni].inputs[slot];
    int8_t q = c < 0 ? -1 : 1;
    float s = fabsf(c);
    int64_t zp = 0;
    int8_t zp8 = 0;
    int rank = g->tensors[t].rank;
    int qc = pass_add_const(g, g->tensors[t].name, "_q", TOSAC_DT_I8, rank > 0 ? 1 : 0, 1, &q, err);
    int st = qc < 0 ? -1 : pass_add_const(g, g->tensors[qc].name, "_scale", TOSAC_DT_F32, 0, 1, &s, err);
    int zt = st < 0 ? -1 : pass_add_const(g, g->tensors[qc].name, "_zp", TOSAC_DT_I8, 0, 1, &zp8, err);
    int f = zt < 0 ? -1 : pass_add_like(g, qc, "_f", TOSAC_DT_F32, err);
    if (f < 0 || ir_tensor_set_quant(g, qc, &s, &zp, 1, -1, TOSAC_DT_I8, err))
        return err->code;
    int in[3] = {qc, st, zt};
    if (ir_graph_add_node(g, "DequantizeLinear", NULL, "", in, 3, &f, 1, err) < 0)
        return err->code;
    return pass_set_input(g, ni, slot, f, err);
}

tosac_code pass_quantize_scalar_mul(ir_graph *g, const pass_ctx *c, tosac_error *err)
{
    (void)c;
    int n_nodes = g->n_nodes;
    for (int ni = 0; ni < n_nodes; ni++) {
        const ir_node *n = &g->nodes[ni];
        if (n->dead || !ir_node_is(n, "Mul") || n->n_inputs != 2 || n->n_outputs != 1)
            continue;
        int reader = n->outputs[0] >= 0 ? pass_sole_reader(g, n->outputs[0]) : -1;
        if (reader < 0 || !ir_node_is(&g->nodes[reader], "QuantizeLinear"))
            continue;
        float v;
        for (int slot = 0; slot < 2; slot++) {
            if (!float_scalar(g, g->nodes[ni].inputs[slot], &v) ||
                !from_quantized_dq(g, g->nodes[ni].inputs[1 - slot]))
                continue;
            tosac_code rc = quantize_slot(g, ni, slot, v, err);
            if (rc)
                return rc;
            break;
        }
    }
    return ir_graph_toposort(g, err);
}
