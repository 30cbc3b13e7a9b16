/* Accelerated CONV2D int8 x int8 -> i32, with the RESCALE (i32 -> i8) and CLAMP that follow
 * it fused (rt_accel_requant.h), on the qgemm micro-kernel (src/ukernels/qgemm.h): weights
 * [OC][KH][KW][IC] are B[k][n] with k = (ky * KW + kx) * IC + ic, packed once here; rows of A
 * are output pixels, im2col'd per block of rows into the thread's scratch (padding reads as
 * input_zp, which contributes 0 as the reference's skipped taps do), or read in place for a
 * 1x1, stride 1, unpadded convolution. Blocks of rows are the tasks of rt_accel_parallel. */
#include <string.h>

#include "interp/interp_registry.h"
#include "runtime/accel/rt_accel_requant.h"

#define SCRATCH_TARGET (96 * 1024) /* im2col bytes per task: stays in L2 */
#define ROW_ALIGN 12               /* rows per block: a multiple of every variant's tile */
#define MIN_ROWS 48                /* each task streams all of B: large-K layers (3x3x512) want
                                    * fewer, taller blocks (5% of resnet18) */
#define DIRECT_ROWS 96

typedef struct conv_prep {
    qgemm_packed pk;
    int batch, IH, IW, IC, OH, OW, KH, KW, sy, sx, dy, dx, pt, pl;
    int8_t izp;
    int direct;                 /* A is the input itself */
    int M, rows, n_tasks;       /* rows per task */
    void *dst;                  /* where the group's result goes (rt_accel_install) */
    unsigned char *task_bad;    /* per task: a RESCALE REQUIRE failed */
    rt_accel_shared *sh;
    /* for the reference rerun that reports a failed REQUIRE with the reference's words */
    interp_block_state *bs;
    int rescale_op;
} conv_prep;

typedef struct conv_run {
    const conv_prep *p;
    const int8_t *in;
} conv_run;

/* The im2col rows [m0, m0 + mb) into a (row stride K). With dilation 1 in x, the taps of
 * one kernel row that land inside the image are one contiguous span of the input. */
static void im2col(const conv_prep *p, const int8_t *in, int m0, int mb, int8_t *a)
{
    size_t K = (size_t)p->pk.K, ic = (size_t)p->IC;
    for (int r = 0; r < mb; r++) {
        int m = m0 + r, ox = m % p->OW, t = m / p->OW, oy = t % p->OH, b = t / p->OH;
        int8_t *row = a + (size_t)r * K;
        int ix0 = ox * p->sx - p->pl;
        for (int ky = 0; ky < p->KH; ky++) {
            int iy = oy * p->sy - p->pt + ky * p->dy;
            const int8_t *src = in + ((size_t)b * p->IH + (size_t)(iy < 0 ? 0 : iy)) * p->IW * ic;
            if (iy < 0 || iy >= p->IH) {
                memset(row, p->izp, ic * (size_t)p->KW);
                row += ic * (size_t)p->KW;
                continue;
            }
            if (p->dx == 1 && ix0 >= 0 && ix0 + p->KW <= p->IW) {
                memcpy(row, src + (size_t)ix0 * ic, ic * (size_t)p->KW);
                row += ic * (size_t)p->KW;
                continue;
            }
            for (int kx = 0; kx < p->KW; kx++, row += ic) {
                int ix = ix0 + kx * p->dx;
                if (ix < 0 || ix >= p->IW)
                    memset(row, p->izp, ic);
                else
                    memcpy(row, src + (size_t)ix * ic, ic);
            }
        }
    }
}

