/* Gather and GatherElements through TOSA GATHER (values [N,K,C], indices [N,W] -> [N,W,C]).
 *
 * Gather on axis a: N = prod(dims before a), K = dims[a], C = prod(dims after a); the
 * indices are flattened to W values and repeated for each of the N rows (TILE for runtime
 * indices). GatherElements gathers single elements: values become [1, numel, 1] and each
 * output position gets the flat offset of its source element (base offset of its other
 * coordinates + index * stride of the axis), computed at compile time for constant indices.
 * ONNX allows negative indices; constant ones are normalised here, runtime ones get
 * idx + K where idx < 0 (GREATER, ADD, SELECT; under a profile with no int32 arithmetic,
 * TOSA-1.0+FP, in f32 between two CASTs). Gather with constant data and indices is
 * folded into a CONST. Quantized data keeps its integers (a RESCALE follows only if the
 * output quantization differs). */
#include <stdlib.h>
#include <string.h>

#include "lower/lower_extra.h"

/* Element i of an integer host tensor. */
static bool index_type_ok(tosac_dtype dt)
{
    return dt == TOSAC_DT_I8 || dt == TOSAC_DT_I16 || dt == TOSAC_DT_I32 || dt == TOSAC_DT_I64;
}

/* Constant indices normalised into [0, k): false (err set) when one is out of range. */
static bool normalise(lower_ctx *c, const ir_node *n, const tosac_tensor *ix, int64_t k,
                      int32_t *out, int64_t count)
{
    for (int64_t i = 0; i < count; i++) {
        int64_t v = tosac_tensor_int_at(ix, i);
        if (v < -k || v >= k) {
            lx_unsupported(c, n, "index %lld out of range [-%lld, %lld)", (long long)v,
                           (long long)k, (long long)k);
            return false;
        }
        out[i] = (int32_t)(v < 0 ? v + k : v);
    }
    return true;
}

/* Runtime indices idx (any shape) as GATHER takes them: int8/int16 widened to int32, and
 * idx + k where idx < 0 (in idx's type: int32, or f32 under PRO-FP alone). */
static int fix_negative(lower_ctx *c, int idx, int64_t k)
{
    if (idx < 0)
        return -1;
    tosac_dtype dt = lower_dtype(c, idx);
    if (dt == TOSAC_DT_I8 || dt == TOSAC_DT_I16)
        idx = lx_cast(c, idx, dt = TOSAC_DT_I32, -1);
    int r = lower_rank(c, idx);
    int zero = lx_fill(c, "zero", dt, r, 0.0), kk = lx_fill(c, "k", dt, r, (double)k);
    int neg = lx_binary(c, TOSA_OP_GREATER, zero, idx, TOSAC_DT_BOOL, -1);
    return lx_select(c, neg, lx_binary(c, TOSA_OP_ADD, idx, kk, TOSAC_DT_UNKNOWN, -1), idx, -1);
}

/* GATHER of values [N,K,C] by indices [N,W], then RESHAPE (and RESCALE) into the output. */
static tosac_code gather_into(lower_ctx *c, const ir_node *n, int values, int idx)
{
    const ir_tensor *x = lower_in_ir(c, n, 0), *y = lower_out_ir(c, n, 0);
    if (values < 0 || idx < 0)
        return lx_code(c);
    /* TOSA 1.1 gathers int64 values (EXT-INT64) only with int64 indices */
    if (lower_dtype(c, values) == TOSAC_DT_I64 && lower_dtype(c, idx) != TOSAC_DT_I64 &&
        (idx = lx_cast(c, idx, TOSAC_DT_I64, -1)) < 0)
        return lx_code(c);
    int64_t shape[3] = {lower_shape(c, values)[0], lower_shape(c, idx)[1],
                        lower_shape(c, values)[2]};
    int g = lower_tmp(c, "gather", lower_dtype(c, values), 3, shape);
    int ins[2] = {values, idx};
    if (g < 0 || lower_emit(c, TOSA_OP_GATHER, NULL, ins, 2, &g, 1))
        return lx_code(c);
    if (lower_is_quantized(y) && !lx_same_quant(x, y)) {
        if (lx_check_quant(c, n, x) || lx_check_quant(c, n, y))
            return lx_code(c);
        g = lx_rescale(c, g, lower_qscale(x) / lower_qscale(y), lower_qzp(x), lower_qzp(y),
                       y->dtype, -1);
    }
    int out = g < 0 ? -1 : lower_out(c, n, 0);
    return out < 0 || lower_reshape(c, g, y->rank, y->shape, out) < 0 ? lx_code(c) : TOSAC_OK;
}

