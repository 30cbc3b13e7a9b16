/* Normalizations, float only (quantized forms are refused with a reason: their statistics
 * need a wider integer pipeline than a rule should improvise):
 *
 *   BatchNormalization (inference, constant statistics): y = x * a + b per channel, with
 *     a = scale / sqrt(var + eps) and b = B - mean * a folded at compile time (MUL + ADD);
 *   LayerNormalization: over axes [axis, rank): mean = REDUCE_SUM / N, d = x - mean,
 *     var = REDUCE_SUM(d * d) / N, y = d * RSQRT(var + eps) * Scale (+ B); the optional Mean
 *     and InvStdDev outputs are the intermediate values;
 *   InstanceNormalization: the same over the spatial axes [2, rank), with per-channel scale
 *     and bias reshaped to [1, C, 1, ..]. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower_act_util.h"

static tosac_code check_float(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *x = lower_in_ir(c, n, 0), *y = lower_out_ir(c, n, 0);
    if (!x || !y)
        return lx_unsupported(c, n, "missing input or output");
    if (lower_is_quantized(x) || lower_is_quantized(y))
        return lx_unsupported(c, n, "quantized normalization is not lowered");
    if (x->dtype != TOSAC_DT_F32 || y->dtype != TOSAC_DT_F32)
        return lx_unsupported(c, n, "%s input (f32 only)", tosac_dtype_name(x->dtype));
    return TOSAC_OK;
}

/* Float values of constant input slot (numel must be n). */
static bool const_floats(const lower_ctx *c, const ir_node *n, int slot, int64_t count, double *v)
{
    tosac_tensor t;
    if (!lower_in_const(c, n, slot, &t) || t.dtype != TOSAC_DT_F32 ||
        tosac_tensor_numel(&t) != count)
        return false;
    for (int64_t i = 0; i < count; i++)
        v[i] = ((const float *)t.data)[i];
    return true;
}

/* A [1, C, 1, ..] f32 constant of rank r. */
static int channel_const(lower_ctx *c, const char *prefix, int r, int64_t ch, const double *v)
{
    int64_t shape[TOSAC_MAX_RANK];
    for (int i = 0; i < r; i++)
        shape[i] = i == 1 ? ch : 1;
    float *buf = malloc((size_t)ch * sizeof *buf);
    if (!buf) {
        tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory");
        return -1;
    }
    for (int64_t i = 0; i < ch; i++)
        buf[i] = (float)v[i];
    int k = lower_const(c, prefix, TOSAC_DT_F32, r, shape, buf);
    free(buf);
    return k;
}

static tosac_code lower_batchnorm(lower_ctx *c, const ir_node *n)
{
    tosac_code rc = check_float(c, n);
    if (rc)
        return rc;
    const ir_tensor *X = lower_in_ir(c, n, 0);
    if (ir_node_attr_int(n, "training_mode", 0) != 0 || (n->n_outputs > 1 && n->outputs[1] >= 0))
        return lx_unsupported(c, n, "training mode");
    if (X->rank < 2 || n->n_inputs < 5)
        return lx_unsupported(c, n, "needs [N, C, ..] and four parameters");
    int64_t ch = X->shape[1];
    double eps = ir_node_attr_float(n, "epsilon", 1e-5f);
    double *p = malloc((size_t)ch * 6 * sizeof *p);
    if (!p)
        return tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory");
    double *sc = p, *bi = p + ch, *mu = p + 2 * ch, *var = p + 3 * ch, *a = p + 4 * ch,
           *b = p + 5 * ch;
    if (!const_floats(c, n, 1, ch, sc) || !const_floats(c, n, 2, ch, bi) ||
        !const_floats(c, n, 3, ch, mu) || !const_floats(c, n, 4, ch, var)) {
        free(p);
        return lx_unsupported(c, n, "parameters are not f32 constants of %lld values",
                              (long long)ch);
    }
    for (int64_t i = 0; i < ch; i++) {
        a[i] = sc[i] / sqrt(var[i] + eps);
        b[i] = bi[i] - mu[i] * a[i];
    }
    int x = lower_in(c, n, 0);
    int ka = x < 0 ? -1 : channel_const(c, "bn_scale", X->rank, ch, a);
    int kb = ka < 0 ? -1 : channel_const(c, "bn_bias", X->rank, ch, b);
    free(p);
    int y = kb < 0 ? -1 : lower_out(c, n, 0);
    return la_binary(c, TOSA_OP_ADD, la_binary(c, TOSA_OP_MUL, x, ka, -1), kb, y) < 0
               ? lx_code(c) : TOSAC_OK;
}

/* Sum of x over axes [first, rank), each kept with size 1. */
static int reduce_sum(lower_ctx *c, int x, int first, int rank)
{
    for (int a = first; a < rank && x >= 0; a++)
        x = la_reduce(c, TOSA_OP_REDUCE_SUM, x, a, -1);
    return x;
}

