/* Accelerated a16w8 convolutions (kernels: src/ukernels/conv16*.c): CONV2D,
 * DEPTHWISE_CONV2D and TRANSPOSE_CONV2D int16 x int8 -> int48 (a transposed one as a CONV2D
 * whose patches gather the input pixels landing on each output pixel), fused with the
 * RESCALE i48 -> i16/i8 reading the
 * result and a CLAMP after it when there is one. Weights are packed here as int16
 * (w - weight_zp); every static check of the reference operators is made here or the group
 * is left to the reference; an int32 REQUIRE failing in the RESCALE at invoke hands the
 * group back to the reference, which reports it. */
#include <string.h>

#include "runtime/accel/rt_accel_conv16.h"
#include "runtime/accel/rt_accel_ewise.h"

typedef struct conv16_data {
    rt_accel_group g;
    ukr_conv16 p;
    ukr_conv16_fn fn;
    rt_accel_shared *sh;
} conv16_data;

/* Output rows split into tasks, one per thread (disjoint rows, own scratch). */
#define CONV16_MAX_TASKS 64
typedef struct conv16_run {
    const conv16_data *d;
    const int16_t *in;
    int64_t rows;
    int n_tasks;
    bool ok[CONV16_MAX_TASKS];
} conv16_run;

static void conv16_task(void *ctx, int i, int thread)
{
    conv16_run *r = ctx;
    const conv16_data *d = r->d;
    int64_t r0 = r->rows * i / r->n_tasks, r1 = r->rows * (i + 1) / r->n_tasks;
    r->ok[i] = d->fn(&d->p, r->in, d->g.dst, rt_accel_scratch(d->sh, thread), r0, r1);
}

static tosac_code run_conv16(interp_ctx *c)
{
    conv16_data *d = c->op_data;
    conv16_run r;
    r.d = d;
    r.in = c->in[0]->data;
    r.rows = d->p.N * d->p.OH;
    r.n_tasks = d->sh->n_threads < CONV16_MAX_TASKS ? d->sh->n_threads : CONV16_MAX_TASKS;
    if (r.n_tasks > r.rows)
        r.n_tasks = (int)r.rows;
    if (r.n_tasks < 1)
        r.n_tasks = 1;
    rt_accel_parallel(d->sh, r.n_tasks, conv16_task, &r);
    for (int i = 0; i < r.n_tasks; i++)
        if (!r.ok[i])
            return rt_accel_group_reference(c, &d->g);
    return TOSAC_OK;
}

/* The reference's output-size equation (idiv_check exact, non-negative). */
static bool out_dim_ok(int64_t in, int64_t pad0, int64_t pad1, int64_t k, int64_t dil,
                       int64_t stride, int64_t out)
{
    if (k < 1 || dil < 1 || stride < 1 || pad0 < 0 || pad1 < 0 || k > 1 << 16 || dil > 1 << 16)
        return false;
    int64_t num = in - 1 + pad0 + pad1 - (k - 1) * dil;
    return num >= 0 && num % stride == 0 && out == num / stride + 1;
}

/* TRANSPOSE_CONV2D's output size (OH = (IH - 1) * stride + pad0 + pad1 + KH) and the
 * reference's ERROR_IFs on out_pad (> -KH) and stride (>= 1), on bounded values. */
static bool tr_dim_ok(int64_t in, int64_t pad0, int64_t pad1, int64_t k, int64_t stride,
                      int64_t out)
{
    if (k < 1 || k > 1 << 16 || stride < 1 || stride > 1 << 16 || in < 1 || in > 1 << 24 ||
        pad0 <= -k || pad1 <= -k || pad0 > 1 << 24 || pad1 > 1 << 24)
        return false;
    return out == (in - 1) * stride + pad0 + pad1 + k;
}

/* The RESCALE reading the convolution: scale16 (apply_scale_16), i48 -> i8/i16. */
static bool rescale16_params(rt_accel_block *ab, int op, ukr_rescale *p)
{
    return rt_accel_rescale_params(ab, op, p) && p->in_bits == 48 && p->scale16 &&
           (p->out_bits == 8 || p->out_bits == 16);
}

