/* Quantization parameters at import: QuantizeLinear / DequantizeLinear / QLinearConv /
 * QLinearMatMul carry constant scales and zero points as inputs; we also record them on the
 * quantized tensors they describe, so later stages read tensor->quant instead of chasing
 * nodes. Dynamic scales (e.g. from DynamicQuantizeLinear) are left to the nodes. */
#include "onnx_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/fp.h"

static tosac_code fail_code(tosac_error *err)
{
    return err && err->code ? err->code : TOSAC_ERR_INPUT;
}

static bool float_at(const tosac_tensor *t, int64_t i, float *out)
{
    switch (t->dtype) {
    case TOSAC_DT_F32: *out = ((const float *)t->data)[i]; return true;
    case TOSAC_DT_F64: *out = (float)((const double *)t->data)[i]; return true;
    case TOSAC_DT_F16: *out = tosac_f16_to_f32(((const uint16_t *)t->data)[i]); return true;
    case TOSAC_DT_BF16: *out = tosac_bf16_to_f32(((const uint16_t *)t->data)[i]); return true;
    default: return false;
    }
}

/* Records (scale, zp) of node input slots on tensor q. axis is the node's axis attribute. */
static tosac_code record(ir_graph *g, int node, int q, int scale_id, int zp_id, int64_t axis,
                         tosac_dtype zp_default, tosac_error *err)
{
    char desc[160];
    if (q < 0 || scale_id < 0 || g->tensors[q].quant)
        return TOSAC_OK;
    tosac_tensor s, z;
    if (!ir_graph_const_value(g, scale_id, &s))
        return TOSAC_OK; /* computed at run time */
    int64_t n = tosac_tensor_numel(&s);
    ir_node_desc(g, node, desc, sizeof desc);
    if (n < 1 || n > (1 << 24) || !tosac_dtype_is_float(s.dtype) || s.rank > 1)
        return tosac_fail(err, TOSAC_ERR_INPUT,
                          "%s: the scale must be a float scalar or 1-D tensor (is %s, %lld values)",
                          desc, tosac_dtype_name(s.dtype), (long long)n);
    bool have_zp = zp_id >= 0 && ir_graph_const_value(g, zp_id, &z);
    if (have_zp && tosac_tensor_numel(&z) != n)
        return tosac_fail(err, TOSAC_ERR_INPUT, "%s: %lld zero points for %lld scales", desc,
                          (long long)tosac_tensor_numel(&z), (long long)n);
    if (zp_id >= 0 && !have_zp)
        return TOSAC_OK; /* zero point computed at run time */
    if (have_zp && !tosac_dtype_is_int(z.dtype))
        return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "%s: %s zero points are not supported",
                          desc, tosac_dtype_name(z.dtype));
    int rank = g->tensors[q].rank;
    int qaxis = -1;
    if (n > 1) {
        if (axis < 0 && rank >= 0)
            axis += rank;
        if (axis < 0 || (rank >= 0 && axis >= rank) || axis >= TOSAC_MAX_RANK)
            return tosac_fail(err, TOSAC_ERR_INPUT, "%s: axis %lld is out of range for rank %d",
                              desc, (long long)axis, rank);
        if (rank >= 0 && g->tensors[q].shape[axis] >= 0 && g->tensors[q].shape[axis] != n)
            return tosac_fail(err, TOSAC_ERR_INPUT,
                              "%s: %lld scales for dimension %lld of size %lld", desc,
                              (long long)n, (long long)axis,
                              (long long)g->tensors[q].shape[axis]);
        qaxis = (int)axis;
    }
    float *sc = malloc((size_t)n * sizeof *sc);
    int64_t *zp = calloc((size_t)n, sizeof *zp);
    tosac_code rc = TOSAC_OK;
    if (!sc || !zp)
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    for (int64_t i = 0; i < n && !rc; i++) {
        if (!float_at(&s, i, &sc[i]))
            rc = tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "%s: %s scales are not supported", desc,
                            tosac_dtype_name(s.dtype));
        else if (!isfinite(sc[i]))
            rc = tosac_fail(err, TOSAC_ERR_INPUT, "%s: scale %lld is not finite", desc,
                            (long long)i);
        else if (sc[i] < 0) /* the lowering's tables would take exp of a positive argument */
            rc = tosac_fail(err, TOSAC_ERR_INPUT, "%s: scale %lld is negative (%g)", desc,
                            (long long)i, (double)sc[i]);
        zp[i] = have_zp ? tosac_tensor_int_at(&z, i) : 0;
    }
    if (!rc)
        rc = ir_tensor_set_quant(g, q, sc, zp, (int)n, qaxis, have_zp ? z.dtype : zp_default,
                                 err);
    free(sc);
    free(zp);
    return rc;
}

static int in(const ir_node *n, int k) { return k < n->n_inputs ? n->inputs[k] : -1; }

static tosac_code record_node(ir_graph *g, int i, tosac_error *err)
{
    const ir_node *n = &g->nodes[i];
    char desc[160];
    bool q = ir_node_is(n, "QuantizeLinear"), dq = ir_node_is(n, "DequantizeLinear");
    if (q || dq) {
        if (ir_node_attr_int(n, "block_size", 0) != 0)
            return tosac_fail(err, TOSAC_ERR_UNSUPPORTED,
                              "%s: blocked quantization (block_size) is not supported",
                              ir_node_desc(g, i, desc, sizeof desc));
        int64_t axis = ir_node_attr_int(n, "axis", 1);
        if (q) {
            int od = (int)ir_node_attr_int(n, "output_dtype", 0);
            tosac_dtype dflt = od ? onnx_dtype_to_tosac(od) : TOSAC_DT_U8;
            int y = n->n_outputs ? n->outputs[0] : -1;
            return record(g, i, y, in(n, 1), in(n, 2), axis, dflt, err);
        }
        int x = in(n, 0);
        tosac_dtype dflt = x >= 0 && g->tensors[x].dtype ? g->tensors[x].dtype : TOSAC_DT_U8;
        return record(g, i, x, in(n, 1), in(n, 2), axis, dflt, err);
    }
    if (ir_node_is(n, "QLinearConv") || ir_node_is(n, "QLinearMatMul")) {
        int y = n->n_outputs ? n->outputs[0] : -1, w = in(n, 3);
        int64_t waxis = 0;
        if (ir_node_is(n, "QLinearMatMul"))
            waxis = -1; /* per column of b */
        if (record(g, i, in(n, 0), in(n, 1), in(n, 2), 1, TOSAC_DT_U8, err) ||
            record(g, i, w, in(n, 4), in(n, 5), waxis, TOSAC_DT_U8, err) ||
            record(g, i, y, in(n, 6), in(n, 7), 1, TOSAC_DT_U8, err))
            return fail_code(err);
    }
    return TOSAC_OK;
}

tosac_code onnx_record_quant(ir_graph *g, tosac_error *err)
{
    for (int i = 0; i < g->n_nodes; i++) {
        if (record_node(g, i, err))
            return fail_code(err);
        ir_graph *sub;
        for (int k = 0; (sub = ir_node_subgraph(&g->nodes[i], k)); k++)
            if (onnx_record_quant(sub, err))
                return fail_code(err);
    }
    return TOSAC_OK;
}
