/* BatchNormalization (inference) folded into the Conv / ConvTranspose / Gemm before it.
 *
 * BN(y) = y * k + shift per output channel (onnxop_norm.h, the arithmetic the quantizer's
 * fold shares), so it becomes part of the producer: weights of channel c times k[c], bias
 * b * k[c] + shift[c].
 * The producer must be the BN input's only reader, with constant weights and bias.
 *
 * Float graphs: new float weight / bias constants (computed in double).
 * QDQ graphs (Conv(DQ x, DQ w, DQ b) -> BN -> Q): the int8 weights keep their values (a
 * channel with negative k is negated, which needs symmetric weights without -128) and their
 * per-channel scales become s_w * |k|; the int32 bias is requantized with the accumulator
 * scale s_x * s_w' (what the conv lowering assumes). Both get new DequantizeLinear nodes, so
 * fold_qdq folds the result like any quantized Conv. A float bias, or any bias of int16
 * activations (int48 accumulators), becomes a float constant the lowering quantizes. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "onnxop/onnxop_norm.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

typedef struct bn_params {
    int64_t c;        /* channels */
    double *k, *add;  /* y * k[c] + add[c] == BN(y) */
} bn_params;

static bool const_of(const ir_graph *g, const ir_node *n, int slot, tosac_tensor *v)
{
    return slot < n->n_inputs && n->inputs[slot] >= 0 &&
           ir_graph_const_value(g, n->inputs[slot], v);
}

static bool read_bn(const ir_graph *g, const ir_node *bn, bn_params *p)
{
    tosac_tensor sc, b, mean, var;
    if (bn->n_inputs != 5 || ir_node_attr_int(bn, "training_mode", 0) != 0 ||
        !const_of(g, bn, 1, &sc) || !const_of(g, bn, 2, &b) || !const_of(g, bn, 3, &mean) ||
        !const_of(g, bn, 4, &var))
        return false;
    for (int o = 1; o < bn->n_outputs; o++)
        if (bn->outputs[o] >= 0)
            return false;
    p->c = tosac_tensor_numel(&sc);
    if (tosac_tensor_numel(&b) != p->c || tosac_tensor_numel(&mean) != p->c ||
        tosac_tensor_numel(&var) != p->c || !tosac_dtype_is_float(sc.dtype))
        return false;
    p->k = malloc((size_t)p->c * sizeof(double));
    p->add = malloc((size_t)p->c * sizeof(double));
    if (!p->k || !p->add)
        return false;
    onnx_bn_affine(&sc, &b, &mean, &var, onnx_bn_epsilon(bn), p->c, p->k, p->add);
    return true;
}

/* Output channel of weight element e (flat index) for the producer's weight layout. */
typedef struct wlayout {
    int kind;          /* 0 Conv [OC,..], 1 ConvTranspose [IC, OC/g, ..], 2 Gemm B [K,N], 3 Gemm B^T [N,K] */
    int64_t d0, d1, inner, group;
} wlayout;

static int64_t channel_of(const wlayout *l, int64_t e)
{
    switch (l->kind) {
    case 0: return e / (l->d1 * l->inner);
    case 1: {
        int64_t ic = e / (l->d1 * l->inner), j = (e / l->inner) % l->d1;
        return (ic / (l->d0 / l->group)) * l->d1 + j;
    }
    case 2: return e % l->d1;
    default: return e / l->d1;
    }
}

static bool layout_of(const ir_node *n, const ir_tensor *w, int64_t c, wlayout *l)
{
    memset(l, 0, sizeof *l);
    if (w->rank < 2)
        return false;
    l->d0 = w->shape[0];
    l->d1 = w->shape[1];
    l->inner = 1;
    for (int d = 2; d < w->rank; d++)
        l->inner *= w->shape[d];
    l->group = ir_node_attr_int(n, "group", 1);
    if (ir_node_is(n, "Conv"))
        return l->d0 == c;
    if (ir_node_is(n, "ConvTranspose")) {
        l->kind = 1;
        return l->group > 0 && l->d0 % l->group == 0 && l->d1 * l->group == c;
    }
    if (w->rank != 2 || ir_node_attr_int(n, "transA", 0) != 0)
        return false;
    l->kind = ir_node_attr_int(n, "transB", 0) ? 3 : 2;
    return (l->kind == 2 ? l->d1 : l->d0) == c;
}

