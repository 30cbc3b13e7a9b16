/* Reductions: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ArgMax, ArgMin.
 *
 * TOSA reduces one axis at a time and keeps it (size 1), so a multi-axis reduction is a chain
 * of REDUCE_* ops, followed by a RESHAPE when ONNX drops the axes (keepdims = 0). Axes come
 * from the "axes" attribute (older opsets) or a constant second input (ReduceSum 13+, the
 * others 18+); no axes means all of them unless noop_with_empty_axes.
 *
 * Quantized (int8/int16 with per-tensor scale): REDUCE_MAX/MIN run on the integers directly
 * (rescaling preserves order) and a RESCALE follows only when the output quantization
 * differs. ReduceSum/ReduceMean subtract the zero point while rescaling to int32 (scale 1,
 * exact), sum in int32 and rescale once by s_in / s_out (/ count for the mean): a single
 * rounding, as a float reference followed by quantization would do.
 *
 * Quantized ReduceL1 is the same sum over ABS of the zero-point-free int32 values.
 * Quantized ReduceSumSquare and ReduceL2 sum a*a, a the zero-point-free values, with MUL's
 * shift s (computed in 64 bits, rounded) the least that keeps count * max|a|^2 / 2^s in int32;
 * SumSquare is then one RESCALE by 2^s sx^2 / sy. L2 first scales the sum by 4^p, the most
 * int32 holds, and takes its integer square root: a power of two at or above it from CLZ,
 * then Newton steps g = min(g, (g + S / g) >> 1) (INTDIV; quadratic from within a factor of
 * 2, so six steps reach floor(sqrt) for any int32); the RESCALE is by 2^(s/2 - p) sx / sy.
 * The root's truncation is under 2^-p of an input step (p >= 6 for int8 inputs and sums of
 * up to 2^11 terms), less than an output step for int16 (where p may be 0: about 0.7 at
 * the top of the range).
 *
 * The float norms wrap a REDUCE_SUM: ReduceL1 sums ABS, ReduceSumSquare and ReduceL2
 * sum x*x (L2 then takes RECIPROCAL(RSQRT), as Sqrt does), ReduceLogSum takes the LOG, and
 * ReduceLogSumExp subtracts the REDUCE_MAX first so EXP cannot overflow (log(sum(exp(x -
 * m))) + m).
 *
 * Bool ReduceMax / ReduceMin (opset 20+) are REDUCE_ANY / REDUCE_ALL. */
#include <math.h>
#include <string.h>

#include "lower/lower_extra.h"

typedef enum {
    R_SUM, R_MEAN, R_MAX, R_MIN, R_PROD,
    R_L1, R_L2, R_SUMSQ, R_LOGSUM, R_LOGSUMEXP /* float only, around a REDUCE_SUM */
} reduce_kind;

typedef struct reduce_plan {
    int axes[TOSAC_MAX_RANK];  /* sorted, unique */
    int n_axes;
    bool noop;                 /* empty axes with noop_with_empty_axes */
    int64_t count;             /* elements reduced into each output */
} reduce_plan;

static tosac_code plan_axes(lower_ctx *c, const ir_node *n, const ir_tensor *x, reduce_plan *p)
{
    memset(p, 0, sizeof *p);
    int64_t raw[TOSAC_MAX_RANK + 1];
    int cnt = 0;
    int n_attr = 0;
    const int64_t *attr = ir_node_attr_ints(n, "axes", &n_attr);
    if (attr) {
        if (n_attr > TOSAC_MAX_RANK)
            return lx_unsupported(c, n, "%d axes for a rank-%d input", n_attr, x->rank);
        memcpy(raw, attr, (size_t)n_attr * sizeof *raw);
        cnt = n_attr;
    } else if (n->n_inputs >= 2 && n->inputs[1] >= 0) {
        if (!lx_const_ints(c, n, 1, raw, TOSAC_MAX_RANK, &cnt))
            return lx_unsupported(c, n, "axes must be a constant integer tensor of at most %d "
                                  "values", TOSAC_MAX_RANK);
    }
    bool keep[TOSAC_MAX_RANK] = {false};
    for (int i = 0; i < cnt; i++) {
        int a = lx_axis(raw[i], x->rank);
        if (a < 0)
            return lx_unsupported(c, n, "axis %lld out of range for rank %d",
                                  (long long)raw[i], x->rank);
        keep[a] = true;
    }
    if (cnt == 0) {
        if (ir_node_attr_int(n, "noop_with_empty_axes", 0)) {
            p->noop = true;
            return TOSAC_OK;
        }
        for (int d = 0; d < x->rank; d++)
            keep[d] = true;
    }
    p->count = 1;
    for (int d = 0; d < x->rank; d++)
        if (keep[d]) {
            p->axes[p->n_axes++] = d;
            p->count *= x->shape[d];
        }
    return TOSAC_OK;
}

