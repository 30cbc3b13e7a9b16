/* Decompositions before calibration: float operators with no quantized lowering become the
 * quantized operators that compute them (ExecuTorch's Arm quantizer decomposes the same way),
 * so every intermediate is calibrated and gets its own Q/DQ:
 *   Div(a, b)          Mul(a, Reciprocal(b)); a constant b: Mul(a, 1/b)
 *   BatchNormalization Mul(x, k) + (beta - mean k), k = gamma / sqrt(var + eps) per channel
 *                      (one left after the Conv folding: quant_fold_bn.c)
 *   LayerNormalization d = x - mean(x), y = d * Reciprocal(Sqrt(mean(d d) + eps)) * scale + bias
 *   InstanceNormalization  the same over the spatial axes, per-channel scale and bias
 *   Clip(x, lo, hi)    Min(Max(x, lo), hi) when a bound is a runtime tensor
 *   PRelu(x, slope)    r + slope (x - r), r = Relu(x), when the slope is not one constant
 *                      (the integer lowering makes a scalar slope one TABLE)
 * Each rewritten node's outputs keep their ids, so graph outputs and readers are untouched.
 * Integer Div and nodes with extra outputs requested stay as they are. */
#include "quant/quant_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int in(const ir_node *n, int k) { return k < n->n_inputs ? n->inputs[k] : -1; }

typedef struct dctx {
    ir_graph *g;
    int64_t opset;
    const char *base; /* the decomposed node's name */
    tosac_error *err;
} dctx;

/* A float tensor shaped like t (rank and dims; -1 where unknown). */
static int tmp(dctx *d, int like, const char *suffix)
{
    char base[512];
    snprintf(base, sizeof base, "%s", d->base);
    const ir_tensor *t = &d->g->tensors[like];
    int64_t shape[TOSAC_MAX_RANK];
    memcpy(shape, t->shape, sizeof shape);
    return quant_add_tensor(d->g, base, suffix, TOSAC_DT_F32, t->rank, shape, d->err);
}

/* Adds op(a, b) writing y (a fresh tensor shaped like `like` when y < 0); returns y or -1. */
static int op2(dctx *d, const char *op, int a, int b, int y, int like, const char *suffix)
{
    if (a < 0 || (b < 0 && strcmp(op, "Reciprocal") && strcmp(op, "Sqrt") && strcmp(op, "Relu")))
        return -1;
    if (y < 0 && (y = tmp(d, like, suffix)) < 0)
        return -1;
    int ins[2] = {a, b};
    /* named like the node it replaces: the report lists it as one of that node's parts */
    return ir_graph_add_node(d->g, op, NULL, d->base, ins, b < 0 ? 1 : 2, &y, 1, d->err) < 0 ? -1
                                                                                          : y;
}

static int fconst(dctx *d, const char *suffix, int rank, const int64_t *shape, const float *v)
{
    char base[512];
    snprintf(base, sizeof base, "%s", d->base);
    return quant_add_const(d->g, base, suffix, TOSAC_DT_F32, rank, shape, v, d->err);
}

/* ReduceMean(x) over axes [first, rank) with keepdims, axes as the opset reads them. */
static int mean(dctx *d, int x, int first, int rank, const char *suffix)
{
    int64_t axes[TOSAC_MAX_RANK], n = rank - first;
    for (int k = first; k < rank; k++)
        axes[k - first] = k;
    int y = tmp(d, x, suffix);
    if (y < 0)
        return -1;
    for (int k = first; k < rank; k++)
        d->g->tensors[y].shape[k] = 1;
    const char *name = d->base;
    int ins[2] = {x, -1}, nd;
    if (d->opset >= 18) {
        char base[512];
        snprintf(base, sizeof base, "%s", d->base);
        ins[1] = quant_add_const(d->g, base, "_axes", TOSAC_DT_I64, 1, &n, axes, d->err);
        if (ins[1] < 0)
            return -1;
        nd = ir_graph_add_node(d->g, "ReduceMean", NULL, name, ins, 2, &y, 1, d->err);
    } else {
        nd = ir_graph_add_node(d->g, "ReduceMean", NULL, name, ins, 1, &y, 1, d->err);
        if (nd >= 0 && ir_node_set_ints(d->g, nd, "axes", axes, (int)n, d->err))
            return -1;
    }
    return nd < 0 || ir_node_set_int(d->g, nd, "keepdims", 1, d->err) ? -1 : y;
}

static bool extra_outputs(const ir_node *n)
{
    for (int o = 1; o < n->n_outputs; o++)
        if (n->outputs[o] >= 0)
            return true;
    return false;
}

static bool is_f32(const ir_graph *g, int t)
{
    return t >= 0 && g->tensors[t].dtype == TOSAC_DT_F32;
}