/* The producer's bias per channel as float (0 when absent); Gemm: alpha/beta applied. */
static bool bias_of(const ir_graph *g, const ir_node *n, int64_t c, double *b, double scale_b)
{
    tosac_tensor bv;
    for (int64_t i = 0; i < c; i++)
        b[i] = 0.0;
    if (n->n_inputs < 3 || n->inputs[2] < 0)
        return true;
    if (!ir_graph_const_value(g, n->inputs[2], &bv))
        return false;
    int64_t cnt = tosac_tensor_numel(&bv);
    if (cnt != c && cnt != 1)
        return false;
    for (int64_t i = 0; i < c; i++)
        b[i] = tosac_tensor_f64_at(&bv, cnt == 1 ? 0 : i) * scale_b;
    return true;
}

/* A new constant "<base>_bn" shaped like tensor like (its data copied). */
static int const_like(ir_graph *g, int like, tosac_dtype dt, const void *data, tosac_error *err)
{
    char name[320];
    char want[300];
    snprintf(want, sizeof want, "%s_bn", g->tensors[like].name);
    ir_graph_unique_name(g, want, name, sizeof name);
    const ir_tensor *t = &g->tensors[like];
    int64_t shape[TOSAC_MAX_RANK];
    memcpy(shape, t->shape, sizeof shape);
    size_t nb = (size_t)tosac_shape_numel(t->rank, shape) * tosac_dtype_size(dt);
    return ir_graph_add_const(g, name, dt, t->rank, shape, data, nb, err);
}

/* Float producer: new weights (times k) and bias ((b - mean) * k + beta). */
static tosac_code fold_float(ir_graph *g, int pi, const tosac_tensor *wv, const wlayout *l,
                             const bn_params *p, bool *done, tosac_error *err)
{
    const ir_node *n = &g->nodes[pi];
    bool gemm = ir_node_is(n, "Gemm");
    double alpha = gemm ? ir_node_attr_float(n, "alpha", 1.0f) : 1.0;
    double beta = gemm ? ir_node_attr_float(n, "beta", 1.0f) : 1.0;
    int64_t total = tosac_tensor_numel(wv), c = p->c;
    float *w = malloc((size_t)total * sizeof *w), *b = malloc((size_t)c * sizeof *b);
    double *b0 = malloc((size_t)c * sizeof *b0);
    tosac_code rc = TOSAC_OK;
    if (!w || !b || !b0)
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    if (!rc && bias_of(g, n, c, b0, beta)) {
        for (int64_t e = 0; e < total; e++)
            w[e] = (float)onnx_bn_fold_weight(tosac_tensor_f64_at(wv, e) * alpha,
                                              p->k[channel_of(l, e)]);
        for (int64_t i = 0; i < c; i++)
            b[i] = (float)onnx_bn_fold_bias(b0[i], p->k[i], p->add[i]);
        int wn = const_like(g, g->nodes[pi].inputs[1], TOSAC_DT_F32, w, err);
        int bn = wn < 0 ? -1 : pass_add_const(g, g->tensors[wn].name, "_bias", TOSAC_DT_F32, 1,
                                               c, b, err);
        if (bn < 0 || ir_node_set_input(g, pi, 1, wn, err) || pass_set_input(g, pi, 2, bn, err) ||
            (gemm && (ir_node_set_float(g, pi, "alpha", 1.0f, err) ||
                      ir_node_set_float(g, pi, "beta", 1.0f, err))))
            rc = err->code;
        *done = !rc;
    }
    free(w);
    free(b);
    free(b0);
    return rc;
}

/* DQ(q) with per-channel (axis 0) parameters: scales[c], zero points 0 of q's type. Returns
 * the float tensor. q is a new constant that gets its quant recorded. */
