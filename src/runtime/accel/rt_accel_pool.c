/* Accelerated MAX_POOL2D and AVG_POOL2D on int8 / int16: every window clipped to the image
 * once per output pixel, the bodies of src/ukernels/pool.h over contiguous channels, output
 * rows split over the thread pool. The checks mirror interp_pool.c's ERROR_IFs (outside them
 * the reference runs and reports). */
#include <string.h>

#include "interp/interp_arith.h"
#include "runtime/accel/rt_accel.h"
#include "ukernels/pool.h"

typedef struct pool_op {
    const pool_fns *fns;
    bool avg, i16;
    int N, IH, IW, C, OH, OW, KY, KX, SY, SX, PT, PL;
    pool_avg_params avgp;
    int n_tasks;
    void *dst;
    const rt_accel_shared *sh;
    const void *in;         /* per invoke */
} pool_op;

static void pool_task(void *ctx, int i, int thread)
{
    const pool_op *d = ctx;
    int rows = d->N * d->OH;
    int r0 = (int)((int64_t)rows * i / d->n_tasks), r1 = (int)((int64_t)rows * (i + 1) / d->n_tasks);
    size_t es = d->i16 ? 2 : 1, row = (size_t)d->IW * (size_t)d->C;
    int32_t *acc = rt_accel_scratch(d->sh, thread);
    for (int r = r0; r < r1; r++) {
        int n = r / d->OH, oy = r % d->OH;
        int iy = oy * d->SY - d->PT;
        int y0 = iy < 0 ? 0 : iy, y1 = iy + d->KY > d->IH ? d->IH : iy + d->KY;
        for (int ox = 0; ox < d->OW; ox++) {
            int ix = ox * d->SX - d->PL;
            int x0 = ix < 0 ? 0 : ix, x1 = ix + d->KX > d->IW ? d->IW : ix + d->KX;
            size_t win = ((size_t)n * (size_t)d->IH + (size_t)y0) * row + (size_t)x0 * (size_t)d->C;
            size_t o = (((size_t)r * (size_t)d->OW) + (size_t)ox) * (size_t)d->C;
            const unsigned char *src = (const unsigned char *)d->in + win * es;
            unsigned char *dst = (unsigned char *)d->dst + o * es;
            int wy = y1 - y0, wx = x1 - x0;
            if (!d->avg) {
                if (d->i16)
                    d->fns->max_i16((const int16_t *)src, row, wy, wx, d->C, (int16_t *)dst);
                else
                    d->fns->max_i8((const int8_t *)src, row, wy, wx, d->C, (int8_t *)dst);
                continue;
            }
            pool_avg_params p = d->avgp;
            arith_reciprocal_scale((uint32_t)(wy * wx), &p.mult, &p.shift); /* pad < kernel: > 0 */
            if (d->i16)
                d->fns->avg_i16((const int16_t *)src, row, wy, wx, d->C, acc, &p, (int16_t *)dst);
            else
                d->fns->avg_i8((const int8_t *)src, row, wy, wx, d->C, acc, &p, (int8_t *)dst);
        }
    }
}

static tosac_code pool_run(interp_ctx *c)
{
    pool_op *d = c->op_data;
    d->in = c->in[0]->data;
    rt_accel_parallel(d->sh, d->n_tasks, pool_task, d);
    return TOSAC_OK;
}

static bool small(int64_t v) { return v >= 0 && v <= INT32_MAX / 4; }

/* The zero point operand t of an avg pool: constant, shape [1], the operand's type, and 0
 * unless int8 (nn_read_zp). */
static bool read_zp(rt_accel_block *ab, int t, tosac_dtype dt, int32_t *v)
{
    const tosac_tensor *z = rt_accel_tensor(ab, t);
    if (!rt_accel_is_const(ab, t) || z->dtype != dt || tosac_tensor_numel(z) != 1 || !z->data)
        return false;
    *v = dt == TOSAC_DT_I8 ? *(const int8_t *)z->data : *(const int16_t *)z->data;
    return dt == TOSAC_DT_I8 || *v == 0;
}