static void conv_task(void *ctx, int i, int thread)
{
    const conv_run *cr = ctx;
    const conv_prep *p = cr->p;
    int m0 = i * p->rows, mb = p->M - m0 < p->rows ? p->M - m0 : p->rows;
    const int8_t *a;
    size_t lda = (size_t)p->pk.K;
    if (p->direct) {
        a = cr->in + (size_t)m0 * lda;
    } else {
        int8_t *s = rt_accel_scratch(p->sh, thread);
        im2col(p, cr->in, m0, mb, s);
        a = s;
    }
    size_t esz = p->pk.out == QGEMM_OUT_I32 ? 4 : 1;
    void *c = (unsigned char *)p->dst + (size_t)m0 * (size_t)p->pk.N * esz;
    p->task_bad[i] = (unsigned char)(qgemm_run(&p->pk, a, lda, mb, 0, p->pk.N, c,
                                               (size_t)p->pk.N) != QGEMM_OK);
}

static tosac_code conv_invoke(interp_ctx *c)
{
    const conv_prep *p = c->op_data;
    conv_run cr = {p, c->in[0]->data};
    rt_accel_parallel(p->sh, p->n_tasks, conv_task, &cr);
    for (int i = 0; i < p->n_tasks; i++)
        if (p->task_bad[i])
            return rt_accel_requant_report(c, interp_find_op(TOSA_OP_CONV2D), p->bs,
                                           p->rescale_op);
    return TOSAC_OK;
}

static bool fits_int(int64_t v) { return v >= 1 && v <= (1 << 24); }

