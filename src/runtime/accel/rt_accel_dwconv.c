/* Accelerated DEPTHWISE_CONV2D i8 x i8 -> i32 (channel multiplier 1) fused with the RESCALE
 * to i8 (+ CLAMP) that follows: weights packed once, for each output row the taps' input rows
 * as pointers (outside the image: a row of input_zp, which adds zero like the reference's
 * skipped taps), the kernel of src/ukernels/dwconv.h, rows split over the thread pool. */
#include <string.h>

#include "runtime/accel/rt_accel_q8tail.h"

typedef struct dw_op {
    dwconv_q8_params p;
    dwconv_q8_fn fn;
    int N, IH, IW, C, KH, KW, OH, OW, sy, sx, dy, dx, pt, pl;
    int n_tasks;
    const int8_t *padrow;   /* C values of input_zp */
    int8_t *dst;
    const rt_accel_shared *sh;
    /* per invoke */
    const int8_t *in;
    int *bad;               /* [n_tasks] */
} dw_op;

/* Rows [r0, r1) of the N * OH output rows. */
static void dw_rows(dw_op *d, int r0, int r1, int thread)
{
    const int K2 = 2 * d->p.n_pairs, C = d->C;
    const int8_t **taps = rt_accel_scratch(d->sh, thread);
    int bad = 0;
    for (int r = r0; r < r1; r++) {
        int n = r / d->OH, oy = r % d->OH;
        int iy0 = oy * d->sy - d->pt;
        const int8_t *img = d->in + (size_t)n * (size_t)d->IH * (size_t)d->IW * (size_t)C;
        /* pixels whose window lies inside the image in x: ox_lo <= ox < ox_hi */
        int ox_lo = (d->pl + d->sx - 1) / d->sx;
        int ox_hi = d->IW - 1 - (d->KW - 1) * d->dx + d->pl;
        ox_hi = ox_hi < 0 ? 0 : ox_hi / d->sx + 1;
        ox_hi = ox_hi > d->OW ? d->OW : ox_hi;
        const size_t step = (size_t)d->sx * (size_t)C;
        for (int ox = 0; ox < d->OW; ox++) {
            const int8_t **t = taps + (size_t)ox * (size_t)K2;
            int ix0 = ox * d->sx - d->pl, k = 0;
            if (ox > ox_lo && ox < ox_hi) { /* the previous pixel's taps, sx pixels on */
                const int8_t **prev = t - K2;
                for (int j = 0; j < d->KH * d->KW; j++)
                    t[j] = prev[j] == d->padrow ? prev[j] : prev[j] + step;
                for (int j = d->KH * d->KW; j < K2; j++)
                    t[j] = d->padrow;
                continue;
            }
            for (int ky = 0; ky < d->KH; ky++) {
                int y = iy0 + ky * d->dy;
                for (int kx = 0; kx < d->KW; kx++, k++) {
                    int x = ix0 + kx * d->dx;
                    t[k] = y >= 0 && y < d->IH && x >= 0 && x < d->IW
                               ? img + ((size_t)y * (size_t)d->IW + (size_t)x) * (size_t)C
                               : d->padrow;
                }
            }
            for (; k < K2; k++)
                t[k] = d->padrow; /* the odd tap's partner: weight 0 */
        }
        bad |= d->fn(&d->p, taps, d->OW, d->dst + (size_t)r * (size_t)d->OW * (size_t)C);
    }
    d->bad[thread] |= bad;
}

static void dw_task(void *ctx, int i, int thread)
{
    dw_op *d = ctx;
    int rows = d->N * d->OH;
    dw_rows(d, (int)((int64_t)rows * i / d->n_tasks), (int)((int64_t)rows * (i + 1) / d->n_tasks),
            thread);
}

static tosac_code dw_run(interp_ctx *c)
{
    dw_op *d = c->op_data;
    d->in = c->in[0]->data;
    return q8_run(c, d->sh, d->n_tasks, dw_task, d, d->bad);
}

static bool fits_int(int64_t v) { return v >= 0 && v <= INT32_MAX / 4; }

