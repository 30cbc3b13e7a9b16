/* NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss. */
#include "cpu/cpu_internal.h"

#include <string.h>

#include "kernels/loss.h"
#include "kernels/softmax.h"

/* The losses' reduction and ignore_index, read and checked once (prepare step). */
typedef struct loss_prep {
    kern_reduction red;
    int has_ignore;
    int64_t ignore;
} loss_prep;

static tosac_code loss_prepare(cpu_ctx *c, void *st)
{
    loss_prep *p = st;
    const char *rs = cpu_attr_s(c, "reduction", "mean");
    p->red = strcmp(rs, "none") == 0 ? KERN_REDUCE_NONE
             : strcmp(rs, "sum") == 0 ? KERN_REDUCE_SUM : KERN_REDUCE_MEAN;
    CPU_CHECK(c, p->red != KERN_REDUCE_MEAN || strcmp(rs, "mean") == 0, "unknown reduction '%s'", rs);
    p->has_ignore = cpu_has_attr(c, "ignore_index");
    p->ignore = cpu_attr_i(c, "ignore_index", 0);
    return TOSAC_OK;
}

static const cpu_op_prep loss_prep_op = {loss_prepare, sizeof(loss_prep), NULL};

/* Shared: x [N, C, d...] of log-probabilities, target [N, d...]; writes output 0. */
static tosac_code nll(cpu_ctx *c, const tosac_tensor *x, const tosac_tensor *t,
                      const tosac_tensor *w)
{
    CPU_CHECK(c, x->dtype == TOSAC_DT_F32 || x->dtype == TOSAC_DT_F64, "input must be float");
    CPU_CHECK(c, x->rank >= 2 && t->rank == x->rank - 1, "input [N, C, ...] and target [N, ...] ranks disagree");
    CPU_CHECK(c, t->dtype == TOSAC_DT_I32 || t->dtype == TOSAC_DT_I64, "target must be int32/int64");
    CPU_CHECK(c, t->shape[0] == x->shape[0], "batch sizes differ");
    for (int k = 1; k < t->rank; k++)
        CPU_CHECK(c, t->shape[k] == x->shape[k + 1], "target dim %d differs from input", k);
    int64_t n = x->shape[0], cl = x->shape[1], d = 1;
    for (int k = 2; k < x->rank; k++)
        d *= x->shape[k];
    if (w)
        CPU_CHECK(c, w->dtype == x->dtype && tosac_tensor_numel(w) == cl, "weight must hold C values");
    const loss_prep *lp = c->prep;
    kern_reduction red = lp->red;
    int64_t *tg = cpu_temp(c, (size_t)(n * d > 0 ? n * d : 1) * sizeof(int64_t));
    if (!tg)
        return cpu_fail(c, TOSAC_ERR_INTERNAL, "out of memory");
    for (int64_t i = 0; i < n * d; i++)
        tg[i] = kern_get_i64(t->dtype, t->data, i);
    tosac_tensor *y;
    tosac_code rc = red == KERN_REDUCE_NONE ? cpu_out(c, 0, x->dtype, t->rank, t->shape, &y)
                                            : cpu_out(c, 0, x->dtype, 0, NULL, &y);
    if (!rc && kern_nll_loss(x->dtype, n, cl, d, x->data, tg, w ? w->data : NULL,
                             lp->has_ignore, lp->ignore, red,
                             y->data))
        rc = cpu_fail(c, TOSAC_ERR_INPUT, "a target is outside [0, %lld)", (long long)cl);
    cpu_release(c, tg);
    return rc;
}

static tosac_code op_nll(cpu_ctx *c)
{
    const tosac_tensor *x, *t;
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc)
        rc = cpu_req(c, 1, &t);
    return rc ? rc : nll(c, x, t, cpu_opt(c, 2));
}

static tosac_code op_sce(cpu_ctx *c)
{
    const tosac_tensor *x, *t;
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc)
        rc = cpu_req(c, 1, &t);
    if (rc)
        return rc;
    CPU_CHECK(c, (x->dtype == TOSAC_DT_F32 || x->dtype == TOSAC_DT_F64) && x->rank >= 2,
              "scores must be float [N, C, ...]");
    tosac_tensor lp;
    if ((rc = cpu_tensor_temp(c, &lp, x->dtype, x->rank, x->shape, 1)))
        return rc;
    int64_t outer, n, inner;
    cpu_split_axis(x, 1, &outer, &n, &inner);
    kern_softmax(KERN_LOGSOFTMAX, x->dtype, outer, n, inner, x->data, lp.data);
    rc = nll(c, &lp, t, cpu_opt(c, 2));
    if (!rc && c->n_out > 1 && c->node->outputs[1] >= 0)
        rc = cpu_out_copy(c, 1, &lp, lp.rank, lp.shape);
    cpu_tensor_drop(c, &lp);
    return rc;
}

const cpu_op_entry cpu_ops_loss[] = {
    {"NegativeLogLikelihoodLoss", op_nll, CPU_F16_VIA_F32, &loss_prep_op},
    {"SoftmaxCrossEntropyLoss", op_sce, CPU_F16_VIA_F32, &loss_prep_op},
    {NULL, NULL, 0, NULL},
};