/* REDUCE_<op> over every planned axis; the last one writes `out` when out >= 0. */
static int reduce_chain(lower_ctx *c, tosa_op op, int t, const reduce_plan *p, int out)
{
    for (int i = 0; i < p->n_axes && t >= 0; i++) {
        int64_t shape[TOSAC_MAX_RANK];
        int r = lower_rank(c, t);
        memcpy(shape, lower_shape(c, t), (size_t)r * sizeof *shape);
        shape[p->axes[i]] = 1;
        int dst = i == p->n_axes - 1 && out >= 0
                      ? out : lower_tmp(c, tosa_op_name(op), lower_dtype(c, t), r, shape);
        tosa_attr at;
        memset(&at, 0, sizeof at);
        at.axis = p->axes[i];
        at.nan_mode = TOSA_NAN_PROPAGATE;
        if (dst < 0 || lower_emit(c, op, &at, &t, 1, &dst, 1))
            return -1;
        t = dst;
    }
    return t;
}

/* True when the IR output has the kept-dims shape, so the last op can write it directly. */
static bool keeps_dims(const ir_tensor *x, const ir_tensor *y)
{
    return y->rank == x->rank;
}

/* The tensor the last stage writes: the output itself, or an intermediate RESHAPEd into it
 * by finish(). */
static int stage_target(lower_ctx *c, const ir_node *n, const ir_tensor *x, const ir_tensor *y)
{
    return keeps_dims(x, y) ? lower_out(c, n, 0) : -1;
}

static tosac_code finish(lower_ctx *c, const ir_node *n, const ir_tensor *y, int res)
{
    if (res < 0)
        return lx_code(c);
    if (c->tmap[n->outputs[0]] == res)
        return TOSAC_OK;
    int out = lower_out(c, n, 0);
    return out < 0 || lower_reshape(c, res, y->rank, y->shape, out) < 0 ? lx_code(c) : TOSAC_OK;
}

static tosa_op reduce_op(reduce_kind k)
{
    switch (k) {
    case R_MAX: return TOSA_OP_REDUCE_MAX;
    case R_MIN: return TOSA_OP_REDUCE_MIN;
    case R_PROD: return TOSA_OP_REDUCE_PRODUCT;
    default: return TOSA_OP_REDUCE_SUM;
    }
}

/* MUL of a by itself with shift s (a*a computed in 64 bits, rounded, >> s) */
static int square_shifted(lower_ctx *c, int a, int s)
{
    int sh = lower_scalar(c, "shift", TOSAC_DT_I8, s);
    int out = a < 0 || sh < 0 ? -1
                              : lower_tmp(c, "square", TOSAC_DT_I32, lower_rank(c, a),
                                          lower_shape(c, a));
    int ins[3] = {a, a, sh};
    tosa_attr at;
    memset(&at, 0, sizeof at);
    return out < 0 || lower_emit(c, TOSA_OP_MUL, &at, ins, 3, &out, 1) ? -1 : out;
}

/* floor(sqrt(S)) of an i32 tensor S >= 0: the steps run on max(S, 1) (no divisor is zero)
 * and a last MINIMUM with S makes sqrt(0) exactly 0 (floor(sqrt(S)) <= S otherwise) */