/* (x - mean) * rsqrt(var + eps) over axes [first, rank); mean / inv_std written to those
 * tensors when >= 0. Returns the normalized tensor. */
static int normalize(lower_ctx *c, int x, int first, int rank, double eps, int mean_out,
                     int inv_out)
{
    int64_t count = 1;
    for (int a = first; x >= 0 && a < rank; a++)
        count *= lower_shape(c, x)[a];
    double inv_n = 1.0 / (double)count;
    int mean = la_binary(c, TOSA_OP_MUL, reduce_sum(c, x, first, rank), la_like(c, x, inv_n),
                         mean_out);
    int d = la_binary(c, TOSA_OP_SUB, x, mean, -1);
    int sq = la_binary(c, TOSA_OP_MUL, d, d, -1);
    int var = la_binary(c, TOSA_OP_MUL, reduce_sum(c, sq, first, rank), la_like(c, x, inv_n), -1);
    int inv = la_unary(c, TOSA_OP_RSQRT, la_binary(c, TOSA_OP_ADD, var, la_like(c, x, eps), -1),
                       inv_out);
    return la_binary(c, TOSA_OP_MUL, d, inv, -1);
}

static int optional_out(lower_ctx *c, const ir_node *n, int i)
{
    return i < n->n_outputs && n->outputs[i] >= 0 ? lower_out(c, n, i) : -1;
}

static tosac_code lower_layernorm(lower_ctx *c, const ir_node *n)
{
    tosac_code rc = check_float(c, n);
    if (rc)
        return rc;
    const ir_tensor *X = lower_in_ir(c, n, 0);
    int r = X->rank;
    int64_t axis = ir_node_attr_int(n, "axis", -1);
    if (axis < -r || axis >= r)
        return lx_unsupported(c, n, "axis %lld out of range", (long long)axis);
    if (axis < 0)
        axis += r;
    for (int i = 1; i < n->n_outputs; i++) {
        const ir_tensor *o = lower_out_ir(c, n, i);
        if (o && o->dtype != TOSAC_DT_F32)
            return lx_unsupported(c, n, "%s statistics output", tosac_dtype_name(o->dtype));
    }
    double eps = ir_node_attr_float(n, "epsilon", 1e-5f);
    int x = lower_in(c, n, 0);
    int mean_out = x < 0 ? -1 : optional_out(c, n, 1);
    int inv_out = x < 0 ? -1 : optional_out(c, n, 2);
    int v = normalize(c, x, (int)axis, r, eps, mean_out, inv_out);
    int scale = lower_broadcast_rank(c, v < 0 ? -1 : lower_in(c, n, 1), r);
    bool has_b = n->n_inputs > 2 && n->inputs[2] >= 0;
    int bias = has_b ? lower_broadcast_rank(c, scale < 0 ? -1 : lower_in(c, n, 2), r) : -1;
    int y = scale < 0 || (has_b && bias < 0) ? -1 : lower_out(c, n, 0);
    if (y < 0)
        return lx_code(c);
    if (!has_b)
        return la_binary(c, TOSA_OP_MUL, v, scale, y) < 0 ? lx_code(c) : TOSAC_OK;
    return la_binary(c, TOSA_OP_ADD, la_binary(c, TOSA_OP_MUL, v, scale, -1), bias, y) < 0
               ? lx_code(c) : TOSAC_OK;
}

static tosac_code lower_instancenorm(lower_ctx *c, const ir_node *n)
{
    tosac_code rc = check_float(c, n);
    if (rc)
        return rc;
    const ir_tensor *X = lower_in_ir(c, n, 0);
    if (X->rank < 3 || n->n_inputs < 3)
        return lx_unsupported(c, n, "needs [N, C, D1, ..], scale and bias");
    int64_t ch = X->shape[1];
    double *p = malloc((size_t)ch * 2 * sizeof *p);
    if (!p)
        return tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory");
    if (!const_floats(c, n, 1, ch, p) || !const_floats(c, n, 2, ch, p + ch)) {
        free(p);
        return lx_unsupported(c, n, "scale/bias are not f32 constants of %lld values",
                              (long long)ch);
    }
    double eps = ir_node_attr_float(n, "epsilon", 1e-5f);
    int x = lower_in(c, n, 0);
    int v = normalize(c, x, 2, X->rank, eps, -1, -1);
    int ks = v < 0 ? -1 : channel_const(c, "in_scale", X->rank, ch, p);
    int kb = ks < 0 ? -1 : channel_const(c, "in_bias", X->rank, ch, p + ch);
    free(p);
    int y = kb < 0 ? -1 : lower_out(c, n, 0);
    return la_binary(c, TOSA_OP_ADD, la_binary(c, TOSA_OP_MUL, v, ks, -1), kb, y) < 0
               ? lx_code(c) : TOSAC_OK;
}

const lower_rule lower_rules_norm[] = {
    {IR_DOMAIN_ONNX, "BatchNormalization", lower_batchnorm, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "LayerNormalization", lower_layernorm, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "InstanceNormalization", lower_instancenorm, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
