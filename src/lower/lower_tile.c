/* Tile, Expand, DepthToSpace, SpaceToDepth.
 *
 * Tile -> TILE with the constant repeats. Expand broadcasts to a shape: the input is first
 * reshaped to the output rank (leading 1s, ONNX broadcasting from the right), then TILEd by
 * out_dim / in_dim on each axis whose size grows. DepthToSpace / SpaceToDepth are pure data
 * movement in NCHW: RESHAPE to rank 6, TRANSPOSE, RESHAPE back (DCR and CRD orders differ
 * only in where the block dims sit in the channel dim). Quantized tensors move unchanged. */
#include <string.h>

#include "lower/lower_extra.h"

static int emit_tile(lower_ctx *c, int t, const int64_t *mult, int out)
{
    if (t < 0)
        return -1;
    int r = lower_rank(c, t);
    int64_t shape[TOSAC_MAX_RANK];
    for (int d = 0; d < r; d++)
        shape[d] = lower_shape(c, t)[d] * mult[d];
    int m = lower_const_shape(c, "multiples", r, mult);
    if (out < 0)
        out = lower_tmp(c, "tile", lower_dtype(c, t), r, shape);
    int ins[2] = {t, m};
    return m < 0 || out < 0 || lower_emit(c, TOSA_OP_TILE, NULL, ins, 2, &out, 1) ? -1 : out;
}

/* The node's input and output, which must share their quantization (data only moves). */
static tosac_code io_tensors(lower_ctx *c, const ir_node *n, const ir_tensor **xp,
                             const ir_tensor **yp)
{
    const ir_tensor *x = *xp = lower_in_ir(c, n, 0), *y = *yp = lower_out_ir(c, n, 0);
    if (!x || !y)
        return lx_unsupported(c, n, "needs an input and an output");
    if ((lower_is_quantized(x) || lower_is_quantized(y)) && !lx_same_quant(x, y))
        return lx_unsupported(c, n, "input and output quantization differ");
    return TOSAC_OK;
}

static tosac_code lower_tile(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *x, *y;
    tosac_code rc = io_tensors(c, n, &x, &y);
    if (rc)
        return rc;
    int64_t rep[TOSAC_MAX_RANK];
    int cnt = 0;
    if (!lx_const_ints(c, n, 1, rep, TOSAC_MAX_RANK, &cnt) || cnt != x->rank)
        return lx_unsupported(c, n, "repeats must be a constant of %d integers", x->rank);
    for (int d = 0; d < cnt; d++)
        if (rep[d] < 1)
            return lx_unsupported(c, n, "repeat %lld on axis %d", (long long)rep[d], d);
    int in = lower_in(c, n, 0);
    int out = in < 0 ? -1 : lower_out(c, n, 0);
    return emit_tile(c, in, rep, out) < 0 ? lx_code(c) : TOSAC_OK;
}

static tosac_code lower_expand(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *x, *y;
    tosac_code rc = io_tensors(c, n, &x, &y);
    if (rc)
        return rc;
    if (y->rank < x->rank)
        return lx_unsupported(c, n, "output rank %d below the input's %d", y->rank, x->rank);
    int t = lower_broadcast_rank(c, lower_in(c, n, 0), y->rank);
    if (t < 0)
        return lx_code(c);
    int64_t mult[TOSAC_MAX_RANK];
    bool grows = false;
    for (int d = 0; d < y->rank; d++) {
        int64_t have = lower_shape(c, t)[d];
        if (have != y->shape[d] && have != 1)
            return lx_unsupported(c, n, "dim %d: %lld does not broadcast to %lld", d,
                                  (long long)have, (long long)y->shape[d]);
        mult[d] = have == y->shape[d] ? 1 : y->shape[d];
        grows |= mult[d] != 1;
    }
    int out = lower_out(c, n, 0);
    int res = grows ? emit_tile(c, t, mult, out) : lx_identity(c, t, out);
    return res < 0 ? lx_code(c) : TOSAC_OK;
}

/* RESHAPE to six dims, TRANSPOSE by perm, RESHAPE into the output. */
static tosac_code shuffle(lower_ctx *c, const ir_node *n, const int64_t *six, const int32_t *perm)
{
    const ir_tensor *y = lower_out_ir(c, n, 0);
    int t = lower_reshape(c, lower_in(c, n, 0), 6, six, -1);
    t = lower_transpose(c, t, perm, -1);
    int out = t < 0 ? -1 : lower_out(c, n, 0);
    return out < 0 || lower_reshape(c, t, y->rank, y->shape, out) < 0 ? lx_code(c) : TOSAC_OK;
}

static tosac_code space_depth_check(lower_ctx *c, const ir_node *n, int64_t *b)
{
    const ir_tensor *x, *y;
    tosac_code rc = io_tensors(c, n, &x, &y);
    if (rc)
        return rc;
    if (x->rank != 4 || y->rank != 4)
        return lx_unsupported(c, n, "needs rank-4 NCHW input and output");
    *b = ir_node_attr_int(n, "blocksize", 0);
    if (*b < 1)
        return lx_unsupported(c, n, "blocksize %lld", (long long)*b);
    return TOSAC_OK;
}

static tosac_code lower_depth_to_space(lower_ctx *c, const ir_node *n)
{
    int64_t b = 0;
    tosac_code rc = space_depth_check(c, n, &b);
    if (rc)
        return rc;
    const int64_t *s = lower_in_ir(c, n, 0)->shape;
    if (s[1] % (b * b))
        return lx_unsupported(c, n, "channels %lld not a multiple of blocksize^2",
                              (long long)s[1]);
    int64_t cc = s[1] / (b * b);
    const char *mode = ir_node_attr_string(n, "mode", "DCR");
    if (strcmp(mode, "DCR") == 0) {
        const int64_t six[6] = {s[0], b, b, cc, s[2], s[3]};
        static const int32_t perm[6] = {0, 3, 4, 1, 5, 2};
        return shuffle(c, n, six, perm);
    }
    if (strcmp(mode, "CRD") == 0) {
        const int64_t six[6] = {s[0], cc, b, b, s[2], s[3]};
        static const int32_t perm[6] = {0, 1, 4, 2, 5, 3};
        return shuffle(c, n, six, perm);
    }
    return lx_unsupported(c, n, "mode '%s'", mode);
}

static tosac_code lower_space_to_depth(lower_ctx *c, const ir_node *n)
{
    int64_t b = 0;
    tosac_code rc = space_depth_check(c, n, &b);
    if (rc)
        return rc;
    const int64_t *s = lower_in_ir(c, n, 0)->shape;
    if (s[2] % b || s[3] % b)
        return lx_unsupported(c, n, "spatial dims not multiples of blocksize");
    const int64_t six[6] = {s[0], s[1], s[2] / b, b, s[3] / b, b};
    static const int32_t perm[6] = {0, 3, 5, 1, 2, 4};
    return shuffle(c, n, six, perm);
}

const lower_rule lower_rules_tile[] = {
    {IR_DOMAIN_ONNX, "Tile", lower_tile, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Expand", lower_expand, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "DepthToSpace", lower_depth_to_space, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "SpaceToDepth", lower_space_to_depth, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