static int dequantized(ir_graph *g, int q, const float *scales, int64_t c, const char *origin,
                       tosac_error *err)
{
    int64_t *zp = calloc((size_t)c, sizeof *zp);
    void *zb = calloc((size_t)c, tosac_dtype_size(g->tensors[q].dtype));
    int s = -1, z = -1, f = -1;
    if (!zp || !zb)
        tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    else if (!ir_tensor_set_quant(g, q, scales, zp, (int)c, 0, g->tensors[q].dtype, err) &&
             (s = pass_add_const(g, g->tensors[q].name, "_scale", TOSAC_DT_F32, 1, c, scales,
                                 err)) >= 0 &&
             (z = pass_add_const(g, g->tensors[q].name, "_zp", g->tensors[q].dtype, 1, c, zb,
                                 err)) >= 0)
        f = pass_add_like(g, q, "_f", TOSAC_DT_F32, err);
    free(zp);
    free(zb);
    if (f < 0)
        return -1;
    int in[3] = {q, s, z};
    int k = ir_graph_add_node(g, "DequantizeLinear", NULL, origin, in, 3, &f, 1, err);
    if (k < 0 || ir_node_set_int(g, k, "axis", 0, err))
        return -1;
    return f;
}

/* The quantized tensor behind a DQ'd input slot (constant when want_const), or -1. */
static int dq_input(const ir_graph *g, const ir_node *n, int slot, bool want_const)
{
    if (slot >= n->n_inputs || n->inputs[slot] < 0)
        return -1;
    int p = ir_graph_producer(g, n->inputs[slot]);
    if (p < 0 || !ir_node_is(&g->nodes[p], "DequantizeLinear"))
        return -1;
    int q = g->nodes[p].inputs[0];
    const ir_tensor *t = &g->tensors[q];
    if (!t->quant || t->quant->block_size || (want_const && !t->data))
        return -1;
    return q;
}

/* QDQ Conv: int8 weights keep their values (negated where k < 0), scales s_w * |k|; the
 * int32 bias is requantized to s_x * s_w' (bs holds its scales, or the float bias). */
static tosac_code fold_qdq_conv(ir_graph *g, int pi, const bn_params *p, bool *done,
                                tosac_error *err)
{
    const ir_node *n = &g->nodes[pi];
    int xq = dq_input(g, n, 0, false), wq = dq_input(g, n, 1, true);
    bool has_b = n->n_inputs > 2 && n->inputs[2] >= 0;
    int bq = has_b ? dq_input(g, n, 2, true) : -2;
    tosac_tensor fbv; /* a float bias (a16w8 QDQ models keep it float) */
    bool fbias = bq == -1 && ir_graph_const_value(g, n->inputs[2], &fbv) &&
                 tosac_dtype_is_float(fbv.dtype) && tosac_tensor_numel(&fbv) == p->c;
    if (!ir_node_is(n, "Conv") || xq < 0 || wq < 0 || (bq == -1 && !fbias) ||
        g->tensors[xq].quant->n != 1 || g->tensors[wq].dtype != TOSAC_DT_I8 ||
        g->tensors[wq].shape[0] != p->c || (bq >= 0 && g->tensors[bq].dtype != TOSAC_DT_I32))
        return TOSAC_OK;
    /* the new bias stays float when it was, or when int16 activations accumulate in int48
     * (an int32 bias might not hold it): the lowering quantizes it (lower_bias) */
    bool out_float = fbias || g->tensors[xq].dtype == TOSAC_DT_I16;
    const ir_tensor *W = &g->tensors[wq];
    const ir_quant *wqp = W->quant;
    if (wqp->n != 1 && (wqp->axis != 0 || wqp->n != p->c))
        return TOSAC_OK;
    for (int i = 0; i < wqp->n; i++)
        if (wqp->zero_point[i] != 0)
            return TOSAC_OK;
    int64_t c = p->c, total = (int64_t)W->nbytes, per = total / c;
    double sx = g->tensors[xq].quant->scale[0];
    int8_t *w = malloc((size_t)total);
    float *ws = malloc((size_t)c * sizeof *ws), *bs = malloc((size_t)c * sizeof *bs);
    int32_t *b = malloc((size_t)c * sizeof *b);
    tosac_code rc = TOSAC_OK;
    bool ok = w && ws && bs && b;
    if (!ok)
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    for (int64_t ch = 0; ok && ch < c; ch++) {
        const int8_t *src = (const int8_t *)W->data + ch * per;
        double sw = wqp->scale[wqp->n > 1 ? ch : 0], k = p->k[ch];
        for (int64_t e = 0; e < per && ok; e++) {
            ok = !(k < 0 && src[e] == -128); /* -(-128) does not fit */
            w[ch * per + e] = (int8_t)(k < 0 ? -src[e] : src[e]);
        }
        ws[ch] = (float)(sw * fabs(k));
        ok = ok && ws[ch] > 0.0f;
        double bf = fbias ? tosac_tensor_f64_at(&fbv, ch) : 0.0;
        if (bq >= 0) {
            const ir_quant *bqp = g->tensors[bq].quant;
            int bi = bqp->n > 1 ? (int)ch : 0;
            bf = ((double)((const int32_t *)g->tensors[bq].data)[ch] - (double)bqp->zero_point[bi]) *
                 bqp->scale[bi];
        }
        double folded = onnx_bn_fold_bias(bf, k, p->add[ch]);
        bs[ch] = out_float ? (float)folded : (float)(sx * ws[ch]);
        double v = out_float ? 0.0 : nearbyint(folded / ((double)bs[ch]));
        ok = ok && fabs(v) < 2147483647.0;
        b[ch] = ok ? (int32_t)v : 0;
    }
    if (ok) {
        int64_t cc = c;
        int nw = const_like(g, wq, TOSAC_DT_I8, w, err);
        const char *origin = g->nodes[pi].name; /* the DQs serve the conv (passes.h) */
        int wf = nw < 0 ? -1 : dequantized(g, nw, ws, c, origin, err);
        int nb = wf < 0 ? -1 : pass_add_const(g, g->tensors[nw].name, "_bias",
                                              out_float ? TOSAC_DT_F32 : TOSAC_DT_I32, 1, cc,
                                              out_float ? (const void *)bs : (const void *)b,
                                              err);
        int bf = nb < 0 || out_float ? nb : dequantized(g, nb, bs, c, origin, err);
        if (bf < 0 || ir_node_set_input(g, pi, 1, wf, err) || pass_set_input(g, pi, 2, bf, err))
            rc = err->code;
        *done = !rc;
    }
    free(w);
    free(ws);
    free(bs);
    free(b);
    return rc;
}

