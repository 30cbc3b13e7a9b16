/* Data layout: Reshape, Flatten, Squeeze, Unsqueeze (RESHAPE), Transpose (TRANSPOSE), Concat
 * (CONCAT), Split (one SLICE per output), Slice (SLICE, with REVERSE for step -1).
 *
 * The output shapes are static (shape inference ran), so shape-like operands (Reshape's shape,
 * Squeeze axes, Split sizes) only have to be constants (the rules' LOWER_CONST_FROM1
 * precondition: a runtime shape would become a delegate input no operator reads): the
 * lowering reads the result shapes.
 * Quantized values pass through with their parameters; when an output's quantization differs
 * from its input's (a QDQ graph may requantize at any edge), a RESCALE to the output's
 * parameters follows (Concat rescales each input that differs before concatenating). */
#include <string.h>

#include "lower/lower.h"
#include "lower/lower_extra.h"

static bool same_quant(const ir_tensor *a, const ir_tensor *b)
{
    bool qa = lower_is_quantized(a), qb = lower_is_quantized(b);
    if (!qa || !qb)
        return qa == qb;
    return a->dtype == b->dtype && a->quant->n == 1 && b->quant->n == 1 &&
           a->quant->scale[0] == b->quant->scale[0] &&
           a->quant->zero_point[0] == b->quant->zero_point[0];
}

/* A RESCALE from x's to y's per-tensor quantization (t holds x's values). */
static int requantize(lower_ctx *c, const ir_node *n, int t, const ir_tensor *x,
                      const ir_tensor *y, int out)
{
    if (!lower_is_quantized(x) || !lower_is_quantized(y) || x->quant->n != 1 ||
        y->quant->n != 1) {
        lx_unsupported(c, n, "input and output are not both quantized per tensor");
        return -1;
    }
    double s = lower_qscale(x) / lower_qscale(y);
    lower_rescale_args ra = {y->dtype, &s, 1, lower_qzp(x), lower_qzp(y), out, "requant"};
    return lower_rescale(c, t, &ra);
}

/* The tensor a data-movement operator should write for output slot i: the node's output, or
 * (when the quantization changes) a temporary that finish_out rescales into it. */
static int begin_out(lower_ctx *c, const ir_node *n, const ir_tensor *x, int i)
{
    const ir_tensor *y = lower_out_ir(c, n, i);
    if (!y) {
        lx_unsupported(c, n, "missing output");
        return -1;
    }
    if (same_quant(x, y))
        return lower_out(c, n, i);
    return lower_tmp(c, "moved", x->dtype, y->rank, y->shape);
}

static tosac_code finish_out(lower_ctx *c, const ir_node *n, const ir_tensor *x, int i, int t)
{
    const ir_tensor *y = lower_out_ir(c, n, i);
    if (same_quant(x, y))
        return TOSAC_OK;
    int out = lower_out(c, n, i);
    return out < 0 || requantize(c, n, t, x, y, out) < 0 ? c->err->code : TOSAC_OK;
}

/* Any operator whose output is its input with another shape. */
static tosac_code lower_to_reshape(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *x = lower_in_ir(c, n, 0), *y = lower_out_ir(c, n, 0);
    if (!x || !y)
        return lx_unsupported(c, n, "missing input or output");
    int in = lower_in(c, n, 0);
    int dst = in < 0 ? -1 : begin_out(c, n, x, 0);
    if (dst < 0 || lower_reshape(c, in, y->rank, y->shape, dst) < 0)
        return c->err->code;
    return finish_out(c, n, x, 0, dst);
}

static tosac_code lower_transpose_node(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *x = lower_in_ir(c, n, 0), *y = lower_out_ir(c, n, 0);
    if (!x || !y || x->rank != y->rank)
        return lx_unsupported(c, n, "missing input or output");
    int32_t perms[TOSAC_MAX_RANK];
    int cnt;
    const int64_t *p = ir_node_attr_ints(n, "perm", &cnt);
    if (p && cnt != x->rank)
        return lx_unsupported(c, n, "perm does not match the rank");
    for (int i = 0; i < x->rank; i++) {
        int64_t v = p ? p[i] : x->rank - 1 - i; /* default: reverse the dimensions */
        if (v < 0 || v >= x->rank)
            return lx_unsupported(c, n, "perm entry out of range");
        perms[i] = (int32_t)v;
    }
    int in = lower_in(c, n, 0);
    int dst = in < 0 ? -1 : begin_out(c, n, x, 0);
    if (dst < 0 || lower_transpose(c, in, perms, dst) < 0)
        return c->err->code;
    return finish_out(c, n, x, 0, dst);
}

