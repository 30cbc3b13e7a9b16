/* Matching the RESCALE (+CLAMP) fused after an int32 accumulator (see rt_accel_requant.h). */
#include <string.h>

#include "interp/interp_registry.h"
#include "runtime/accel/rt_accel_requant.h"

static bool same_shape(const tosac_tensor *a, const tosac_tensor *b)
{
    return tosac_shape_equal(a->rank, a->shape, b->rank, b->shape);
}

static bool is_i(const tosac_tensor *t, tosac_dtype dt, int64_t numel)
{
    return t->dtype == dt && t->data && (numel < 0 || tosac_tensor_numel(t) == numel);
}

/* The CLAMP (int8, min_val <= max_val) reading tensor t right after op `after`. */
static bool match_clamp(const rt_accel_block *ab, int after, int t, rt_accel_requant *rq)
{
    int op = rt_accel_sole_reader(ab, t);
    if (op < 0 || rt_accel_next_op(ab, after) != op)
        return false;
    const tosa_operator *o = &ab->b->ops[op];
    if (o->op != TOSA_OP_CLAMP || o->n_inputs != 1 || o->n_outputs != 1 || o->inputs[0] != t)
        return false;
    const tosac_tensor *in = rt_accel_tensor(ab, t), *out = rt_accel_tensor(ab, o->outputs[0]);
    if (in->dtype != TOSAC_DT_I8 || out->dtype != TOSAC_DT_I8 || !same_shape(in, out) ||
        o->attr.n_min_val < 1 || o->attr.n_max_val < 1)
        return false;
    int32_t lo = (int8_t)o->attr.min_val[0], hi = (int8_t)o->attr.max_val[0];
    if (lo > hi)
        return false; /* the reference reports it */
    /* clamp(clamp(x, -128, 127), lo, hi) = clamp(x, lo, hi) */
    rq->lo = lo;
    rq->hi = hi;
    rq->ops[rq->n_ops++] = op;
    rq->final = o->outputs[0];
    return true;
}

int rt_accel_match_requant(const rt_accel_block *ab, int prod, int t, int64_t nc,
                           rt_accel_requant *rq)
{
    memset(rq, 0, sizeof *rq);
    int op = rt_accel_sole_reader(ab, t);
    if (op < 0 || rt_accel_next_op(ab, prod) != op)
        return 0;
    const tosa_operator *o = &ab->b->ops[op];
    const tosa_attr *a = &o->attr;
    if (o->op != TOSA_OP_RESCALE || o->n_inputs != 5 || o->n_outputs != 1 || o->inputs[0] != t)
        return 0;
    for (int i = 1; i < 5; i++)
        if (!rt_accel_is_const(ab, o->inputs[i]))
            return 0;
    const tosac_tensor *in = rt_accel_tensor(ab, t), *out = rt_accel_tensor(ab, o->outputs[0]);
    const tosac_tensor *mul = rt_accel_tensor(ab, o->inputs[1]);
    const tosac_tensor *sh = rt_accel_tensor(ab, o->inputs[2]);
    const tosac_tensor *izp = rt_accel_tensor(ab, o->inputs[3]);
    const tosac_tensor *ozp = rt_accel_tensor(ab, o->inputs[4]);
    int64_t n = a->per_channel ? nc : 1;
    if (in->dtype != TOSAC_DT_I32 || out->dtype != TOSAC_DT_I8 || !same_shape(in, out) ||
        in->rank < 1 || in->shape[in->rank - 1] != nc || !a->scale32 || a->input_unsigned ||
        a->output_unsigned || !is_i(mul, TOSAC_DT_I32, n) || mul->rank != 1 ||
        !is_i(sh, TOSAC_DT_I8, n) || sh->rank != 1 || !is_i(izp, TOSAC_DT_I32, 1) ||
        !is_i(ozp, TOSAC_DT_I8, 1) || *(const int32_t *)izp->data != 0)
        return 0;
    uint32_t rm = a->rounding_mode;
    if (rm != TOSA_ROUND_SINGLE && rm != TOSA_ROUND_INEXACT && rm != TOSA_ROUND_DOUBLE)
        return 0;
    rq->mult = mul->data;
    rq->shift = sh->data;
    rq->n = (int)n;
    for (int i = 0; i < rq->n; i++)
        if (rq->mult[i] < 0 || rq->shift[i] < 2 || rq->shift[i] > 62)
            return 0; /* a REQUIRE the reference reports at invoke */
    rq->double_round = rm == TOSA_ROUND_DOUBLE;
    rq->out_zp = *(const int8_t *)ozp->data;
    rq->lo = -128;
    rq->hi = 127;
    rq->ops[0] = op;
    rq->n_ops = 1;
    rq->final = o->outputs[0];
    match_clamp(ab, op, o->outputs[0], rq);
    return 1;
}

void rt_accel_requant_qgemm(const rt_accel_requant *rq, qgemm_params *q)
{
    q->out = rq ? QGEMM_OUT_I8 : QGEMM_OUT_I32;
    if (!rq)
        return;
    q->mult = rq->mult;
    q->shift = rq->shift;
    q->n_rq = rq->n;
    q->double_round = rq->double_round;
    q->out_zp = rq->out_zp;
    q->lo = rq->lo;
    q->hi = rq->hi;
}

tosac_code rt_accel_requant_report(interp_ctx *c, interp_op_fn first,
                                   const interp_block_state *bs, int rescale_op)
{
    tosac_code rc = first(c);
    if (rc)
        return rc;
    interp_ctx r = *c;
    r.op = &bs->block->ops[rescale_op];
    r.in = bs->operands + bs->operand_off[rescale_op];
    r.n_in = r.op->n_inputs;
    r.out = r.in + r.n_in;
    r.n_out = r.op->n_outputs;
    r.op_data = NULL;
    rc = interp_find_op(TOSA_OP_RESCALE)(&r);
    return rc ? rc : interp_error(c, "internal: the fused RESCALE failed, the reference's not");
}