static tosac_code div_node(dctx *d, int i)
{
    ir_graph *g = d->g;
    int a = in(&g->nodes[i], 0), b = in(&g->nodes[i], 1), y = g->nodes[i].outputs[0];
    if (!is_f32(g, a) || !is_f32(g, b) || !is_f32(g, y))
        return TOSAC_OK;
    tosac_tensor c;
    int r;
    ir_node_kill(g, i);
    if (quant_const_f32(g, b, &c)) {
        int64_t n = tosac_tensor_numel(&c);
        float *v = malloc((size_t)(n ? n : 1) * sizeof *v);
        if (!v)
            return tosac_fail(d->err, TOSAC_ERR_INTERNAL, "out of memory");
        for (int64_t e = 0; e < n; e++)
            v[e] = 1.0f / ((const float *)c.data)[e];
        int64_t shape[TOSAC_MAX_RANK];
        memcpy(shape, c.shape, sizeof shape);
        r = fconst(d, "_reciprocal", c.rank, shape, v);
        free(v);
    } else {
        r = op2(d, "Reciprocal", b, -1, -1, b, "_reciprocal");
    }
    return op2(d, "Mul", a, r, y, y, "_mul") < 0 ? d->err->code : TOSAC_OK;
}

/* Per-channel constants k, c of y = x k + c as [C, 1, ..., 1] for a rank-`rank` x. */
static tosac_code affine(dctx *d, int x, int y, int rank, const float *k, const float *c,
                         int64_t nc)
{
    int64_t shape[TOSAC_MAX_RANK] = {nc};
    for (int r = 1; r < rank - 1; r++)
        shape[r] = 1;
    int kt = fconst(d, "_scale", rank - 1, shape, k);
    int ct = kt < 0 ? -1 : fconst(d, "_shift", rank - 1, shape, c);
    int m = ct < 0 ? -1 : op2(d, "Mul", x, kt, -1, y, "_mul");
    return op2(d, "Add", m, ct, y, y, "_add") < 0 ? d->err->code : TOSAC_OK;
}

static tosac_code batchnorm(dctx *d, int i)
{
    ir_graph *g = d->g;
    const ir_node *n = &g->nodes[i];
    int x = in(n, 0), y = n->outputs[0];
    tosac_tensor p[4];
    if (n->n_inputs < 5 || extra_outputs(n) || ir_node_attr_int(n, "training_mode", 0) ||
        !is_f32(g, x) || g->tensors[x].rank < 2)
        return TOSAC_OK;
    int64_t nc = g->tensors[x].shape[1];
    for (int k = 0; k < 4; k++)
        if (!quant_const_f32(g, in(n, k + 1), &p[k]) || tosac_tensor_numel(&p[k]) != nc)
            return TOSAC_OK;
    double eps = ir_node_attr_float(n, "epsilon", 1e-5f);
    float *k = malloc((size_t)nc * 2 * sizeof *k);
    if (!k)
        return tosac_fail(d->err, TOSAC_ERR_INTERNAL, "out of memory");
    const float *gam = p[0].data, *beta = p[1].data, *mu = p[2].data, *var = p[3].data;
    for (int64_t ch = 0; ch < nc; ch++) {
        double s = gam[ch] / sqrt((double)var[ch] + eps);
        k[ch] = (float)s;
        k[nc + ch] = (float)(beta[ch] - mu[ch] * s);
    }
    int rank = g->tensors[x].rank;
    ir_node_kill(g, i);
    tosac_code rc = affine(d, x, y, rank, k, k + nc, nc);
    free(k);
    return rc;
}

