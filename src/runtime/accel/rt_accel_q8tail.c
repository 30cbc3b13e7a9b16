/* Matching and preparing RESCALE (+CLAMP) after an int32 operator (see rt_accel_q8tail.h).
 * Every check mirrors a static ERROR_IF of op_rescale / op_clamp: outside them the family
 * declines and the reference runs (and reports). */
#include "runtime/accel/rt_accel_q8tail.h"
#include "runtime/accel/rt_accel_requant.h"

#include <stdbool.h>
#include <string.h>

static bool const_scalar(rt_accel_block *ab, int t, tosac_dtype dt)
{
    const tosac_tensor *x = rt_accel_tensor(ab, t);
    return rt_accel_is_const(ab, t) && x->dtype == dt && tosac_tensor_numel(x) == 1 && x->data;
}

int q8_tail_match(rt_accel_block *ab, int op, int acc, int C, const tosac_tensor *bias,
                  q8_tail *t, q8_requant *q)
{
    /* The RESCALE (+CLAMP) is matched as for conv/matmul (one matcher); what is kept here is
     * the per-channel layout of the depthwise/transpose-conv epilogues. */
    rt_accel_requant rq;
    if (C < 1 || !rt_accel_match_requant(ab, op, acc, C, &rq))
        return 0;
    if (bias->dtype != TOSAC_DT_I32 || bias->rank != 1 || !bias->data ||
        (bias->shape[0] != C && bias->shape[0] != 1))
        return 0;
    size_t n = (size_t)C;
    int32_t *b32 = rt_accel_alloc(ab, 3 * n * sizeof(int32_t));
    int64_t *b64 = rt_accel_alloc(ab, 5 * n * sizeof(int64_t));
    if (!b32 || !b64)
        return 0;
    q->bias = b32;
    q->vlo = b32 + n;
    q->vhi = b32 + 2 * n;
    q->mult = b64;
    q->round = b64 + n;
    q->dadj = b64 + 2 * n;
    q->shift = b64 + 3 * n;
    q->sub = b64 + 4 * n;
    q->check = q->dbl = 0;
    const int32_t *bv = bias->data;
    for (int c = 0; c < C; c++) {
        int k = rq.n > 1 ? c : 0;
        int32_t m = rq.mult[k];
        int s = rq.shift[k]; /* in [2, 62], m >= 0: checked by the matcher */
        bool d = rq.double_round && s > 31;
        ((int32_t *)q->bias)[c] = bv[bias->shape[0] == 1 ? 0 : c];
        ((int32_t *)q->vlo)[c] = s >= 32 ? INT32_MIN : -(int32_t)((int64_t)1 << (s - 1));
        ((int32_t *)q->vhi)[c] = s >= 32 ? INT32_MAX : (int32_t)(((int64_t)1 << (s - 1)) - 1);
        ((int64_t *)q->mult)[c] = m;
        ((int64_t *)q->round)[c] = ((int64_t)1 << (s - 1)) + (d ? (int64_t)1 << 30 : 0) +
                                   ((int64_t)1 << 62);
        ((int64_t *)q->dadj)[c] = d ? (int64_t)1 << 31 : 0;
        ((int64_t *)q->shift)[c] = s;
        ((int64_t *)q->sub)[c] = (int64_t)1 << (62 - s);
        q->check |= s < 32;
        q->dbl |= d;
    }
    size_t n16 = (n + 15) / 16 * 16;
    int64_t *eo = rt_accel_alloc(ab, 5 * n16 * sizeof(int64_t));
    if (!eo)
        return 0;
    for (size_t c = 0; c < n16; c++) {
        size_t at = c / 16 * 16 + c % 2 * 8 + c % 16 / 2;
        bool real = c < n;
        eo[at] = real ? q->mult[c] : 0;
        eo[n16 + at] = real ? q->round[c] : ((int64_t)1 << 62) + 2;
        eo[2 * n16 + at] = real ? q->dadj[c] : 0;
        eo[3 * n16 + at] = real ? q->shift[c] : 2;
        eo[4 * n16 + at] = real ? q->sub[c] : (int64_t)1 << 60;
    }
    q->eo = eo;
    q->eo_stride = (int)n16;
    q->ozp = rq.out_zp;
    q->lo = rq.lo;
    q->hi = rq.hi;
    t->ops[0] = rq.ops[0];
    t->ops[1] = rq.n_ops > 1 ? rq.ops[1] : -1;
    t->n_ops = rq.n_ops;
    t->final = rq.final;
    return 1;
}

int q8_conv_operands(rt_accel_block *ab, const tosa_operator *o, q8_conv *c)
{
    if (o->n_inputs != 5 || o->n_outputs != 1 || o->attr.acc_type != TOSAC_DT_I32)
        return 0;
    c->in = rt_accel_tensor(ab, o->inputs[0]);
    c->w = rt_accel_tensor(ab, o->inputs[1]);
    c->bias = rt_accel_tensor(ab, o->inputs[2]);
    c->out = rt_accel_tensor(ab, o->outputs[0]);
    for (int k = 1; k < 5; k++)
        if (!rt_accel_is_const(ab, o->inputs[k]))
            return 0;
    if (c->in->dtype != TOSAC_DT_I8 || c->w->dtype != TOSAC_DT_I8 || c->out->dtype != TOSAC_DT_I32 ||
        c->in->rank != 4 || c->w->rank != 4 || c->out->rank != 4 || !c->w->data ||
        !const_scalar(ab, o->inputs[3], TOSAC_DT_I8) || !const_scalar(ab, o->inputs[4], TOSAC_DT_I8))
        return 0;
    c->izp = *(const int8_t *)rt_accel_tensor(ab, o->inputs[3])->data;
    c->wzp = *(const int8_t *)rt_accel_tensor(ab, o->inputs[4])->data;
    return 1;
}

int q8_n_tasks(const rt_accel_block *ab, int64_t rows)
{
    int nt = ab->sh->n_threads > 1 ? 4 * ab->sh->n_threads : 1;
    return rows < nt ? (int)rows : nt;
}

int q8_install(rt_accel_block *ab, int op, const q8_tail *t, interp_op_fn fn, void *data,
               void **dst)
{
    const tosa_operator *o = &ab->b->ops[op];
    int ops[3] = {op, t->ops[0], t->ops[1]};
    return rt_accel_install(ab, ops, 1 + t->n_ops, o->inputs, 1, o->outputs[0], t->final, fn,
                            data, dst);
}

tosac_code q8_run(interp_ctx *c, const rt_accel_shared *sh, int n_tasks, tosac_rt_task task,
                  void *ctx, int *bad)
{
    memset(bad, 0, sizeof(int) * (size_t)sh->n_threads);
    rt_accel_parallel(sh, n_tasks, task, ctx);
    for (int t = 0; t < sh->n_threads; t++)
        if (bad[t])
            return interp_error(c, "RESCALE after it: REQUIRE failed: a value outside the range "
                                "its shift allows");
    return TOSAC_OK;
}