/* Both operands constant: the output is computed here. */
static tosac_code fold(lower_ctx *c, const ir_node *n, const tosac_tensor *dv,
                       const tosac_tensor *iv, int64_t outer, int64_t k, int64_t inner)
{
    const ir_tensor *y = lower_out_ir(c, n, 0);
    int64_t w = tosac_tensor_numel(iv);
    size_t es = tosac_dtype_size(dv->dtype);
    int32_t *ix = malloc((size_t)(w ? w : 1) * sizeof *ix);
    int64_t total = outer * w * inner;
    uint8_t *buf = malloc((size_t)(total > 0 ? total : 1) * es);
    tosac_code rc = TOSAC_OK;
    if (!ix || !buf)
        rc = tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory folding Gather");
    else if (!normalise(c, n, iv, k, ix, w))
        rc = lx_code(c);
    for (int64_t o = 0; !rc && o < outer; o++)
        for (int64_t j = 0; j < w; j++)
            memcpy(buf + (size_t)((o * w + j) * inner) * es,
                   (const uint8_t *)dv->data + (size_t)((o * k + ix[j]) * inner) * es,
                   (size_t)inner * es);
    if (!rc) {
        int t = lower_const(c, y->name, y->dtype, y->rank, y->shape, buf);
        if (t < 0)
            rc = lx_code(c);
        else
            c->tmap[n->outputs[0]] = t;
    }
    free(ix);
    free(buf);
    return rc;
}

static tosac_code lower_gather(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *x = lower_in_ir(c, n, 0), *ind = lower_in_ir(c, n, 1),
                    *y = lower_out_ir(c, n, 0);
    if (n->n_inputs != 2 || !x || !ind || !y)
        return lx_unsupported(c, n, "needs data, indices and an output");
    if (!index_type_ok(ind->dtype))
        return lx_unsupported(c, n, "%s indices", tosac_dtype_name(ind->dtype));
    int axis = lx_axis(ir_node_attr_int(n, "axis", 0), x->rank);
    if (axis < 0)
        return lx_unsupported(c, n, "axis out of range for rank %d", x->rank);
    int64_t outer = 1, inner = 1, k = x->shape[axis];
    for (int d = 0; d < axis; d++)
        outer *= x->shape[d];
    for (int d = axis + 1; d < x->rank; d++)
        inner *= x->shape[d];
    int64_t w = tosac_shape_numel(ind->rank, ind->shape);
    if (k > INT32_MAX || w * outer > INT32_MAX)
        return lx_unsupported(c, n, "more than 2^31 indices");
    tosac_tensor dv, iv;
    bool const_ix = lower_in_const(c, n, 1, &iv);
    if (const_ix && lower_in_const(c, n, 0, &dv) && dv.dtype == y->dtype)
        return fold(c, n, &dv, &iv, outer, k, inner);

    int64_t vshape[3] = {outer, k, inner};
    int values = lower_reshape(c, lower_in(c, n, 0), 3, vshape, -1);
    int idx;
    int64_t ishape[2] = {outer, w};
    if (const_ix) {
        int64_t total = outer * w;
        int32_t *ix = malloc((size_t)(total > 0 ? total : 1) * sizeof *ix);
        if (!ix)
            return tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory lowering Gather");
        bool ok = normalise(c, n, &iv, k, ix, w);
        for (int64_t o = 1; ok && o < outer; o++)
            memcpy(ix + o * w, ix, (size_t)w * sizeof *ix);
        idx = ok ? lower_const(c, "indices", TOSAC_DT_I32, 2, ishape, ix) : -1;
        free(ix);
    } else {
        int64_t row[2] = {1, w}, mult[2] = {outer, 1};
        /* PRO-FP has no int32 RESHAPE, TILE, GREATER or SELECT: there the indices are
         * prepared in f32 (exact below 2^24; beyond it an index out of range stays out of
         * range) and cast back for GATHER */
        bool via_f32 = !tosa_spec_supports_integer(c->spec) && ind->dtype != TOSAC_DT_I64;
        if (via_f32 && k > (1 << 24))
            return lx_unsupported(c, n, "runtime indices into an axis of %lld under a profile "
                                  "without int32 arithmetic (computed in f32: exact to 2^24)",
                                  (long long)k);
        idx = lower_in(c, n, 1);
        if (via_f32 && idx >= 0)
            idx = lx_cast(c, idx, TOSAC_DT_F32, -1);
        idx = fix_negative(c, idx < 0 ? -1 : lower_reshape(c, idx, 2, row, -1), k);
        if (idx >= 0 && outer > 1) {
            int m = lower_const_shape(c, "multiples", 2, mult);
            int t = m < 0 ? -1 : lower_tmp(c, "indices", lower_dtype(c, idx), 2, ishape);
            int ins[2] = {idx, m};
            idx = t < 0 || lower_emit(c, TOSA_OP_TILE, NULL, ins, 2, &t, 1) ? -1 : t;
        }
        if (via_f32 && idx >= 0)
            idx = lx_cast(c, idx, TOSAC_DT_I32, -1);
    }
    return gather_into(c, n, values, idx);
}

