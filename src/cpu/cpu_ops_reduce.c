/* Reduce*, ArgMax/ArgMin, TopK and CumSum. */
#include "cpu/cpu_internal.h"

#include <string.h>

#include "kernels/reduce.h"

/* Axes come from the "axes" attribute (older opsets; always for some ops) or from input 1
 * (ReduceSum from 13, the others from 18). An empty list reduces everything unless
 * noop_with_empty_axes. */
static tosac_code reduce(cpu_ctx *c, kern_reduce_op op)
{
    const tosac_tensor *x, *axes_t = cpu_opt(c, 1);
    tosac_code rc = cpu_req(c, 0, &x);
    if (rc)
        return rc;
    int64_t axes[TOSAC_MAX_RANK];
    int n = 0;
    const int64_t *aa = cpu_attr_ints(c, "axes", &n);
    if (aa) {
        CPU_CHECK(c, n <= TOSAC_MAX_RANK, "too many axes");
        memcpy(axes, aa, (size_t)n * sizeof(int64_t));
    } else if (axes_t && (rc = cpu_ints(c, axes_t, axes, TOSAC_MAX_RANK, &n))) {
        return rc;
    }
    uint8_t mask[TOSAC_MAX_RANK] = {0};
    if (n == 0) {
        if (cpu_attr_i(c, "noop_with_empty_axes", 0))
            return cpu_out_copy(c, 0, x, x->rank, x->shape);
        memset(mask, 1, sizeof mask);
    }
    for (int i = 0; i < n; i++) {
        int a;
        if ((rc = cpu_axis(c, axes[i], x->rank, &a)))
            return rc;
        mask[a] = 1;
    }
    int keep = (int)cpu_attr_i(c, "keepdims", 1);
    int64_t ys[TOSAC_MAX_RANK];
    int yr = 0;
    for (int k = 0; k < x->rank; k++) {
        if (!mask[k])
            ys[yr++] = x->shape[k];
        else if (keep)
            ys[yr++] = 1;
    }
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, x->dtype, yr, ys, &y)))
        return rc;
    if (kern_reduce(op, x->dtype, x->rank, x->shape, mask, x->data, y->data))
        return cpu_fail(c, TOSAC_ERR_UNSUPPORTED, "input of type %s is not supported",
                        tosac_dtype_name(x->dtype));
    return TOSAC_OK;
}

#define RED(NAME, OP)                                                                          \
    static tosac_code NAME(cpu_ctx *c) { return reduce(c, OP); }
RED(op_rsum, KERN_RED_SUM)
RED(op_rmean, KERN_RED_MEAN)
RED(op_rmax, KERN_RED_MAX)
RED(op_rmin, KERN_RED_MIN)
RED(op_rprod, KERN_RED_PROD)
RED(op_rl1, KERN_RED_L1)
RED(op_rl2, KERN_RED_L2)
RED(op_rlogsum, KERN_RED_LOGSUM)
RED(op_rlogsumexp, KERN_RED_LOGSUMEXP)
RED(op_rsumsquare, KERN_RED_SUMSQUARE)

static tosac_code argx(cpu_ctx *c, int is_max)
{
    const tosac_tensor *x;
    tosac_code rc = cpu_req(c, 0, &x);
    int axis;
    if (!rc)
        rc = cpu_axis(c, cpu_attr_i(c, "axis", 0), x->rank, &axis);
    if (rc)
        return rc;
    CPU_CHECK(c, x->rank >= 1 && x->shape[axis] > 0, "cannot take an arg-extreme of an empty axis");
    int64_t outer, n, inner;
    cpu_split_axis(x, axis, &outer, &n, &inner);
    int keep = (int)cpu_attr_i(c, "keepdims", 1);
    int64_t ys[TOSAC_MAX_RANK];
    int yr = 0;
    for (int k = 0; k < x->rank; k++)
        if (k != axis)
            ys[yr++] = x->shape[k];
        else if (keep)
            ys[yr++] = 1;
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, TOSAC_DT_I64, yr, ys, &y)))
        return rc;
    kern_argextreme(x->dtype, is_max, (int)cpu_attr_i(c, "select_last_index", 0), outer, n, inner,
                    x->data, y->data);
    return TOSAC_OK;
}