static int isqrt_i32(lower_ctx *c, int S0)
{
    const tosac_dtype i32 = TOSAC_DT_I32, same = TOSAC_DT_UNKNOWN;
    int r = lower_rank(c, S0);
    int S = lx_binary(c, TOSA_OP_MAXIMUM, S0, lx_fill(c, "one", i32, r, 1.0), same, -1);
    int clz = lx_unary(c, TOSA_OP_CLZ, S, same, -1);
    /* S < 2^(32 - clz): g = 2^ceil((32 - clz) / 2) = 1 << ((33 - clz) >> 1) >= sqrt(S) */
    int e = lx_binary(c, TOSA_OP_SUB, lx_fill(c, "c33", i32, r, 33.0), clz, same, -1);
    e = lx_binary(c, TOSA_OP_LOGICAL_RIGHT_SHIFT, e, lx_fill(c, "one", i32, r, 1.0), same, -1);
    int g = lx_binary(c, TOSA_OP_LOGICAL_LEFT_SHIFT, lx_fill(c, "one", i32, r, 1.0), e, same, -1);
    for (int i = 0; i < 6; i++) {
        int q = lx_binary(c, TOSA_OP_INTDIV, S, g, same, -1);
        int h = lx_binary(c, TOSA_OP_LOGICAL_RIGHT_SHIFT, lx_binary(c, TOSA_OP_ADD, g, q, same, -1),
                          lx_fill(c, "one", i32, r, 1.0), same, -1);
        g = lx_binary(c, TOSA_OP_MINIMUM, g, h, same, -1);
    }
    return lx_binary(c, TOSA_OP_MINIMUM, g, S0, same, -1);
}

/* Quantized ReduceSumSquare (root false) and ReduceL2 (root true): see the header */
static tosac_code lower_quantized_sumsq(lower_ctx *c, const ir_node *n, const ir_tensor *x,
                                        const ir_tensor *y, const reduce_plan *p, bool root)
{
    int64_t zp = lower_qzp(x);
    double maxabs = zp == 0 ? ldexp(1.0, tosac_dtype_bits(x->dtype) - 1)
                            : ldexp(1.0, tosac_dtype_bits(x->dtype)) - 1.0;
    double smax = (double)p->count * maxabs * maxabs;
    int s = 0;
    while (s < 40 && smax > ldexp(2147483647.0, s))
        s++;
    smax = ldexp(smax, -s);
    int pw = 0; /* S * 4^pw stays in int32 */
    while (root && pw < 15 && smax * ldexp(1.0, 2 * (pw + 1)) <= 2147483647.0)
        pw++;
    int acc = lx_rescale(c, lower_in(c, n, 0), 1.0, zp, 0, TOSAC_DT_I32, -1);
    acc = reduce_chain(c, TOSA_OP_REDUCE_SUM, square_shifted(c, acc, s), p, -1);
    double sx = lower_qscale(x), sy = lower_qscale(y), scale = ldexp(sx * sx, s) / sy;
    if (root) {
        if (pw > 0)
            acc = lx_binary(c, TOSA_OP_MUL, acc,
                            lx_fill(c, "four_p", TOSAC_DT_I32, x->rank, ldexp(1.0, 2 * pw)),
                            TOSAC_DT_UNKNOWN, -1);
        acc = acc < 0 ? -1 : isqrt_i32(c, acc);
        scale = sqrt(ldexp(1.0, s)) * ldexp(sx, -pw) / sy;
    }
    int res = acc < 0 ? -1 : lx_rescale(c, acc, scale, 0, lower_qzp(y), y->dtype,
                                        stage_target(c, n, x, y));
    return finish(c, n, y, res);
}

static tosac_code lower_quantized(lower_ctx *c, const ir_node *n, reduce_kind k,
                                  const ir_tensor *x, const ir_tensor *y, const reduce_plan *p)
{
    tosac_code rc;
    if ((rc = lx_check_quant(c, n, x)) || (rc = lx_check_quant(c, n, y)))
        return rc;
    int in = lower_in(c, n, 0);
    double ratio = lower_qscale(x) / lower_qscale(y);
    if (k == R_MAX || k == R_MIN) {
        bool same = lx_same_quant(x, y);
        int res = reduce_chain(c, reduce_op(k), in, p, same ? stage_target(c, n, x, y) : -1);
        if (!same)
            res = lx_rescale(c, res, ratio, lower_qzp(x), lower_qzp(y), y->dtype,
                             stage_target(c, n, x, y));
        return finish(c, n, y, res);
    }
    if (k == R_PROD)
        return lx_unsupported(c, n, "quantized products have no TOSA form");
    if (k == R_L2 || k == R_SUMSQ)
        return lower_quantized_sumsq(c, n, x, y, p, k == R_L2);
    if (k != R_SUM && k != R_MEAN && k != R_L1)
        return lx_unsupported(c, n, "quantized form (no integer log of a sum)");
    /* int32 must hold count * (full range of the input type). */
    double range = ldexp(1.0, tosac_dtype_bits(x->dtype));
    if ((double)p->count * range > 2147483647.0)
        return lx_unsupported(c, n, "summing %lld %s values may overflow int32",
                              (long long)p->count, tosac_dtype_name(x->dtype));
    int acc = lx_rescale(c, in, 1.0, lower_qzp(x), 0, TOSAC_DT_I32, -1);
    if (k == R_L1)
        acc = lx_unary(c, TOSA_OP_ABS, acc, TOSAC_DT_UNKNOWN, -1);
    acc = reduce_chain(c, TOSA_OP_REDUCE_SUM, acc, p, -1);
    double scale = k == R_MEAN ? ratio / (double)p->count : ratio;
    int res = lx_rescale(c, acc, scale, 0, lower_qzp(y), y->dtype, stage_target(c, n, x, y));
    return finish(c, n, y, res);
}

