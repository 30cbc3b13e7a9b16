/* Reduce*, ArgMax/ArgMin, TopK and CumSum. */
#include "cpu/cpu_internal.h"

#include <string.h>

#include "kernels/reduce.h"

/* Axes come from the "axes" attribute (older opsets; always for some ops) or from input 1
 * (ReduceSum from 13, the others from 18). An empty list reduces everything unless
 * noop_with_empty_axes. The attributes, and the axes input when it is a constant, are read
 * once (prepare step), the axes checked against the input's declared rank when it has one
 * (eval uses that mask while the rank agrees). */
typedef struct reduce_prep {
    int has_axes, n, noop, keep;
    int64_t axes[TOSAC_MAX_RANK];
    int rank;                       /* declared input rank the mask is for, or -1 */
    uint8_t mask[TOSAC_MAX_RANK];
} reduce_prep;

static tosac_code reduce_mask(cpu_ctx *c, const int64_t *axes, int n, int rank, uint8_t *mask)
{
    memset(mask, n == 0, TOSAC_MAX_RANK);
    for (int i = 0; i < n; i++) {
        int a;
        tosac_code rc = cpu_axis(c, axes[i], rank, &a);
        if (rc)
            return rc;
        mask[a] = 1;
    }
    return TOSAC_OK;
}

static tosac_code reduce_prepare(cpu_ctx *c, void *st)
{
    reduce_prep *p = st;
    int n = 0;
    const int64_t *aa = cpu_attr_ints(c, "axes", &n);
    p->noop = (int)cpu_attr_i(c, "noop_with_empty_axes", 0);
    p->keep = (int)cpu_attr_i(c, "keepdims", 1);
    p->rank = -1;
    tosac_code rc = TOSAC_OK;
    if (aa) {
        CPU_CHECK(c, n <= TOSAC_MAX_RANK, "too many axes");
        memcpy(p->axes, aa, (size_t)n * sizeof(int64_t));
    } else if (!cpu_const_ints(c, 1, p->axes, TOSAC_MAX_RANK, &n, &rc)) {
        return TOSAC_OK; /* axes computed by the graph (or none): eval reads them */
    } else if (rc) {
        return rc;
    }
    p->has_axes = 1;
    p->n = n;
    int r = cpu_decl_rank(c, 0);
    if (r < 0)
        return TOSAC_OK;
    rc = reduce_mask(c, p->axes, n, r, p->mask);
    if (!rc)
        p->rank = r;
    return rc;
}

static const cpu_op_prep reduce_prep_op = {reduce_prepare, sizeof(reduce_prep), NULL};