static tosac_code op_argmax(cpu_ctx *c) { return argx(c, 1); }
static tosac_code op_argmin(cpu_ctx *c) { return argx(c, 0); }

static tosac_code op_topk(cpu_ctx *c)
{
    const tosac_tensor *x, *kt;
    tosac_code rc = cpu_req(c, 0, &x);
    if (rc)
        return rc;
    int64_t k;
    if (cpu_has_attr(c, "k"))
        k = cpu_attr_i(c, "k", 0);
    else if ((rc = cpu_req(c, 1, &kt)) || (rc = cpu_scalar_i64(c, kt, &k)))
        return rc;
    int axis;
    if ((rc = cpu_axis(c, cpu_attr_i(c, "axis", -1), x->rank, &axis)))
        return rc;
    CPU_CHECK(c, k >= 0 && k <= x->shape[axis], "k = %lld is outside [0, %lld]", (long long)k,
              (long long)x->shape[axis]);
    int64_t outer, n, inner;
    cpu_split_axis(x, axis, &outer, &n, &inner);
    int64_t ys[TOSAC_MAX_RANK];
    memcpy(ys, x->shape, sizeof ys);
    ys[axis] = k;
    tosac_tensor *v, *ix;
    if ((rc = cpu_out(c, 0, x->dtype, x->rank, ys, &v)) ||
        (rc = cpu_out(c, 1, TOSAC_DT_I64, x->rank, ys, &ix)))
        return rc;
    /* "sorted = 0" allows any order; sorted output is a valid choice */
    int64_t *scratch = cpu_temp(c, (size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    if (!scratch)
        return cpu_fail(c, TOSAC_ERR_INTERNAL, "out of memory");
    kern_topk(x->dtype, (int)cpu_attr_i(c, "largest", 1), outer, n, inner, k, x->data, v->data,
              ix->data, scratch);
    cpu_release(c, scratch);
    return TOSAC_OK;
}

static tosac_code op_cumsum(cpu_ctx *c)
{
    const tosac_tensor *x, *at;
    tosac_code rc = cpu_req(c, 0, &x);
    int64_t a;
    int axis;
    if (!rc)
        rc = cpu_req(c, 1, &at);
    if (!rc)
        rc = cpu_scalar_i64(c, at, &a);
    if (!rc)
        rc = cpu_axis(c, a, x->rank, &axis);
    if (rc)
        return rc;
    int64_t outer, n, inner;
    cpu_split_axis(x, axis, &outer, &n, &inner);
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, x->dtype, x->rank, x->shape, &y)))
        return rc;
    kern_cumsum(x->dtype, (int)cpu_attr_i(c, "exclusive", 0), (int)cpu_attr_i(c, "reverse", 0),
                outer, n, inner, x->data, y->data);
    return TOSAC_OK;
}

#define F CPU_F16_VIA_F32
const cpu_op_entry cpu_ops_reduce[] = {
    {"ReduceSum", op_rsum, F, NULL}, {"ReduceMean", op_rmean, F, NULL}, {"ReduceMax", op_rmax, F, NULL},
    {"ReduceMin", op_rmin, F, NULL}, {"ReduceProd", op_rprod, F, NULL}, {"ReduceL1", op_rl1, F, NULL},
    {"ReduceL2", op_rl2, F, NULL}, {"ReduceLogSum", op_rlogsum, F, NULL},
    {"ReduceLogSumExp", op_rlogsumexp, F, NULL}, {"ReduceSumSquare", op_rsumsquare, F, NULL},
    {"ArgMax", op_argmax, 0, NULL}, {"ArgMin", op_argmin, 0, NULL}, {"TopK", op_topk, F, NULL},
    {"CumSum", op_cumsum, F, NULL},
    {NULL, NULL, 0, NULL},
};