static tosac_code lower_norm(lower_ctx *c, const ir_node *n, reduce_kind k, const ir_tensor *x,
                             const ir_tensor *y, const reduce_plan *p)
{
    if (!tosac_dtype_is_float(x->dtype) || lower_is_quantized(y))
        return lx_unsupported(c, n, "%s input (float only)", tosac_dtype_name(x->dtype));
    int in = lower_in(c, n, 0), t = in, m = -1;
    const tosac_dtype same = TOSAC_DT_UNKNOWN;
    if (k == R_L1)
        t = lx_unary(c, TOSA_OP_ABS, in, same, -1);
    else if (k == R_L2 || k == R_SUMSQ)
        t = lx_binary(c, TOSA_OP_MUL, in, in, same, -1);
    else if (k == R_LOGSUMEXP) {
        m = reduce_chain(c, TOSA_OP_REDUCE_MAX, in, p, -1);
        t = lx_unary(c, TOSA_OP_EXP, lx_binary(c, TOSA_OP_SUB, in, m, same, -1), same, -1);
    }
    bool post = k == R_L2 || k == R_LOGSUM || k == R_LOGSUMEXP;
    int target = stage_target(c, n, x, y);
    int s = reduce_chain(c, TOSA_OP_REDUCE_SUM, t, p, post ? -1 : target);
    if (k == R_L2)
        s = lx_unary(c, TOSA_OP_RECIPROCAL, lx_unary(c, TOSA_OP_RSQRT, s, same, -1), same, target);
    else if (k == R_LOGSUM)
        s = lx_unary(c, TOSA_OP_LOG, s, same, target);
    else if (k == R_LOGSUMEXP)
        s = lx_binary(c, TOSA_OP_ADD, lx_unary(c, TOSA_OP_LOG, s, same, -1), m, same, target);
    return finish(c, n, y, s);
}

static tosac_code lower_reduce(lower_ctx *c, const ir_node *n, reduce_kind k)
{
    const ir_tensor *x = lower_in_ir(c, n, 0), *y = lower_out_ir(c, n, 0);
    if (!x || !y)
        return lx_unsupported(c, n, "needs an input and an output");
    reduce_plan p;
    tosac_code rc = plan_axes(c, n, x, &p);
    if (rc)
        return rc;
    if (p.noop || p.n_axes == 0) { /* nothing reduced: the data passes through */
        int in = lower_in(c, n, 0), out = lower_out(c, n, 0);
        return lx_identity(c, in, out) < 0 ? lx_code(c) : TOSAC_OK;
    }
    if (lower_is_quantized(x) || lower_is_quantized(y))
        return lower_quantized(c, n, k, x, y, &p);
    if (k >= R_L1)
        return lower_norm(c, n, k, x, y, &p);
    int in = lower_in(c, n, 0);
    if (x->dtype == TOSAC_DT_BOOL) {
        if (k != R_MAX && k != R_MIN)
            return lx_unsupported(c, n, "bool input (only ReduceMax/ReduceMin take bool)");
        tosa_op op = k == R_MAX ? TOSA_OP_REDUCE_ANY : TOSA_OP_REDUCE_ALL;
        return finish(c, n, y, reduce_chain(c, op, in, &p, stage_target(c, n, x, y)));
    }
    if (k != R_MEAN)
        return finish(c, n, y, reduce_chain(c, reduce_op(k), in, &p, stage_target(c, n, x, y)));
    if (!tosac_dtype_is_float(x->dtype))
        return lx_unsupported(c, n, "integer mean of unquantized %s", tosac_dtype_name(x->dtype));
    int sum = reduce_chain(c, TOSA_OP_REDUCE_SUM, in, &p, -1);
    int inv = lx_fill(c, "inv_count", x->dtype, x->rank, 1.0 / (double)p.count);
    return finish(c, n, y, lx_binary(c, TOSA_OP_MUL, sum, inv, TOSAC_DT_UNKNOWN,
                                     stage_target(c, n, x, y)));
}

