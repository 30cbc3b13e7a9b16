/* Operator group: reduction — REDUCE_ALL, REDUCE_ANY, REDUCE_MAX, REDUCE_MIN, REDUCE_PRODUCT,
 * REDUCE_SUM along attr.axis (the output keeps the axis with size 1).
 * Integer sums are checked at every step like the spec's apply_add_s; float reductions
 * accumulate in double and round once to the output type. */
#include <math.h>

#include "interp/interp_ewise.h"

typedef enum { R_ALL, R_ANY, R_MAX, R_MIN, R_PRODUCT, R_SUM } reduce_kind;

static const uint32_t reduce_types[] = {
    [R_ALL] = EW_T(TOSAC_DT_BOOL),
    [R_ANY] = EW_T(TOSAC_DT_BOOL),
    [R_MAX] = EW_INTS | EW_FLOATS,
    [R_MIN] = EW_INTS | EW_FLOATS,
    [R_PRODUCT] = EW_FLOATS,
    [R_SUM] = EW_T(TOSAC_DT_I32) | EW_T(TOSAC_DT_I64) | EW_FLOATS,
};

/* The output is input shape with shape[axis] = 1. */
static tosac_code check_shapes(interp_ctx *c, const tosac_tensor *in, const tosac_tensor *out,
                               int32_t axis)
{
    if (axis < 0 || axis >= in->rank)
        return interp_error(c, "ERROR_IF(axis < 0 || axis >= rank(shape1)): axis %d, rank %d",
                            (int)axis, in->rank);
    INTERP_ERROR_IF(c, out->rank != in->rank);
    INTERP_ERROR_IF(c, out->shape[axis] != 1);
    for (int d = 0; d < in->rank; d++)
        if (d != axis && out->shape[d] != in->shape[d])
            return interp_error(c, "output dim %d is %lld, input's is %lld", d,
                                (long long)out->shape[d], (long long)in->shape[d]);
    return TOSAC_OK;
}

static double fold_f(reduce_kind kind, double acc, double v, uint32_t nan_mode)
{
    switch (kind) {
    case R_PRODUCT: return acc * v;
    case R_SUM: return acc + v;
    default: break;
    }
    if (isnan(acc) || isnan(v)) /* compare_nan */
        return nan_mode == TOSA_NAN_PROPAGATE ? NAN : (isnan(acc) ? v : acc);
    if (kind == R_MAX)
        return acc >= v ? acc : v;
    return acc < v ? acc : v;
}

static tosac_code reduce(interp_ctx *c, reduce_kind kind)
{
    tosac_code rc;
    if ((rc = ew_check_arity(c, 1, 1)) != TOSAC_OK ||
        (rc = ew_check_type(c, c->in[0], "input", reduce_types[kind])) != TOSAC_OK ||
        (rc = ew_check_same_type(c, c->in[0], "input", c->out[0], "output")) != TOSAC_OK)
        return rc;
    const tosac_tensor *in = c->in[0];
    tosac_tensor *out = c->out[0];
    int32_t axis = c->op->attr.axis;
    uint32_t nan_mode = c->op->attr.nan_mode;
    if ((rc = check_shapes(c, in, out, axis)) != TOSAC_OK)
        return rc;
    if ((kind == R_MAX || kind == R_MIN) && (rc = ew_check_nan_mode(c, in->dtype)) != TOSAC_OK)
        return rc;
    ew_args k;
    ew_args_init(&k, in->dtype);
    int64_t outer = 1, inner = 1, n = in->shape[axis];
    for (int d = 0; d < axis; d++)
        outer *= in->shape[d];
    for (int d = axis + 1; d < in->rank; d++)
        inner *= in->shape[d];
    bool is_float = ew_is_float(in->dtype);
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t j = 0; j < inner; j++) {
            int64_t base = o * n * inner + j, dst = o * inner + j;
            if (is_float) {
                double acc = kind == R_PRODUCT ? 1.0 : kind == R_SUM ? 0.0
                           : nan_mode == TOSA_NAN_IGNORE ? NAN
                           : kind == R_MAX ? -INFINITY : INFINITY;
                for (int64_t i = 0; i < n; i++)
                    acc = fold_f(kind, acc, interp_get_float(in, base + i * inner), nan_mode);
                interp_set_float(out, dst, (float)acc);
                continue;
            }
            int64_t acc = kind == R_ALL ? 1 : kind == R_ANY ? 0 : kind == R_MAX ? k.min
                        : kind == R_MIN ? k.max : 0;
            for (int64_t i = 0; i < n; i++) {
                int64_t v = interp_get_int(in, base + i * inner);
                switch (kind) {
                case R_ALL: acc = acc && v; break;
                case R_ANY: acc = acc || v; break;
                case R_MAX: acc = v > acc ? v : acc; break;
                case R_MIN: acc = v < acc ? v : acc; break;
                default:
                    if (arith_add_s(acc, v, k.bits, &acc) != ARITH_OK)
                        return interp_error(c, "REQUIRE(c >= minimum_s<acc_t>() && c <= maximum_s<acc_t>()) "
                                               "violated in apply_add_s: the sum overflows %s",
                                            tosac_dtype_name(in->dtype));
                }
            }
            interp_set_int(out, dst, acc);
        }
    }
    return TOSAC_OK;
}

tosac_code interp_op_reduce_all(interp_ctx *c) { return reduce(c, R_ALL); }
tosac_code interp_op_reduce_any(interp_ctx *c) { return reduce(c, R_ANY); }
tosac_code interp_op_reduce_max(interp_ctx *c) { return reduce(c, R_MAX); }
tosac_code interp_op_reduce_min(interp_ctx *c) { return reduce(c, R_MIN); }
tosac_code interp_op_reduce_product(interp_ctx *c) { return reduce(c, R_PRODUCT); }
tosac_code interp_op_reduce_sum(interp_ctx *c) { return reduce(c, R_SUM); }

const interp_op_entry interp_ops_reduction[] = {
    {TOSA_OP_REDUCE_ALL, interp_op_reduce_all},
    {TOSA_OP_REDUCE_ANY, interp_op_reduce_any},
    {TOSA_OP_REDUCE_MAX, interp_op_reduce_max},
    {TOSA_OP_REDUCE_MIN, interp_op_reduce_min},
    {TOSA_OP_REDUCE_PRODUCT, interp_op_reduce_product},
    {TOSA_OP_REDUCE_SUM, interp_op_reduce_sum},
    {TOSA_OP_UNKNOWN, NULL},
};
