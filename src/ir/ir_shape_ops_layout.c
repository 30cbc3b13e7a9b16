/* Static shape rules of data layout, indexing and encodings (ONNX semantics): DepthToSpace,
 * SpaceToDepth, GatherElements, GatherND, OneHot, EyeLike, and the operators whose output
 * sizes depend on the values (Unique, NonMaxSuppression, NonZero, Compress), which keep a
 * declared static shape or fail naming the reason. */
#include "ir_shape.h"

#include <string.h>

#define NODE (&c->g->nodes[node])

static tosac_code r_depth_space(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    int64_t b = ir_node_attr_int(NODE, "blocksize", 0);
    if (x->rank != 4)
        return sh_bad(c, node, "input must be 4-D");
    if (b < 1 || b > 4096)
        return sh_bad(c, node, "blocksize must be positive");
    int64_t out[4] = {x->shape[0], 0, 0, 0};
    bool fits;
    if (strcmp(NODE->op_type, "DepthToSpace") == 0) {
        if (x->shape[1] % (b * b))
            return sh_bad(c, node, "inconsistent shapes: channels not divisible by blocksize^2");
        out[1] = x->shape[1] / (b * b);
        fits = sh_mul(x->shape[2], b, &out[2]) && sh_mul(x->shape[3], b, &out[3]);
    } else {
        if (x->shape[2] % b || x->shape[3] % b)
            return sh_bad(c, node, "inconsistent shapes: height/width not divisible by blocksize");
        fits = sh_mul(x->shape[1], b * b, &out[1]);
        out[2] = x->shape[2] / b;
        out[3] = x->shape[3] / b;
    }
    if (!fits)
        return sh_overflow(c, node, "the output size");
    return sh_set(c, node, 0, x->dtype, 4, out);
}

/* Output = indices' shape, data's type. */
static tosac_code r_gather_elements(shape_ctx *c, int node)
{
    const ir_tensor *x, *idx;
    if (sh_need(c, node, 0, &x) || sh_need(c, node, 1, &idx))
        return c->err->code;
    if (idx->rank != x->rank)
        return sh_bad(c, node, "inconsistent shapes: indices rank differs from data rank");
    return sh_set(c, node, 0, x->dtype, idx->rank, idx->shape);
}

/* indices.shape[:-1] + data.shape[batch_dims + indices.shape[-1]:] */
static tosac_code r_gather_nd(shape_ctx *c, int node)
{
    const ir_tensor *x, *idx;
    if (sh_need(c, node, 0, &x) || sh_need(c, node, 1, &idx))
        return c->err->code;
    int64_t b = ir_node_attr_int(NODE, "batch_dims", 0);
    if (idx->rank < 1 || b < 0 || b >= idx->rank || b >= x->rank)
        return sh_bad(c, node, "batch_dims out of range");
    int64_t k = idx->shape[idx->rank - 1];
    if (k < 1 || b + k > x->rank)
        return sh_bad(c, node, "indices' last dimension exceeds the data rank");
    int64_t out[TOSAC_MAX_RANK * 2];
    int r = 0;
    for (int d = 0; d < idx->rank - 1; d++)
        out[r++] = idx->shape[d];
    for (int64_t d = b + k; d < x->rank; d++)
        out[r++] = x->shape[d];
    return sh_set(c, node, 0, x->dtype, r, out);
}


/* indices' shape with depth inserted at axis; the values' type. */
static tosac_code r_one_hot(shape_ctx *c, int node)
{
    const ir_tensor *idx, *vals;
    int64_t depth;
    if (sh_need(c, node, 0, &idx) || sh_need(c, node, 2, &vals) || sh_scalar_int(c, node, 1, &depth))
        return c->err->code;
    if (depth == SH_UNKNOWN)
        return TOSAC_OK;
    if (depth < 1)
        return sh_bad(c, node, "depth must be positive");
    int r = idx->rank + 1;
    int64_t axis = ir_node_attr_int(NODE, "axis", -1);
    int ax = (int)(axis < 0 ? axis + r : axis);
    if (ax < 0 || ax >= r || r > TOSAC_MAX_RANK)
        return sh_bad(c, node, "axis out of range");
    int64_t out[TOSAC_MAX_RANK];
    for (int d = 0, s = 0; d < r; d++)
        out[d] = d == ax ? depth : idx->shape[s++];
    return sh_set(c, node, 0, vals->dtype, r, out);
}

static tosac_code r_eye_like(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    if (x->rank != 2)
        return sh_bad(c, node, "input must be 2-D");
    int64_t code = ir_node_attr_int(NODE, "dtype", 0);
    tosac_dtype dt = code ? sh_onnx_dtype(code) : x->dtype;
    if (dt == TOSAC_DT_UNKNOWN)
        return sh_fail(c, node, "unsupported 'dtype'");
    return sh_set(c, node, 0, dt, 2, x->shape);
}


/* The output sizes depend on the input values: only declared shapes can be used. */
static tosac_code r_data_dependent(shape_ctx *c, int node)
{
    for (int k = 0; k < NODE->n_outputs; k++)
        if (sh_declared_or_fail(c, node, k, "the output size depends on the input values"))
            return c->err->code;
    return TOSAC_OK;
}

const shape_rule_row ir_shape_rules_layout[] = {
    {"DepthToSpace", r_depth_space}, {"SpaceToDepth", r_depth_space},
    {"GatherElements", r_gather_elements}, {"GatherND", r_gather_nd},
    {"OneHot", r_one_hot}, {"EyeLike", r_eye_like},
    {"Unique", r_data_dependent}, {"NonMaxSuppression", r_data_dependent},
    {"NonZero", r_data_dependent}, {"Compress", r_data_dependent},
    {NULL, NULL},
};