static int dw_try(rt_accel_block *ab, int op, tosac_error *err)
{
    const tosa_operator *o = &ab->b->ops[op];
    const tosa_attr *a = &o->attr;
    if (o->op != TOSA_OP_DEPTHWISE_CONV2D || a->n_stride < 2 || a->n_pad < 4 ||
        a->n_dilation < 2)
        return 0;
    q8_conv cv;
    if (!q8_conv_operands(ab, o, &cv))
        return 0;
    const tosac_tensor *in = cv.in, *w = cv.w, *bias = cv.bias, *out = cv.out;
    int64_t N = in->shape[0], IH = in->shape[1], IW = in->shape[2], C = in->shape[3];
    int64_t KH = w->shape[0], KW = w->shape[1], OH = out->shape[1], OW = out->shape[2];
    int64_t sy = a->stride[0], sx = a->stride[1], dy = a->dilation[0], dx = a->dilation[1];
    int64_t pt = a->pad[0], pb = a->pad[1], pl = a->pad[2], pr = a->pad[3];
    /* conv_check_window / conv_check_channels / conv_check_bias, on small enough values */
    if (w->shape[2] != C || w->shape[3] != 1 || out->shape[0] != N || out->shape[3] != C ||
        !fits_int(N) || !fits_int(IH) || !fits_int(IW) || !fits_int(C) || !fits_int(OH) ||
        !fits_int(OW) || KH < 1 || KW < 1 || KH * KW > 1024 || sy < 1 || sx < 1 || dy < 1 ||
        dx < 1 || sy > 1024 || sx > 1024 || dy > 1024 || dx > 1024 || pt < 0 || pb < 0 ||
        pl < 0 || pr < 0 || pt > 1024 || pb > 1024 || pl > 1024 || pr > 1024 || N * OH * OW == 0 ||
        IH * IW == 0 || N * OH > INT32_MAX / 4)
        return 0;
    int64_t ny = IH - 1 + pt + pb - (KH - 1) * dy, nx = IW - 1 + pl + pr - (KW - 1) * dx;
    if (ny < 0 || nx < 0 || ny % sy || nx % sx || OH != ny / sy + 1 || OW != nx / sx + 1)
        return 0;
    dw_op *d = rt_accel_alloc(ab, sizeof *d);
    if (!d)
        return 0;
    memset(d, 0, sizeof *d);
    q8_tail tail;
    if (!q8_tail_match(ab, op, o->outputs[0], (int)C, bias, &tail, &d->p.q))
        return 0;
    int taps = (int)(KH * KW);
    int16_t *pw = rt_accel_alloc(ab, dwconv_q8_packed_bytes((int)C, taps));
    int8_t *pad = rt_accel_alloc(ab, (size_t)C);
    d->bad = rt_accel_alloc(ab, sizeof(int) * (size_t)ab->sh->n_threads);
    if (!pw || !pad || !d->bad)
        return 0;
    int8_t iz = cv.izp;
    dwconv_q8_pack(pw, w->data, (int)C, taps, cv.wzp);
    memset(pad, (unsigned char)iz, (size_t)C);
    d->p.C = (int)C;
    d->p.n_pairs = (taps + 1) / 2;
    d->p.w = pw;
    dwconv_q8_fold_zp((int32_t *)d->p.q.bias, pw, (int)C, d->p.n_pairs, iz);
    d->fn = dwconv_q8_select();
    d->N = (int)N, d->IH = (int)IH, d->IW = (int)IW, d->C = (int)C, d->KH = (int)KH;
    d->KW = (int)KW, d->OH = (int)OH, d->OW = (int)OW, d->sy = (int)sy, d->sx = (int)sx;
    d->dy = (int)dy, d->dx = (int)dx, d->pt = (int)pt, d->pl = (int)pl;
    d->padrow = pad;
    d->sh = ab->sh;
    d->n_tasks = q8_n_tasks(ab, N * OH);
    void *dst = NULL;
    if (!q8_install(ab, op, &tail, dw_run, d, &dst))
        return 0;
    d->dst = dst;
    rt_accel_request_scratch(ab, (size_t)OW * (size_t)(2 * d->p.n_pairs) * sizeof(int8_t *));
    (void)err;
    return 1;
}

const rt_accel_family rt_accel_dwconv = {"dwconv", dw_try};
