/* Accelerated MATMUL int16 x int16 -> int48 (a16w8 attention and batched MatMul; both zero
 * points 0, or the reference's ERROR_IF) fused with the RESCALE i48 -> i16/i8 reading it and
 * a CLAMP after that, on the conv16 CONV2D kernel (src/ukernels/conv16.h): per batch, the H
 * rows of A are the pixels of a 1x1 convolution and B [C, W] its weights, packed as
 * [W/16][Kp/2][16][2]. A constant B is packed here, one pack per batch; an activation B per
 * invoke and batch into this operator's state. B values beyond 2047 in magnitude leave too
 * short an exact int32 chunk, so such a B is split into low and high bytes (two passes, the
 * same bits). Row blocks of a batch run on rt_accel_parallel; an int32 REQUIRE failing in the
 * RESCALE hands the group back to the reference, which reports it. */
#include <string.h>

#include "runtime/accel/rt_accel_conv16.h"
#include "runtime/accel/rt_accel_group.h"

#define MM16_ROWS 64          /* rows of A per task */
#define MM16_NARROW 2047      /* |b| up to this: one pass with a chunk of 32 or more */
#define MM16_SPLIT_CHUNK 256  /* 256 * 32768 * 255 < 2^31: exact for both byte halves */

typedef struct mm16_pack {
    const int16_t *lo, *hi;   /* hi: NULL unless split */
    int64_t chunk;
} mm16_pack;

typedef struct mm16_data {
    rt_accel_group g;
    ukr_conv16 p;             /* a 1x1 CONV2D over rows of one batch (w, w_hi, chunk: pack) */
    ukr_conv16_fn fn;
    rt_accel_shared *sh;
    int64_t batch, H, C, W, n_blocks;
    bool dynamic;
    mm16_pack *packs;         /* constant B: one per batch; activation B: one, refilled */
    int16_t *dyn_mem;         /* activation B: room for a split pack (2 * pack_n) */
    int64_t pack_n;           /* int16 values of one pack: ceil(W/16) * 16 * Kp */
    bool *ok;                 /* per task of one parallel run */
} mm16_data;

static int64_t mm16_bmax(const int16_t *b, int64_t n)
{
    int64_t m = 1;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = b[i] < 0 ? -(int64_t)b[i] : b[i];
        m = v > m ? v : m;
    }
    return m;
}

/* Packs B [C][W] (row-major, int16) into lo (and hi when its values need a split) in the
 * kernel's layout; returns the chunk. mem: 2 * pack_n values. */
static mm16_pack mm16_pack_b(const int16_t *b, int64_t C, int64_t W, int64_t Kp, int16_t *mem,
                             int64_t pack_n)
{
    int64_t bmax = mm16_bmax(b, C * W);
    mm16_pack pk = {mem, NULL, MM16_SPLIT_CHUNK};
    bool split = bmax > MM16_NARROW;
    memset(mem, 0, sizeof(int16_t) * (size_t)(split ? 2 * pack_n : pack_n));
    int16_t *hi = mem + pack_n;
    for (int64_t k = 0; k < C; k++)
        for (int64_t n = 0; n < W; n++) {
            int64_t at = n / 16 * Kp * 16 + k / 2 * 32 + n % 16 * 2 + k % 2;
            int32_t v = b[k * W + n];
            if (split) {
                mem[at] = (int16_t)(v & 255);
                hi[at] = (int16_t)((v - (v & 255)) / 256);
            } else {
                mem[at] = (int16_t)v;
            }
        }
    if (split) {
        pk.hi = hi;
    } else {
        int64_t lim = (((int64_t)1 << 31) - 1) / (32768 * bmax);
        pk.chunk = lim / UKR_CONV16_KALIGN * UKR_CONV16_KALIGN;
    }
    if (pk.chunk > Kp)
        pk.chunk = Kp;
    return pk;
}

typedef struct mm16_run {
    const mm16_data *d;
    const int16_t *A;
    unsigned char *out;
    const mm16_pack *pk;
    int64_t n;                /* the batch */
} mm16_run;

static void mm16_task(void *ctx, int i, int thread)
{
    const mm16_run *r = ctx;
    const mm16_data *d = r->d;
    int64_t h0 = (int64_t)i * MM16_ROWS, h1 = h0 + MM16_ROWS < d->H ? h0 + MM16_ROWS : d->H;
    ukr_conv16 q = d->p;
    q.IW = q.OW = h1 - h0;
    q.w = r->pk->lo;
    q.w_hi = r->pk->hi;
    q.chunk = r->pk->chunk;
    int64_t row = r->n * d->H + h0;
    size_t esz = q.rs.out_bits == 8 ? 1 : 2;
    d->ok[i] = d->fn(&q, r->A + row * d->C, r->out + (size_t)(row * d->W) * esz,
                     rt_accel_scratch(d->sh, thread), 0, 1);
}