static tosac_code fold_one(ir_graph *g, int bi, tosac_error *err)
{
    const ir_node *bn = &g->nodes[bi];
    int y = bn->n_inputs ? bn->inputs[0] : -1;
    int pi = y >= 0 ? ir_graph_producer(g, y) : -1;
    if (pi < 0 || pass_sole_reader(g, y) != bi || bn->n_outputs < 1 || bn->outputs[0] < 0)
        return TOSAC_OK;
    const ir_node *pn = &g->nodes[pi];
    if ((!ir_node_is(pn, "Conv") && !ir_node_is(pn, "ConvTranspose") && !ir_node_is(pn, "Gemm")) ||
        pn->n_inputs < 2 || pn->n_outputs != 1 || pn->inputs[1] < 0)
        return TOSAC_OK;
    bn_params p = {0, NULL, NULL};
    tosac_code rc = TOSAC_OK;
    bool done = false;
    if (read_bn(g, bn, &p)) {
        tosac_tensor wv;
        wlayout l;
        if (ir_graph_const_value(g, pn->inputs[1], &wv) && tosac_dtype_is_float(wv.dtype)) {
            if (layout_of(pn, &g->tensors[pn->inputs[1]], p.c, &l))
                rc = fold_float(g, pi, &wv, &l, &p, &done, err);
        } else {
            rc = fold_qdq_conv(g, pi, &p, &done, err);
        }
    }
    free(p.k);
    free(p.add);
    if (rc || !done)
        return rc;
    g->nodes[pi].outputs[0] = g->nodes[bi].outputs[0];
    ir_node_kill(g, bi);
    return TOSAC_OK;
}

tosac_code pass_fold_bn(ir_graph *g, const pass_ctx *c, tosac_error *err)
{
    (void)c;
    int n = g->n_nodes;
    for (int i = 0; i < n; i++) {
        if (g->nodes[i].dead || !ir_node_is(&g->nodes[i], "BatchNormalization"))
            continue;
        tosac_code rc = fold_one(g, i, err);
        if (rc)
            return rc;
    }
    ir_graph_compact(g);
    return TOSAC_OK;
}