static int pool_try(rt_accel_block *ab, int op, tosac_error *err)
{
    const tosa_operator *o = &ab->b->ops[op];
    const tosa_attr *a = &o->attr;
    bool avg = o->op == TOSA_OP_AVG_POOL2D;
    if ((o->op != TOSA_OP_MAX_POOL2D && !avg) || o->n_inputs != (avg ? 3 : 1) ||
        o->n_outputs != 1 || a->n_kernel < 2 || a->n_stride < 2 || a->n_pad < 4)
        return 0;
    const tosac_tensor *in = rt_accel_tensor(ab, o->inputs[0]), *out = rt_accel_tensor(ab, o->outputs[0]);
    tosac_dtype dt = in->dtype;
    if ((dt != TOSAC_DT_I8 && dt != TOSAC_DT_I16) || out->dtype != dt || in->rank != 4 ||
        out->rank != 4 || (avg && a->acc_type != TOSAC_DT_I32))
        return 0;
    int64_t N = in->shape[0], IH = in->shape[1], IW = in->shape[2], C = in->shape[3];
    int64_t OH = out->shape[1], OW = out->shape[2], KY = a->kernel[0], KX = a->kernel[1];
    int64_t SY = a->stride[0], SX = a->stride[1];
    int64_t PT = a->pad[0], PB = a->pad[1], PL = a->pad[2], PR = a->pad[3];
    if (KY < 1 || KX < 1 || SY < 1 || SX < 1 || PT < 0 || PB < 0 || PL < 0 || PR < 0 ||
        PR >= KX || PL >= KX || PT >= KY || PB >= KY || out->shape[0] != N || out->shape[3] != C ||
        !small(N) || !small(IH) || !small(IW) || !small(C) || !small(OH) || !small(OW) ||
        IH == 0 || IW == 0 || N * OH * OW * C == 0 || N * OH > INT32_MAX / 4 ||
        KY * KX > 32768 /* |window sum| < 2^31 for int16 */)
        return 0;
    int64_t ny = IH + PT + PB - KY, nx = IW + PL + PR - KX;
    if (ny < 0 || nx < 0 || ny % SY || nx % SX || OH != ny / SY + 1 || OW != nx / SX + 1)
        return 0;
    pool_op *d = rt_accel_alloc(ab, sizeof *d);
    if (!d)
        return 0;
    memset(d, 0, sizeof *d);
    if (avg && (!read_zp(ab, o->inputs[1], dt, &d->avgp.izp) ||
                !read_zp(ab, o->inputs[2], dt, &d->avgp.ozp)))
        return 0;
    d->avgp.lo = dt == TOSAC_DT_I8 ? INT8_MIN : INT16_MIN;
    d->avgp.hi = dt == TOSAC_DT_I8 ? INT8_MAX : INT16_MAX;
    d->fns = pool_select();
    d->avg = avg, d->i16 = dt == TOSAC_DT_I16;
    d->N = (int)N, d->IH = (int)IH, d->IW = (int)IW, d->C = (int)C, d->OH = (int)OH;
    d->OW = (int)OW, d->KY = (int)KY, d->KX = (int)KX, d->SY = (int)SY, d->SX = (int)SX;
    d->PT = (int)PT, d->PL = (int)PL;
    d->sh = ab->sh;
    int rows = (int)(N * OH), nt = ab->sh->n_threads > 1 ? 4 * ab->sh->n_threads : 1;
    d->n_tasks = rows < nt ? rows : nt;
    int inputs[1] = {o->inputs[0]};
    void *dst = NULL;
    /* alone, it cannot be staged: install declines if the plan let output and input overlap */
    if (!rt_accel_install(ab, &op, 1, inputs, 1, o->outputs[0], o->outputs[0], pool_run, d, &dst))
        return 0;
    d->dst = dst;
    if (avg)
        rt_accel_request_scratch(ab, (size_t)C * sizeof(int32_t));
    (void)err;
    return 1;
}

const rt_accel_family rt_accel_pool = {"pool", pool_try};