static int norm_axis(int64_t axis, int rank)
{
    if (axis < 0)
        axis += rank;
    return axis < 0 || axis >= rank ? -1 : (int)axis;
}

static tosac_code lower_concat(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *y = lower_out_ir(c, n, 0);
    if (!y || n->n_inputs < 1 || n->n_inputs > 64)
        return lx_unsupported(c, n, "needs 1 to 64 inputs and an output");
    int axis = norm_axis(ir_node_attr_int(n, "axis", 0), y->rank);
    if (axis < 0)
        return lx_unsupported(c, n, "axis out of range");
    int ins[64];
    for (int i = 0; i < n->n_inputs; i++) {
        const ir_tensor *x = lower_in_ir(c, n, i);
        if (!x)
            return lx_unsupported(c, n, "an input is missing");
        ins[i] = lower_in(c, n, i);
        if (ins[i] >= 0 && !same_quant(x, y))
            ins[i] = requantize(c, n, ins[i], x, y, -1);
        if (ins[i] < 0)
            return c->err->code;
    }
    int out = lower_out(c, n, 0);
    if (out < 0)
        return c->err->code;
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.axis = axis;
    return lower_emit(c, TOSA_OP_CONCAT, &a, ins, n->n_inputs, &out, 1);
}

/* SLICE of t: start[] and the size of result `dst` (rank r). */
static tosac_code emit_slice(lower_ctx *c, int t, int r, const int64_t *start, int dst)
{
    int64_t size[TOSAC_MAX_RANK];
    memcpy(size, lower_shape(c, dst), (size_t)r * sizeof *size);
    int st = lower_const_shape(c, "start", r, start);
    int sz = lower_const_shape(c, "size", r, size);
    if (st < 0 || sz < 0)
        return c->err->code;
    int ins[3] = {t, st, sz};
    return lower_emit(c, TOSA_OP_SLICE, NULL, ins, 3, &dst, 1);
}

static tosac_code lower_split(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *x = lower_in_ir(c, n, 0);
    if (!x)
        return lx_unsupported(c, n, "missing input");
    int axis = norm_axis(ir_node_attr_int(n, "axis", 0), x->rank);
    if (axis < 0)
        return lx_unsupported(c, n, "axis out of range");
    int in = lower_in(c, n, 0);
    if (in < 0)
        return c->err->code;
    /* the outputs' static shapes tell the sizes, whichever way Split was given them */
    int64_t start[TOSAC_MAX_RANK] = {0};
    for (int o = 0; o < n->n_outputs; o++) {
        const ir_tensor *y = lower_out_ir(c, n, o);
        if (!y || y->rank != x->rank)
            return lx_unsupported(c, n, "an output is missing or has another rank");
        if (start[axis] + y->shape[axis] > x->shape[axis])
            return lx_unsupported(c, n, "outputs larger than the input");
        int dst = begin_out(c, n, x, o);
        if (dst < 0 || emit_slice(c, in, x->rank, start, dst) || finish_out(c, n, x, o, dst))
            return c->err->code;
        start[axis] += y->shape[axis];
    }
    return TOSAC_OK;
}

/* Element i of a constant integer operand. */
static bool const_ints(lower_ctx *c, const ir_node *n, int slot, tosac_tensor *v)
{
    return slot < n->n_inputs && n->inputs[slot] >= 0 && lower_in_const(c, n, slot, v) &&
           (v->dtype == TOSAC_DT_I32 || v->dtype == TOSAC_DT_I64) && v->rank == 1;
}