static tosac_code reduce(cpu_ctx *c, kern_reduce_op op)
{
    const reduce_prep *p = c->prep;
    const tosac_tensor *x, *axes_t = cpu_opt(c, 1);
    tosac_code rc = cpu_req(c, 0, &x);
    if (rc)
        return rc;
    int64_t axes[TOSAC_MAX_RANK];
    int n = 0;
    if (p->has_axes) {
        n = p->n;
        memcpy(axes, p->axes, sizeof axes);
    } else if (axes_t && (rc = cpu_ints(c, axes_t, axes, TOSAC_MAX_RANK, &n))) {
        return rc;
    }
    uint8_t mask[TOSAC_MAX_RANK];
    if (n == 0 && p->noop)
        return cpu_out_copy(c, 0, x, x->rank, x->shape);
    if (p->has_axes && p->rank == x->rank)
        memcpy(mask, p->mask, sizeof mask);
    else if ((rc = reduce_mask(c, axes, n, x->rank, mask)))
        return rc;
    int keep = p->keep;
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

/* ArgMax/ArgMin's, TopK's and CumSum's attributes, read once (prepare step); an axis
 * attribute is checked against the input's declared rank when it has one. */
typedef struct argx_prep {
    int64_t axis, k;
    int keep, last, has_k, largest, exclusive, reverse;
} argx_prep;

static tosac_code check_decl_axis(cpu_ctx *c, int64_t axis)
{
    int r = cpu_decl_rank(c, 0), a;
    return r < 0 ? TOSAC_OK : cpu_axis(c, axis, r, &a);
}

static tosac_code argx_prepare(cpu_ctx *c, void *st)
{
    argx_prep *p = st;
    p->axis = cpu_attr_i(c, "axis", 0);
    p->keep = (int)cpu_attr_i(c, "keepdims", 1);
    p->last = (int)cpu_attr_i(c, "select_last_index", 0);
    return check_decl_axis(c, p->axis);
}

static tosac_code topk_prepare(cpu_ctx *c, void *st)
{
    argx_prep *p = st;
    p->has_k = cpu_has_attr(c, "k");
    p->k = cpu_attr_i(c, "k", 0);
    p->axis = cpu_attr_i(c, "axis", -1);
    p->largest = (int)cpu_attr_i(c, "largest", 1);
    return check_decl_axis(c, p->axis);
}

static tosac_code cumsum_prepare(cpu_ctx *c, void *st)
{
    argx_prep *p = st;
    p->exclusive = (int)cpu_attr_i(c, "exclusive", 0);
    p->reverse = (int)cpu_attr_i(c, "reverse", 0);
    return TOSAC_OK;
}

static const cpu_op_prep argx_prep_op = {argx_prepare, sizeof(argx_prep), NULL};
static const cpu_op_prep topk_prep_op = {topk_prepare, sizeof(argx_prep), NULL};
static const cpu_op_prep cumsum_prep_op = {cumsum_prepare, sizeof(argx_prep), NULL};

static tosac_code argx(cpu_ctx *c, int is_max)
{
    const argx_prep *p = c->prep;
    const tosac_tensor *x;
    tosac_code rc = cpu_req(c, 0, &x);
    int axis;
    if (!rc)
        rc = cpu_axis(c, p->axis, x->rank, &axis);
    if (rc)
        return rc;
    CPU_CHECK(c, x->rank >= 1 && x->shape[axis] > 0, "cannot take an arg-extreme of an empty axis");
    int64_t outer, n, inner;
    cpu_split_axis(x, axis, &outer, &n, &inner);
    int keep = p->keep;
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
    kern_argextreme(x->dtype, is_max, p->last, outer, n, inner,
                    x->data, y->data);
    return TOSAC_OK;
}

static tosac_code op_argmax(cpu_ctx *c) { return argx(c, 1); }
static tosac_code op_argmin(cpu_ctx *c) { return argx(c, 0); }

static tosac_code op_topk(cpu_ctx *c)
{
    const argx_prep *p = c->prep;
    const tosac_tensor *x, *kt;
    tosac_code rc = cpu_req(c, 0, &x);
    if (rc)
        return rc;
    int64_t k;
    if (p->has_k)
        k = p->k;
    else if ((rc = cpu_req(c, 1, &kt)) || (rc = cpu_scalar_i64(c, kt, &k)))
        return rc;
    int axis;
    if ((rc = cpu_axis(c, p->axis, x->rank, &axis)))
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
    kern_topk(x->dtype, p->largest, outer, n, inner, k, x->data, v->data,
              ix->data, scratch);
    cpu_release(c, scratch);
    return TOSAC_OK;
}

static tosac_code op_cumsum(cpu_ctx *c)
{
    const argx_prep *p = c->prep;
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
    kern_cumsum(x->dtype, p->exclusive, p->reverse,
                outer, n, inner, x->data, y->data);
    return TOSAC_OK;
}

#define F CPU_F16_VIA_F32
#define R &reduce_prep_op
const cpu_op_entry cpu_ops_reduce[] = {
    {"ReduceSum", op_rsum, F, R}, {"ReduceMean", op_rmean, F, R}, {"ReduceMax", op_rmax, F, R},
    {"ReduceMin", op_rmin, F, R}, {"ReduceProd", op_rprod, F, R}, {"ReduceL1", op_rl1, F, R},
    {"ReduceL2", op_rl2, F, R}, {"ReduceLogSum", op_rlogsum, F, R},
    {"ReduceLogSumExp", op_rlogsumexp, F, R}, {"ReduceSumSquare", op_rsumsquare, F, R},
    {"ArgMax", op_argmax, 0, &argx_prep_op}, {"ArgMin", op_argmin, 0, &argx_prep_op},
    {"TopK", op_topk, F, &topk_prep_op}, {"CumSum", op_cumsum, F, &cumsum_prep_op},
    {NULL, NULL, 0, NULL},
};