static int try_conv(rt_accel_block *ab, int op, tosac_error *err)
{
    const tosa_operator *o = &ab->b->ops[op];
    const tosa_attr *at = &o->attr;
    if (o->op != TOSA_OP_CONV2D || o->n_inputs != 5 || o->n_outputs != 1)
        return 0;
    for (int i = 1; i < 5; i++)
        if (!rt_accel_is_const(ab, o->inputs[i]))
            return 0;
    const tosac_tensor *in = rt_accel_tensor(ab, o->inputs[0]);
    const tosac_tensor *w = rt_accel_tensor(ab, o->inputs[1]);
    const tosac_tensor *bias = rt_accel_tensor(ab, o->inputs[2]);
    const tosac_tensor *izp = rt_accel_tensor(ab, o->inputs[3]);
    const tosac_tensor *wzp = rt_accel_tensor(ab, o->inputs[4]);
    const tosac_tensor *out = rt_accel_tensor(ab, o->outputs[0]);
    /* the reference's type row, operand ranks, zero points and attribute lengths */
    if (in->dtype != TOSAC_DT_I8 || (w->dtype != TOSAC_DT_I8 && w->dtype != TOSAC_DT_I4) ||
        out->dtype != TOSAC_DT_I32 || bias->dtype != TOSAC_DT_I32 ||
        at->acc_type != TOSAC_DT_I32 || in->rank != 4 || w->rank != 4 || out->rank != 4 ||
        bias->rank != 1 || at->n_stride != 2 || at->n_pad != 4 || at->n_dilation != 2 ||
        izp->dtype != TOSAC_DT_I8 || tosac_tensor_numel(izp) != 1 || !izp->data ||
        wzp->dtype != w->dtype || tosac_tensor_numel(wzp) != 1 || !wzp->data || !w->data ||
        !bias->data || *(const int8_t *)wzp->data != 0)
        return 0;
    const int64_t *is = in->shape, *ws = w->shape, *os = out->shape;
    int64_t OC = ws[0], KH = ws[1], KW = ws[2], IC = ws[3];
    if (!fits_int(is[0]) || !fits_int(is[1]) || !fits_int(is[2]) || !fits_int(IC) ||
        !fits_int(OC) || !fits_int(KH) || !fits_int(KW) || !fits_int(os[1]) || !fits_int(os[2]))
        return 0;
    if (is[3] != IC || os[0] != is[0] || os[3] != OC || (bias->shape[0] != OC && bias->shape[0] != 1))
        return 0;
    const int64_t ih[2] = {is[1], is[2]}, k[2] = {KH, KW}, oh[2] = {os[1], os[2]};
    for (int d = 0; d < 2; d++) { /* pad/stride/dilation ERROR_IFs, output size equations */
        int64_t s = at->stride[d], dl = at->dilation[d], p0 = at->pad[2 * d], p1 = at->pad[2 * d + 1];
        if (s < 1 || dl < 1 || p0 < 0 || p1 < 0 || s > (1 << 16) || dl > (1 << 16) ||
            p0 > (1 << 16) || p1 > (1 << 16))
            return 0;
        int64_t num = ih[d] - 1 + p0 + p1 - (k[d] - 1) * dl;
        if (num < 0 || num % s != 0 || oh[d] != num / s + 1)
            return 0;
    }
    int64_t K = KH * KW * IC, M = is[0] * os[1] * os[2];
    if (K > (1 << 24) || M > ((int64_t)1 << 30))
        return 0;

    rt_accel_requant rq;
    int fused = rt_accel_match_requant(ab, op, o->outputs[0], OC, &rq);
    qgemm_params q = {
        .K = (int)K, .N = (int)OC, .b = w->data, .b_sk = 1, .b_sn = (ptrdiff_t)K,
        .bias = bias->data, .n_bias = (int)bias->shape[0], .a_zp = *(const int8_t *)izp->data,
    };
    rt_accel_requant_qgemm(fused ? &rq : NULL, &q);
    conv_prep *p = rt_accel_alloc(ab, sizeof *p);
    size_t pbytes = qgemm_packed_size(q.K, q.N);
    void *mem = pbytes ? rt_accel_alloc(ab, pbytes) : NULL;
    if (!p || !mem)
        return 0;
    memset(p, 0, sizeof *p);
    if (ab->sh->measure_only ? !qgemm_pack_ok(qgemm_variant(), &q)
                             : !qgemm_pack(&p->pk, qgemm_variant(), &q, mem))
        return 0;
    p->batch = (int)is[0];
    p->IH = (int)is[1];
    p->IW = (int)is[2];
    p->IC = (int)IC;
    p->OH = (int)os[1];
    p->OW = (int)os[2];
    p->KH = (int)KH;
    p->KW = (int)KW;
    p->sy = at->stride[0];
    p->sx = at->stride[1];
    p->dy = at->dilation[0];
    p->dx = at->dilation[1];
    p->pt = at->pad[0];
    p->pl = at->pad[2];
    p->izp = (int8_t)q.a_zp;
    p->M = (int)M;
    p->direct = KH == 1 && KW == 1 && p->sy == 1 && p->sx == 1 && at->pad[0] == 0 &&
                at->pad[1] == 0 && at->pad[2] == 0 && at->pad[3] == 0;
    if (p->direct) {
        p->rows = DIRECT_ROWS;
    } else {
        int64_t r = SCRATCH_TARGET / K / ROW_ALIGN * ROW_ALIGN;
        p->rows = (int)(r < MIN_ROWS ? MIN_ROWS : r);
    }
    /* as many blocks as that needs, evened out (rounded up to the 6-row tile; still <= rows) */
    p->n_tasks = (p->M + p->rows - 1) / p->rows;
    p->rows = ((p->M + p->n_tasks - 1) / p->n_tasks + 5) / 6 * 6;
    if (p->rows > p->M)
        p->rows = p->M;
    p->n_tasks = (p->M + p->rows - 1) / p->rows;
    p->task_bad = rt_accel_alloc(ab, (size_t)p->n_tasks);
    if (!p->task_bad)
        return 0;
    memset(p->task_bad, 0, (size_t)p->n_tasks);
    p->sh = ab->sh;
    p->bs = ab->bs;
    p->rescale_op = fused ? rq.ops[0] : -1;
    int ops[3] = {op, fused ? rq.ops[0] : -1, fused && rq.n_ops > 1 ? rq.ops[1] : -1};
    int n_ops = fused ? 1 + rq.n_ops : 1;
    int in_t = o->inputs[0];
    if (!rt_accel_install(ab, ops, n_ops, &in_t, 1, o->outputs[0], fused ? rq.final : o->outputs[0],
                          conv_invoke, p, &p->dst))
        return 0;
    if (!p->direct)
        rt_accel_request_scratch(ab, (size_t)p->rows * (size_t)K);
    (void)err;
    return 1;
}

const rt_accel_family rt_accel_family_conv = {"conv", try_conv};