/* Flat offsets of every output position with its axis coordinate zeroed. */
static void base_offsets(const ir_tensor *x, const ir_tensor *ind, int axis, int32_t *base)
{
    int64_t w = tosac_shape_numel(ind->rank, ind->shape);
    int64_t stride[TOSAC_MAX_RANK];
    int64_t s = 1;
    for (int d = x->rank - 1; d >= 0; d--) {
        stride[d] = s;
        s *= x->shape[d];
    }
    for (int64_t p = 0; p < w; p++) {
        int64_t rem = p, off = 0;
        for (int d = ind->rank - 1; d >= 0; d--) {
            int64_t coord = rem % ind->shape[d];
            rem /= ind->shape[d];
            if (d != axis)
                off += coord * stride[d];
        }
        base[p] = (int32_t)off;
    }
}

static tosac_code lower_gather_elements(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *x = lower_in_ir(c, n, 0), *ind = lower_in_ir(c, n, 1);
    if (n->n_inputs != 2 || !x || !ind || !lower_out_ir(c, n, 0))
        return lx_unsupported(c, n, "needs data, indices and an output");
    if (!index_type_ok(ind->dtype) || ind->rank != x->rank)
        return lx_unsupported(c, n, "indices must be integers of the data's rank");
    int axis = lx_axis(ir_node_attr_int(n, "axis", 0), x->rank);
    if (axis < 0)
        return lx_unsupported(c, n, "axis out of range for rank %d", x->rank);
    int64_t total = tosac_shape_numel(x->rank, x->shape), k = x->shape[axis];
    int64_t w = tosac_shape_numel(ind->rank, ind->shape);
    if (total > INT32_MAX || w > INT32_MAX)
        return lx_unsupported(c, n, "more than 2^31 elements");
    for (int d = 0; d < x->rank; d++)
        if (d != axis && ind->shape[d] > x->shape[d])
            return lx_unsupported(c, n, "indices dim %d exceeds the data's", d);
    int64_t stride = 1;
    for (int d = axis + 1; d < x->rank; d++)
        stride *= x->shape[d];
    int32_t *base = malloc((size_t)(w ? w : 1) * sizeof *base);
    if (!base)
        return tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory lowering GatherElements");
    base_offsets(x, ind, axis, base);
    int64_t vshape[3] = {1, total, 1}, ishape[2] = {1, w};
    int values = lower_reshape(c, lower_in(c, n, 0), 3, vshape, -1);
    int idx = -1;
    tosac_tensor iv;
    if (lower_in_const(c, n, 1, &iv)) {
        int32_t *ix = malloc((size_t)(w ? w : 1) * sizeof *ix);
        if (ix && normalise(c, n, &iv, k, ix, w)) {
            for (int64_t p = 0; p < w; p++)
                ix[p] = (int32_t)(base[p] + ix[p] * stride);
            idx = lower_const(c, "indices", TOSAC_DT_I32, 2, ishape, ix);
        } else if (!ix) {
            tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory lowering GatherElements");
        }
        free(ix);
    } else {
        int t = fix_negative(c, lower_reshape(c, lower_in(c, n, 1), 2, ishape, -1), k);
        tosac_dtype dt = t < 0 ? TOSAC_DT_I32 : lower_dtype(c, t);
        if (t >= 0 && stride != 1)
            t = lx_binary(c, TOSA_OP_MUL, t, lx_fill(c, "stride", dt, 2, (double)stride),
                          TOSAC_DT_UNKNOWN, -1);
        int b = -1;
        if (dt == TOSAC_DT_I32) {
            b = lower_const(c, "base", TOSAC_DT_I32, 2, ishape, base);
        } else { /* i64 indices (1.1 EXT-INT64): the offsets in the same type */
            int64_t *b64 = malloc((size_t)(w ? w : 1) * sizeof *b64);
            for (int64_t p = 0; b64 && p < w; p++)
                b64[p] = base[p];
            b = b64 ? lower_const(c, "base", dt, 2, ishape, b64)
                    : (tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory"), -1);
            free(b64);
        }
        idx = lx_binary(c, TOSA_OP_ADD, t, b, TOSAC_DT_UNKNOWN, -1);
    }
    free(base);
    return gather_into(c, n, values, idx);
}

const lower_rule lower_rules_gather[] = {
    {IR_DOMAIN_ONNX, "Gather", lower_gather, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "GatherElements", lower_gather_elements, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