static tosac_code mm16_invoke(interp_ctx *c)
{
    mm16_data *d = c->op_data;
    mm16_run r = {d, c->in[0]->data, d->g.dst, NULL, 0};
    for (int64_t n = 0; n < d->batch; n++) {
        if (d->dynamic) {
            const int16_t *b = (const int16_t *)c->in[1]->data + n * d->C * d->W;
            d->packs[0] = mm16_pack_b(b, d->C, d->W, d->p.Kp, d->dyn_mem, d->pack_n);
        }
        r.n = n;
        r.pk = &d->packs[d->dynamic ? 0 : n];
        rt_accel_parallel(d->sh, (int)d->n_blocks, mm16_task, &r);
        for (int64_t i = 0; i < d->n_blocks; i++)
            if (!d->ok[i])
                return rt_accel_group_reference(c, &d->g);
    }
    return TOSAC_OK;
}

static int mm16_try(rt_accel_block *ab, int op, tosac_error *err)
{
    (void)err;
    const tosa_operator *o = &ab->b->ops[op];
    if (o->op != TOSA_OP_MATMUL || o->n_inputs != 4 || o->n_outputs != 1 ||
        !rt_accel_is_const(ab, o->inputs[2]) || !rt_accel_is_const(ab, o->inputs[3]))
        return 0;
    const tosac_tensor *A = rt_accel_tensor(ab, o->inputs[0]);
    const tosac_tensor *B = rt_accel_tensor(ab, o->inputs[1]);
    const tosac_tensor *azp = rt_accel_tensor(ab, o->inputs[2]);
    const tosac_tensor *bzp = rt_accel_tensor(ab, o->inputs[3]);
    const tosac_tensor *out = rt_accel_tensor(ab, o->outputs[0]);
    if (A->dtype != TOSAC_DT_I16 || B->dtype != TOSAC_DT_I16 || out->dtype != TOSAC_DT_I48 ||
        A->rank != 3 || B->rank != 3 || out->rank != 3 || azp->dtype != TOSAC_DT_I16 ||
        bzp->dtype != TOSAC_DT_I16 || tosac_tensor_numel(azp) != 1 ||
        tosac_tensor_numel(bzp) != 1 || !azp->data || !bzp->data ||
        *(const int16_t *)azp->data != 0 || *(const int16_t *)bzp->data != 0)
        return 0;
    int64_t N = A->shape[0], H = A->shape[1], C = A->shape[2], W = B->shape[2];
    const int64_t lim = (int64_t)1 << 24;
    if (N < 1 || H < 1 || C < 1 || W < 1 || N > lim || H > lim || C > lim || W > lim ||
        B->shape[0] != N || B->shape[1] != C || out->shape[0] != N || out->shape[1] != H ||
        out->shape[2] != W || N * H > ((int64_t)1 << 30))
        return 0;
    bool dynamic = !rt_accel_is_const(ab, o->inputs[1]);
    if (!dynamic && !B->data)
        return 0;
    mm16_data *d = rt_accel_alloc(ab, sizeof *d);
    if (!d)
        return 0;
    memset(d, 0, sizeof *d);
    ukr_conv16 *p = &d->p;
    p->N = p->IH = p->OH = p->KH = p->KW = 1;
    p->IC = C;
    p->OC = W;
    p->sy = p->sx = p->dy = p->dx = 1;
    int tail[2];
    int n_tail = rt_accel_tail16(ab, op, W, p, tail);
    if (!n_tail)
        return 0;
    p->Kp = (C + UKR_CONV16_KALIGN - 1) / UKR_CONV16_KALIGN * UKR_CONV16_KALIGN;
    d->batch = N;
    d->H = H;
    d->C = C;
    d->W = W;
    d->n_blocks = (H + MM16_ROWS - 1) / MM16_ROWS;
    d->dynamic = dynamic;
    d->pack_n = (W + 15) / 16 * 16 * p->Kp;
    static const int64_t zero_bias = 0;
    p->bias = &zero_bias;
    p->n_bias = 1;
    int64_t *fin = rt_accel_alloc(ab, sizeof(int64_t) * 4 * (size_t)W);
    d->packs = rt_accel_alloc(ab, sizeof(mm16_pack) * (size_t)(dynamic ? 1 : N));
    d->ok = rt_accel_alloc(ab, sizeof(bool) * (size_t)d->n_blocks);
    if (!fin || !d->packs || !d->ok)
        return 0;
    ukr_conv16_finish_arrays(p, fin);
    if (dynamic) {
        d->dyn_mem = rt_accel_alloc(ab, sizeof(int16_t) * 2 * (size_t)d->pack_n);
        if (!d->dyn_mem)
            return 0;
    } else {
        for (int64_t n = 0; n < N; n++) {
            const int16_t *b = (const int16_t *)B->data + n * C * W;
            int16_t *mem = rt_accel_alloc(
                ab, sizeof(int16_t) * (size_t)d->pack_n *
                        (mm16_bmax(b, C * W) > MM16_NARROW ? 2 : 1));
            if (!mem)
                return 0;
            d->packs[n] = mm16_pack_b(b, C, W, p->Kp, mem, d->pack_n);
        }
    }
    d->fn = ukr_conv16_select(kern_isa_active());
    d->sh = ab->sh;
    rt_accel_request_scratch(ab, ukr_conv16_scratch(p));
    int ops[3] = {op, tail[0], tail[1]};
    int ins[2] = {o->inputs[0], o->inputs[1]};
    return rt_accel_group_install(ab, &d->g, ops, 1 + n_tail, ins, dynamic ? 2 : 1,
                                  o->outputs[0], mm16_invoke, d);
}

const rt_accel_family rt_accel_matmul16 = {"matmul16", mm16_try};