static tosac_code lower_slice(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *x = lower_in_ir(c, n, 0), *y = lower_out_ir(c, n, 0);
    if (!x || !y || x->rank != y->rank || x->rank < 1)
        return lx_unsupported(c, n, "missing input or output");
    int r = x->rank;
    int64_t start[TOSAC_MAX_RANK] = {0}, step[TOSAC_MAX_RANK];
    for (int d = 0; d < r; d++)
        step[d] = 1;
    tosac_tensor st, en, ax, sp;
    int64_t n_sl;
    bool have_axes = false, have_steps = false;
    if (n->n_inputs >= 3) { /* opset >= 10: starts, ends, axes, steps as inputs */
        if (lower_check_const_params(c, n, LOWER_CONST_FROM1) || !const_ints(c, n, 1, &st) || !const_ints(c, n, 2, &en))
            return lx_unsupported(c, n, "starts/ends are not constant integer vectors");
        have_axes = const_ints(c, n, 3, &ax);
        have_steps = const_ints(c, n, 4, &sp);
        n_sl = tosac_tensor_numel(&st);
        if (tosac_tensor_numel(&en) != n_sl || (have_axes && tosac_tensor_numel(&ax) != n_sl) ||
            (have_steps && tosac_tensor_numel(&sp) != n_sl))
            return lx_unsupported(c, n, "starts/ends/axes/steps lengths differ");
        for (int64_t i = 0; i < n_sl; i++) {
            int d = norm_axis(have_axes ? tosac_tensor_int_at(&ax, i) : i, r);
            if (d < 0)
                return lx_unsupported(c, n, "axis out of range");
            int64_t s = have_steps ? tosac_tensor_int_at(&sp, i) : 1, dim = x->shape[d];
            int64_t b = tosac_tensor_int_at(&st, i);
            if (s != 1 && s != -1)
                return lx_unsupported(c, n, "steps other than 1 and -1");
            if (b < 0)
                b += dim;
            /* ONNX clamps starts to [0, dim] (step > 0) or [0, dim - 1] (step < 0) */
            int64_t hi = s > 0 ? dim : dim - 1;
            b = b < 0 ? 0 : b > hi ? hi : b;
            step[d] = s;
            /* after a REVERSE, element b is at dim - 1 - b */
            start[d] = s > 0 ? b : dim - 1 - b;
        }
    } else { /* opset < 10: attributes, steps 1 */
        int cs, ce, ca;
        const int64_t *as = ir_node_attr_ints(n, "starts", &cs);
        const int64_t *ae = ir_node_attr_ints(n, "ends", &ce);
        const int64_t *aa = ir_node_attr_ints(n, "axes", &ca);
        if (!as || !ae || cs != ce || (aa && ca != cs))
            return lx_unsupported(c, n, "starts/ends attributes missing or of different lengths");
        for (int i = 0; i < cs; i++) {
            int d = norm_axis(aa ? aa[i] : i, r);
            if (d < 0)
                return lx_unsupported(c, n, "axis out of range");
            int64_t b = as[i], dim = x->shape[d];
            if (b < 0)
                b += dim;
            start[d] = b < 0 ? 0 : b > dim ? dim : b;
        }
    }
    for (int d = 0; d < r; d++)
        if (start[d] + y->shape[d] > x->shape[d])
            return lx_unsupported(c, n, "output shape does not match the slice");
    int t = lower_in(c, n, 0);
    for (int d = 0; t >= 0 && d < r; d++) {
        if (step[d] > 0)
            continue;
        tosa_attr a;
        memset(&a, 0, sizeof a);
        a.axis = d;
        int64_t shape[TOSAC_MAX_RANK]; /* a copy: adding tensors moves the block's */
        memcpy(shape, lower_shape(c, t), (size_t)r * sizeof *shape);
        int rev = lower_tmp(c, "reverse", x->dtype, r, shape);
        if (rev < 0 || lower_emit(c, TOSA_OP_REVERSE, &a, &t, 1, &rev, 1))
            return c->err->code;
        t = rev;
    }
    int dst = t < 0 ? -1 : begin_out(c, n, x, 0);
    if (dst < 0 || emit_slice(c, t, r, start, dst))
        return c->err->code;
    return finish_out(c, n, x, 0, dst);
}

const lower_rule lower_rules_layout[] = {
    {IR_DOMAIN_ONNX, "Reshape", lower_to_reshape, LOWER_PRE_NONE, LOWER_CONST_FROM1},
    {IR_DOMAIN_ONNX, "Flatten", lower_to_reshape, LOWER_PRE_NONE, LOWER_CONST_FROM1},
    {IR_DOMAIN_ONNX, "Squeeze", lower_to_reshape, LOWER_PRE_NONE, LOWER_CONST_FROM1},
    {IR_DOMAIN_ONNX, "Unsqueeze", lower_to_reshape, LOWER_PRE_NONE, LOWER_CONST_FROM1},
    {IR_DOMAIN_ONNX, "Transpose", lower_transpose_node, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Concat", lower_concat, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Split", lower_split, LOWER_PRE_NONE, LOWER_CONST_FROM1},
    {IR_DOMAIN_ONNX, "Slice", lower_slice, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