/* ArgMax / ArgMin: ARGMAX over one axis (TOSA drops it), then a RESHAPE for keepdims.
 * ArgMin is ARGMAX of an order-reversing map: NEGATE for floats, BITWISE_NOT (-x-1, a
 * bijection with no overflow at the minimum value) for integers. */
static tosac_code lower_arg(lower_ctx *c, const ir_node *n, bool is_min)
{
    const ir_tensor *x = lower_in_ir(c, n, 0), *y = lower_out_ir(c, n, 0);
    if (!x || !y)
        return lx_unsupported(c, n, "needs an input and an output");
    if (ir_node_attr_int(n, "select_last_index", 0))
        return lx_unsupported(c, n, "select_last_index=1 (ARGMAX returns the first index)");
    int axis = lx_axis(ir_node_attr_int(n, "axis", 0), x->rank);
    if (axis < 0)
        return lx_unsupported(c, n, "axis out of range for rank %d", x->rank);
    int in = lower_in(c, n, 0);
    if (is_min)
        in = tosac_dtype_is_float(x->dtype) ? lx_negate(c, in, -1)
                                            : lx_unary(c, TOSA_OP_BITWISE_NOT, in,
                                                       TOSAC_DT_UNKNOWN, -1);
    if (in < 0)
        return lx_code(c);
    int64_t shape[TOSAC_MAX_RANK];
    int r = 0;
    for (int d = 0; d < x->rank; d++)
        if (d != axis)
            shape[r++] = x->shape[d];
    int out = y->rank == r ? lower_out(c, n, 0) : lower_tmp(c, "argmax", y->dtype, r, shape);
    if (out < 0)
        return lx_code(c);
    tosa_attr at;
    memset(&at, 0, sizeof at);
    at.axis = axis;
    at.nan_mode = TOSA_NAN_PROPAGATE;
    if (lower_emit(c, TOSA_OP_ARGMAX, &at, &in, 1, &out, 1))
        return lx_code(c);
    return finish(c, n, y, out);
}

static tosac_code lower_sum(lower_ctx *c, const ir_node *n) { return lower_reduce(c, n, R_SUM); }
static tosac_code lower_mean(lower_ctx *c, const ir_node *n) { return lower_reduce(c, n, R_MEAN); }
static tosac_code lower_max(lower_ctx *c, const ir_node *n) { return lower_reduce(c, n, R_MAX); }
static tosac_code lower_min(lower_ctx *c, const ir_node *n) { return lower_reduce(c, n, R_MIN); }
static tosac_code lower_prod(lower_ctx *c, const ir_node *n) { return lower_reduce(c, n, R_PROD); }
static tosac_code lower_l1(lower_ctx *c, const ir_node *n) { return lower_reduce(c, n, R_L1); }
static tosac_code lower_l2(lower_ctx *c, const ir_node *n) { return lower_reduce(c, n, R_L2); }
static tosac_code lower_sumsq(lower_ctx *c, const ir_node *n) { return lower_reduce(c, n, R_SUMSQ); }
static tosac_code lower_logsum(lower_ctx *c, const ir_node *n) { return lower_reduce(c, n, R_LOGSUM); }
static tosac_code lower_logsumexp(lower_ctx *c, const ir_node *n) { return lower_reduce(c, n, R_LOGSUMEXP); }
static tosac_code lower_argmax(lower_ctx *c, const ir_node *n) { return lower_arg(c, n, false); }
static tosac_code lower_argmin(lower_ctx *c, const ir_node *n) { return lower_arg(c, n, true); }

const lower_rule lower_rules_reduce[] = {
    {IR_DOMAIN_ONNX, "ReduceSum", lower_sum, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "ReduceMean", lower_mean, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "ReduceMax", lower_max, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "ReduceMin", lower_min, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "ReduceProd", lower_prod, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "ReduceL1", lower_l1, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "ReduceL2", lower_l2, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "ReduceSumSquare", lower_sumsq, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "ReduceLogSum", lower_logsum, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "ReduceLogSumExp", lower_logsumexp, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "ArgMax", lower_argmax, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "ArgMin", lower_argmin, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