/* y = (x - mean) / sqrt(var + eps) over axes [first, rank), then * scale + bias. */
static tosac_code normalize(dctx *d, int i, int first, bool per_channel)
{
    ir_graph *g = d->g;
    const ir_node *n = &g->nodes[i];
    int x = in(n, 0), sc = in(n, 1), bi = in(n, 2), y = n->outputs[0];
    int rank = is_f32(g, x) ? g->tensors[x].rank : 0;
    tosac_tensor sv, bv = {0};
    if (extra_outputs(n) || rank < 2 || first < 1 || first >= rank || !is_f32(g, y) ||
        !quant_const_f32(g, sc, &sv) || (bi >= 0 && !quant_const_f32(g, bi, &bv)))
        return TOSAC_OK;
    for (int k = first; k < rank; k++)
        if (g->tensors[x].shape[k] < 1)
            return TOSAC_OK; /* the axes' sizes must be known */
    int64_t nc = g->tensors[x].shape[1];
    if (per_channel &&
        (tosac_tensor_numel(&sv) != nc || (bi >= 0 && tosac_tensor_numel(&bv) != nc)))
        return TOSAC_OK; /* not per channel: left as it is (the CPU runs or refuses it) */
    float eps = ir_node_attr_float(n, "epsilon", 1e-5f);
    ir_node_kill(g, i);
    int mu = mean(d, x, first, rank, "_mean");
    int dx = op2(d, "Sub", x, mu, -1, x, "_centered");
    int sq = op2(d, "Mul", dx, dx, -1, x, "_square");
    int var = sq < 0 ? -1 : mean(d, sq, first, rank, "_var");
    int et = var < 0 ? -1 : fconst(d, "_epsilon", 0, NULL, &eps);
    int ve = op2(d, "Add", var, et, -1, mu, "_var_eps");
    int sd = op2(d, "Sqrt", ve, -1, -1, mu, "_std");
    int rs = op2(d, "Reciprocal", sd, -1, -1, mu, "_inv_std");
    int nx = op2(d, "Mul", dx, rs, -1, x, "_normalized");
    if (nx < 0)
        return d->err->code;
    if (!per_channel) {
        int m = op2(d, "Mul", nx, sc, bi >= 0 ? -1 : y, x, "_scaled");
        return (bi >= 0 ? op2(d, "Add", m, bi, y, y, "_shifted") : m) < 0 ? d->err->code
                                                                          : TOSAC_OK;
    }
    float *zero = calloc((size_t)nc, sizeof *zero);
    if (!zero)
        return tosac_fail(d->err, TOSAC_ERR_INTERNAL, "out of memory");
    tosac_code rc = affine(d, nx, y, rank, sv.data, bi >= 0 ? bv.data : zero, nc);
    free(zero);
    return rc;
}

static bool is_const(const ir_graph *g, int t)
{
    tosac_tensor v;
    return t < 0 || ir_graph_const_value(g, t, &v);
}

static tosac_code clip(dctx *d, int i)
{
    ir_graph *g = d->g;
    const ir_node *n = &g->nodes[i];
    int x = in(n, 0), lo = in(n, 1), hi = in(n, 2), y = n->outputs[0];
    if (!is_f32(g, x) || (is_const(g, lo) && is_const(g, hi)))
        return TOSAC_OK; /* constant bounds: the lowering's CLAMP */
    ir_node_kill(g, i);
    int m = lo >= 0 ? op2(d, "Max", x, lo, hi >= 0 ? -1 : y, y, "_max") : x;
    if (hi >= 0)
        m = op2(d, "Min", m, hi, y, y, "_min");
    return m < 0 ? d->err->code : TOSAC_OK;
}

static tosac_code prelu(dctx *d, int i)
{
    ir_graph *g = d->g;
    const ir_node *n = &g->nodes[i];
    int x = in(n, 0), sl = in(n, 1), y = n->outputs[0];
    tosac_tensor sv;
    if (!is_f32(g, x) || !is_f32(g, y) ||
        (ir_graph_const_value(g, sl, &sv) && tosac_tensor_numel(&sv) == 1))
        return TOSAC_OK; /* one constant slope: the lowering's TABLE */
    ir_node_kill(g, i);
    int r = op2(d, "Relu", x, -1, -1, x, "_pos");
    int neg = op2(d, "Sub", x, r, -1, x, "_neg");
    int sn = op2(d, "Mul", neg, sl, -1, y, "_scaled");
    return op2(d, "Add", r, sn, y, y, "_sum") < 0 ? d->err->code : TOSAC_OK;
}

tosac_code quant_decompose(ir_model *m, tosac_error *err)
{
    ir_graph *g = m->graph;
    dctx d = {g, ir_model_opset(m, ""), NULL, err};
    int n_nodes = g->n_nodes;
    for (int i = 0; i < n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (n->dead || (n->domain && n->domain[0] && strcmp(n->domain, "ai.onnx")))
            continue;
        char name[512];
        snprintf(name, sizeof name, "%s", n->name && n->name[0] ? n->name : n->op_type);
        d.base = name;
        tosac_code rc = TOSAC_OK;
        if (ir_node_is(n, "Div"))
            rc = div_node(&d, i);
        else if (ir_node_is(n, "BatchNormalization"))
            rc = batchnorm(&d, i);
        else if (ir_node_is(n, "LayerNormalization")) {
            int rank = in(n, 0) >= 0 ? g->tensors[in(n, 0)].rank : 0;
            int64_t axis = ir_node_attr_int(n, "axis", -1);
            rc = normalize(&d, i, (int)(axis < 0 ? axis + rank : axis), false);
        } else if (ir_node_is(n, "InstanceNormalization"))
            rc = normalize(&d, i, 2, true);
        else if (ir_node_is(n, "Clip"))
            rc = clip(&d, i);
        else if (ir_node_is(n, "PRelu"))
            rc = prelu(&d, i);
        if (rc)
            return rc;
    }
    return ir_graph_toposort(g, err);
}