/* The CLAMP reading t (its one reader) of the RESCALE's type, or -1; *lo / *hi its bounds. */
static int clamp_after(rt_accel_block *ab, int rescale, int t, int64_t *lo, int64_t *hi)
{
    int op = rt_accel_sole_reader(ab, t);
    if (op < 0 || op != rt_accel_next_op(ab, rescale) || ab->claimed[op])
        return -1;
    const tosa_operator *o = &ab->b->ops[op];
    if (o->op != TOSA_OP_CLAMP || o->n_inputs != 1 || o->n_outputs != 1)
        return -1;
    const tosac_tensor *in = rt_accel_operand(ab, op, 0), *out = rt_accel_operand(ab, op, 1);
    int nb = in->dtype == TOSAC_DT_I8 ? 1 : in->dtype == TOSAC_DT_I16 ? 2 : 0;
    if (!nb || out->dtype != in->dtype ||
        !tosac_shape_equal(in->rank, in->shape, out->rank, out->shape) ||
        o->attr.n_min_val < nb || o->attr.n_max_val < nb)
        return -1;
    *lo = nb == 1 ? (int8_t)o->attr.min_val[0]
                  : (int16_t)(uint16_t)(o->attr.min_val[0] | o->attr.min_val[1] << 8);
    *hi = nb == 1 ? (int8_t)o->attr.max_val[0]
                  : (int16_t)(uint16_t)(o->attr.max_val[0] | o->attr.max_val[1] << 8);
    return *hi >= *lo ? op : -1;
}

int rt_accel_tail16(rt_accel_block *ab, int op, int64_t OC, ukr_conv16 *p, int ops[2])
{
    int t = ab->b->ops[op].outputs[0], rs = rt_accel_sole_reader(ab, t);
    if (rs < 0 || rs != rt_accel_next_op(ab, op) || ab->claimed[rs] ||
        !rescale16_params(ab, rs, &p->rs))
        return 0;
    if (p->rs.n_ch != 1 && p->rs.n_ch != OC)
        return 0;
    p->lo = p->rs.lo;
    p->hi = p->rs.hi;
    int64_t clo, chi;
    int cl = clamp_after(ab, rs, ab->b->ops[rs].outputs[0], &clo, &chi);
    if (cl >= 0) {
        p->lo = clo > p->lo ? clo : p->lo;
        p->hi = chi < p->hi ? chi : p->hi;
        if (p->lo > p->hi) /* the CLAMP maps every value to its bound: keep it simple */
            return 0;
    }
    ops[0] = rs;
    ops[1] = cl;
    return cl >= 0 ? 2 : 1;
}

