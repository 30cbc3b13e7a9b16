/* Accelerated TRANSPOSE_CONV2D i8 x i8 -> i32 fused with the RESCALE to i8 (+ CLAMP) that
 * follows: weights packed once, for each output pixel the taps landing on it (output
 * oy = iy * stride + out_pad_top + ky) listed with their input pixels, the kernel of
 * src/ukernels/tconv.h, output rows split over the thread pool. The checks mirror
 * op_transpose_conv2d's ERROR_IFs (outside them the reference runs and reports). */
#include <string.h>

#include "runtime/accel/rt_accel_q8tail.h"
#include "ukernels/tconv.h"

typedef struct tc_op {
    tconv_q8_params p;
    tconv_q8_fn fn;
    int N, IH, IW, IC, OC, KH, KW, OH, OW, sy, sx, pt, pl;
    int n_tasks;
    int8_t *dst;
    const rt_accel_shared *sh;
    const int8_t *in;       /* per invoke */
    int *bad;               /* [threads] */
} tc_op;

/* Per thread: OC accumulators, then the taps' indices and input pixels. */
static size_t tc_scratch(int OC, int taps)
{
    return (size_t)OC * sizeof(int32_t) + (size_t)taps * sizeof(int) + 16 +
           (size_t)taps * sizeof(int8_t *);
}

static void tc_task(void *ctx, int i, int thread)
{
    tc_op *d = ctx;
    int rows = d->N * d->OH, taps = d->KH * d->KW;
    int r0 = (int)((int64_t)rows * i / d->n_tasks), r1 = (int)((int64_t)rows * (i + 1) / d->n_tasks);
    unsigned char *s = rt_accel_scratch(d->sh, thread);
    int32_t *acc = (int32_t *)s;
    int *tap = (int *)(s + (size_t)d->OC * sizeof(int32_t));
    const int8_t **x = (const int8_t **)(((uintptr_t)(tap + taps) + 15) & ~(uintptr_t)15);
    int bad = 0;
    for (int r = r0; r < r1; r++) {
        int n = r / d->OH, oy = r % d->OH;
        const int8_t *img = d->in + (size_t)n * (size_t)d->IH * (size_t)d->IW * (size_t)d->IC;
        for (int ox = 0; ox < d->OW; ox++) {
            int k = 0;
            for (int ky = 0; ky < d->KH; ky++) {
                int ty = oy - d->pt - ky;
                if (ty < 0 || ty % d->sy != 0 || ty / d->sy >= d->IH)
                    continue;
                for (int kx = 0; kx < d->KW; kx++) {
                    int tx = ox - d->pl - kx;
                    if (tx < 0 || tx % d->sx != 0 || tx / d->sx >= d->IW)
                        continue;
                    tap[k] = ky * d->KW + kx;
                    x[k++] = img + ((size_t)(ty / d->sy) * (size_t)d->IW + (size_t)(tx / d->sx)) *
                                       (size_t)d->IC;
                }
            }
            bad |= d->fn(&d->p, tap, x, k, acc,
                         d->dst + ((size_t)r * (size_t)d->OW + (size_t)ox) * (size_t)d->OC);
        }
    }
    d->bad[thread] |= bad;
}

static tosac_code tc_run(interp_ctx *c)
{
    tc_op *d = c->op_data;
    d->in = c->in[0]->data;
    return q8_run(c, d->sh, d->n_tasks, tc_task, d, d->bad);
}

static bool small(int64_t v) { return v >= 0 && v <= 65536; }

static int tc_try(rt_accel_block *ab, int op, tosac_error *err)
{
    const tosa_operator *o = &ab->b->ops[op];
    const tosa_attr *a = &o->attr;
    if (o->op != TOSA_OP_TRANSPOSE_CONV2D || a->n_stride < 2 ||
        a->n_out_pad < 4)
        return 0;
    q8_conv cv;
    if (!q8_conv_operands(ab, o, &cv))
        return 0;
    const tosac_tensor *in = cv.in, *w = cv.w, *bias = cv.bias, *out = cv.out;
    int64_t N = in->shape[0], IH = in->shape[1], IW = in->shape[2], IC = in->shape[3];
    int64_t OC = w->shape[0], KH = w->shape[1], KW = w->shape[2], OH = out->shape[1];
    int64_t OW = out->shape[2], sy = a->stride[0], sx = a->stride[1];
    int64_t pt = a->out_pad[0], pb = a->out_pad[1], pl = a->out_pad[2], pr = a->out_pad[3];
    if (!small(N) || !small(IH) || !small(IW) || !small(IC) || !small(OC) || !small(OH) ||
        !small(OW) || KH < 1 || KW < 1 || KH * KW > 1024 || sy < 1 || sx < 1 || sy > 1024 ||
        sx > 1024 || pt <= -KH || pb <= -KH || pl <= -KW || pr <= -KW || pt > 65536 ||
        pb > 65536 || pl > 65536 || pr > 65536 || IH == 0 || IW == 0 || IC == 0 ||
        N * OH * OW == 0 || N * OH > INT32_MAX / 4 || w->shape[3] != IC || out->shape[0] != N ||
        out->shape[3] != OC || OH != (IH - 1) * sy + pt + pb + KH ||
        OW != (IW - 1) * sx + pl + pr + KW)
        return 0;
    tc_op *d = rt_accel_alloc(ab, sizeof *d);
    if (!d)
        return 0;
    memset(d, 0, sizeof *d);
    q8_tail tail;
    if (!q8_tail_match(ab, op, o->outputs[0], (int)OC, bias, &tail, &d->p.q))
        return 0;
    int taps = (int)(KH * KW);
    int16_t *pw = rt_accel_alloc(ab, tconv_q8_packed_bytes((int)OC, taps, (int)IC));
    d->bad = rt_accel_alloc(ab, sizeof(int) * (size_t)ab->sh->n_threads);
    if (!pw || !d->bad)
        return 0;
    tconv_q8_pack(pw, w->data, (int)OC, taps, (int)IC, cv.wzp);
    d->p.IC = (int)IC, d->p.OC = (int)OC, d->p.ic_pairs = (int)(IC + 1) / 2, d->p.w = pw;
    d->p.izp = cv.izp;
    d->fn = tconv_q8_select();
    d->N = (int)N, d->IH = (int)IH, d->IW = (int)IW, d->IC = (int)IC, d->OC = (int)OC;
    d->KH = (int)KH, d->KW = (int)KW, d->OH = (int)OH, d->OW = (int)OW, d->sy = (int)sy;
    d->sx = (int)sx, d->pt = (int)pt, d->pl = (int)pl;
    d->sh = ab->sh;
    d->n_tasks = q8_n_tasks(ab, N * OH);
    void *dst = NULL;
    if (!q8_install(ab, op, &tail, tc_run, d, &dst))
        return 0;
    d->dst = dst;
    rt_accel_request_scratch(ab, tc_scratch((int)OC, taps));
    (void)err;
    return 1;
}

const rt_accel_family rt_accel_tconv = {"tconv", tc_try};
