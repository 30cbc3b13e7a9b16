/* Give folded (quantized) nodes left on the CPU their float semantics back: the CPU kernels
 * run ONNX operators, which know nothing of ir_quant. Each quantized input x_q is read through
 * a new DequantizeLinear, each quantized output y_q is written by a new QuantizeLinear from a
 * float value, exactly the QDQ graph the model described. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"

static bool is_qdq(const ir_node *n)
{
    return ir_node_is(n, "QuantizeLinear") || ir_node_is(n, "DequantizeLinear") ||
           ir_node_is(n, "QLinearConv") || ir_node_is(n, "QLinearMatMul");
}

static bool quantized(const ir_graph *g, int t)
{
    return t >= 0 && g->tensors[t].quant && tosac_dtype_is_int(g->tensors[t].dtype);
}

/* "<name of t><suffix>", made unique in g. */
static void unique(const ir_graph *g, int t, const char *suffix, char *buf, size_t len)
{
    char base[256];
    snprintf(base, sizeof base, "%s%s", g->tensors[t].name, suffix);
    ir_graph_unique_name(g, base, buf, len);
}

/* Constant scale (f32) and zero point tensors for t's quantization: scalars when per tensor,
 * [n] vectors when per axis. */
static tosac_code qparams(ir_graph *g, int t, int *scale, int *zp, tosac_error *err)
{
    char name[256];
    const ir_quant q = *g->tensors[t].quant;
    int64_t n = q.n;
    int rank = q.axis >= 0 ? 1 : 0;
    size_t zsz = tosac_dtype_size(q.zp_dtype);
    void *zb = calloc((size_t)q.n, zsz ? zsz : 1);
    if (!zb || zsz == 0 || zsz > 8) {
        free(zb);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "zero points of '%s': bad type",
                          g->tensors[t].name);
    }
    for (int i = 0; i < q.n; i++) /* the low bytes of the int64 (little endian) */
        memcpy((char *)zb + (size_t)i * zsz, &q.zero_point[i], zsz);
    unique(g, t, "_zp", name, sizeof name);
    *zp = ir_graph_add_const_owned(g, name, q.zp_dtype, rank, &n, zb, (size_t)q.n * zsz, err);
    unique(g, t, "_scale", name, sizeof name);
    *scale = ir_graph_add_const(g, name, TOSAC_DT_F32, rank, &n, g->tensors[t].quant->scale,
                                (size_t)q.n * sizeof(float), err);
    return *zp < 0 || *scale < 0 ? err->code : TOSAC_OK;
}

/* A float twin of quantized tensor t (same shape) named "<t>_f". */
static int float_twin(ir_graph *g, int t, tosac_error *err)
{
    char name[256];
    unique(g, t, "_f", name, sizeof name);
    int64_t shape[TOSAC_MAX_RANK];
    int rank = g->tensors[t].rank;
    memcpy(shape, g->tensors[t].shape, sizeof shape);
    return ir_graph_add_tensor(g, name, TOSAC_DT_F32, rank, shape, err);
}

/* The new Q/DQ is named like the node it serves (passes.h: origins). */
static tosac_code add_qdq(ir_graph *g, const char *op, int from, int to, int qt,
                          const char *origin, tosac_error *err)
{
    int s, z;
    tosac_code rc = qparams(g, qt, &s, &z, err);
    if (rc)
        return rc;
    int ins[3] = {from, s, z};
    int axis = g->tensors[qt].quant->axis;
    int k = ir_graph_add_node(g, op, NULL, origin, ins, 3, &to, 1, err);
    if (k < 0)
        return err->code;
    return axis >= 0 ? ir_node_set_int(g, k, "axis", axis, err) : TOSAC_OK;
}

tosac_code pass_unfold_cpu(ir_graph *g, const unsigned char *cpu, tosac_error *err)
{
    int n_nodes = g->n_nodes;
    for (int ni = 0; ni < n_nodes; ni++) {
        /* an If/Loop's integer edges are its own (pass_qdq_bodies.c moved the DQ into the
         * bodies, which compile_body unfolds): never folded, nothing to give back */
        if (!cpu[ni] || g->nodes[ni].dead || is_qdq(&g->nodes[ni]) ||
            ir_node_subgraph(&g->nodes[ni], 0))
            continue;
        for (int i = 0; i < g->nodes[ni].n_inputs; i++) {
            int t = g->nodes[ni].inputs[i];
            if (!quantized(g, t))
                continue;
            int f = float_twin(g, t, err);
            if (f < 0 || add_qdq(g, "DequantizeLinear", t, f, t, g->nodes[ni].name, err) ||
                ir_node_set_input(g, ni, i, f, err))
                return err->code;
        }
        for (int o = 0; o < g->nodes[ni].n_outputs; o++) {
            int t = g->nodes[ni].outputs[o];
            if (!quantized(g, t))
                continue;
            int f = float_twin(g, t, err);
            if (f < 0)
                return err->code;
            g->nodes[ni].outputs[o] = f;
            if (add_qdq(g, "QuantizeLinear", f, t, t, g->nodes[ni].name, err))
                return err->code;
        }
    }
    return TOSAC_OK;
}