static int conv16_try(rt_accel_block *ab, int op, tosac_error *err)
{
    (void)err;
    const tosa_operator *o = &ab->b->ops[op];
    bool dw = o->op == TOSA_OP_DEPTHWISE_CONV2D, tr = o->op == TOSA_OP_TRANSPOSE_CONV2D;
    if ((o->op != TOSA_OP_CONV2D && !dw && !tr) || o->n_inputs != 5 || o->n_outputs != 1)
        return 0;
    const tosa_attr *a = &o->attr;
    const tosac_tensor *in = rt_accel_operand(ab, op, 0), *w = rt_accel_operand(ab, op, 1),
                       *bias = rt_accel_operand(ab, op, 2), *izp = rt_accel_operand(ab, op, 3),
                       *wzp = rt_accel_operand(ab, op, 4), *out = rt_accel_operand(ab, op, 5);
    if (in->dtype != TOSAC_DT_I16 || w->dtype != TOSAC_DT_I8 || out->dtype != TOSAC_DT_I48 ||
        bias->dtype != TOSAC_DT_I48 || a->acc_type != TOSAC_DT_I48 || in->rank != 4 ||
        w->rank != 4 || out->rank != 4 || bias->rank != 1 || a->n_stride < 2 ||
        (tr ? a->n_out_pad < 4 : a->n_pad < 4 || a->n_dilation < 2) ||
        izp->dtype != TOSAC_DT_I16 || wzp->dtype != TOSAC_DT_I8 ||
        tosac_tensor_numel(izp) != 1 || tosac_tensor_numel(wzp) != 1)
        return 0;
    for (int k = 1; k < 5; k++)
        if (!rt_accel_is_const(ab, o->inputs[k]))
            return 0;
    if (((const int16_t *)izp->data)[0] != 0)
        return 0;
    int wz = ((const int8_t *)wzp->data)[0];
    ukr_conv16 p;
    memset(&p, 0, sizeof p);
    p.N = in->shape[0];
    p.IH = in->shape[1];
    p.IW = in->shape[2];
    p.IC = in->shape[3];
    p.KH = dw ? w->shape[0] : w->shape[1];
    p.KW = dw ? w->shape[1] : w->shape[2];
    p.M = dw ? w->shape[3] : 0;
    p.OC = dw ? p.IC * p.M : w->shape[0];
    p.OH = out->shape[1];
    p.OW = out->shape[2];
    p.sy = a->stride[0];
    p.sx = a->stride[1];
    p.dy = tr ? 1 : a->dilation[0];
    p.dx = tr ? 1 : a->dilation[1];
    p.pt = tr ? a->out_pad[0] : a->pad[0];
    p.pl = tr ? a->out_pad[2] : a->pad[2];
    p.transposed = tr;
    int64_t w_ic = dw ? w->shape[2] : w->shape[3];
    int64_t bc = bias->shape[0];
    if (tr ? !tr_dim_ok(p.IH, a->out_pad[0], a->out_pad[1], p.KH, p.sy, p.OH) ||
                 !tr_dim_ok(p.IW, a->out_pad[2], a->out_pad[3], p.KW, p.sx, p.OW)
           : !out_dim_ok(p.IH, a->pad[0], a->pad[1], p.KH, p.dy, p.sy, p.OH) ||
                 !out_dim_ok(p.IW, a->pad[2], a->pad[3], p.KW, p.dx, p.sx, p.OW))
        return 0;
    if (w_ic != p.IC ||
        out->shape[0] != p.N || out->shape[3] != p.OC || (bc != p.OC && bc != 1) ||
        (dw && p.M < 1) || p.OC < 1 || p.IC < 1)
        return 0;
    /* the group: the RESCALE reading the result, and a CLAMP after it */
    int t = o->outputs[0], tail[2];
    int n_tail = rt_accel_tail16(ab, op, p.OC, &p, tail);
    if (!n_tail)
        return 0;
    /* pack w - weight_zp as int16 (CONV2D: 16 output channels side by side, zero padded) and
     * bound the exact int32 sums */
    int64_t K = p.KH * p.KW * p.IC, nw = tosac_tensor_numel(w);
    p.Kp = dw ? K : (K + UKR_CONV16_KALIGN - 1) / UKR_CONV16_KALIGN * UKR_CONV16_KALIGN;
    int64_t ocb = (p.OC + 15) / 16, n_packed = dw ? nw : ocb * 16 * p.Kp;
    int16_t *pw = rt_accel_alloc(ab, sizeof(int16_t) * (size_t)n_packed);
    conv16_data *d = rt_accel_alloc(ab, sizeof *d);
    if (!pw || !d)
        return 0;
    const int8_t *src = w->data;
    int64_t wmax = 1;
    for (int64_t i = 0; i < nw; i++) {
        int64_t v = src[i] - wz;
        wmax = (v < 0 ? -v : v) > wmax ? (v < 0 ? -v : v) : wmax;
    }
    if (dw) { /* [KH,KW,C,M]: already the kernel's order */
        for (int64_t i = 0; i < nw; i++)
            pw[i] = (int16_t)(src[i] - wz);
    } else { /* [OC,KH,KW,IC] -> [OC/16][Kp/2][16][2]: k pairs side by side per channel */
        for (int64_t i = 0; i < n_packed; i++)
            pw[i] = 0;
        for (int64_t oc = 0; oc < p.OC; oc++)
            for (int64_t k = 0; k < K; k++)
                pw[oc / 16 * p.Kp * 16 + k / 2 * 32 + oc % 16 * 2 + k % 2] =
                    (int16_t)(src[oc * K + k] - wz);
    }
    int64_t lim = (((int64_t)1 << 31) - 1) / (32768 * wmax);
    if (dw) {
        if (p.KH * p.KW > lim)
            return 0;
    } else {
        p.chunk = lim >= UKR_CONV16_KALIGN ? lim / UKR_CONV16_KALIGN * UKR_CONV16_KALIGN : lim;
        if (p.chunk > p.Kp)
            p.chunk = p.Kp;
    }
    p.w = pw;
    p.bias = bias->data;
    p.n_bias = bc;
    int64_t *fin = rt_accel_alloc(ab, sizeof(int64_t) * 4 * (size_t)p.OC);
    if (!fin)
        return 0;
    ukr_conv16_finish_arrays(&p, fin);
    d->p = p;
    d->fn = ukr_conv16_select(kern_isa_active());
    d->sh = ab->sh;
    rt_accel_request_scratch(ab, ukr_conv16_scratch(&p));
    int ops[3] = {op, tail[0], tail[1]};
    return rt_accel_group_install(ab, &d->g, ops, 1 + n_tail, &o->inputs[0], 1, t, run_conv16,
                                  d);
}

const rt_accel_family rt_accel_conv16 = {"conv16", conv16_try};
