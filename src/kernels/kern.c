/* Element access, strides, strided copies and broadcasting shared by the kernels. */
#include "kernels/kern.h"

#include <math.h>
#include <string.h>

#include "util/elem.h"
#include "util/fp.h"

void kern_set_f64(tosac_dtype dt, void *p, int64_t i, double v)
{
    switch (dt) {
    case TOSAC_DT_F32: ((float *)p)[i] = (float)v; return;
    case TOSAC_DT_F64: ((double *)p)[i] = v; return;
    case TOSAC_DT_F16: ((uint16_t *)p)[i] = tosac_f32_to_f16((float)v); return;
    case TOSAC_DT_BF16: ((uint16_t *)p)[i] = tosac_f32_to_bf16((float)v); return;
    case TOSAC_DT_FP8E4M3: ((uint8_t *)p)[i] = tosac_f32_to_fp8e4m3((float)v, 1); return;
    case TOSAC_DT_FP8E5M2: ((uint8_t *)p)[i] = tosac_f32_to_fp8e5m2((float)v, 1); return;
    case TOSAC_DT_BOOL: ((uint8_t *)p)[i] = v != 0; return;
    case TOSAC_DT_U64:
        ((uint64_t *)p)[i] = isnan(v) || v <= 0 ? 0 : v >= 18446744073709551615.0 ? UINT64_MAX
                                                                                  : (uint64_t)v;
        return;
    default: kern_set_i64(dt, p, i, tosac_f64_to_i64_sat(v));
    }
}

void kern_set_i64(tosac_dtype dt, void *p, int64_t i, int64_t v)
{
    switch (dt) {
    case TOSAC_DT_BOOL: ((uint8_t *)p)[i] = v != 0; return;
    case TOSAC_DT_U8: ((uint8_t *)p)[i] = (uint8_t)v; return;
    case TOSAC_DT_I4:
    case TOSAC_DT_I8: ((int8_t *)p)[i] = (int8_t)v; return;
    case TOSAC_DT_U16: ((uint16_t *)p)[i] = (uint16_t)v; return;
    case TOSAC_DT_I16: ((int16_t *)p)[i] = (int16_t)v; return;
    case TOSAC_DT_U32: ((uint32_t *)p)[i] = (uint32_t)v; return;
    case TOSAC_DT_I32: ((int32_t *)p)[i] = (int32_t)v; return;
    case TOSAC_DT_I48:
    case TOSAC_DT_I64:
    case TOSAC_DT_SHAPE: ((int64_t *)p)[i] = v; return;
    case TOSAC_DT_U64: ((uint64_t *)p)[i] = (uint64_t)v; return;
    default: kern_set_f64(dt, p, i, (double)v); return;
    }
}

void kern_strides(int rank, const int64_t *shape, int64_t *strides)
{
    int64_t s = 1;
    for (int i = rank - 1; i >= 0; i--) {
        strides[i] = s;
        s *= shape[i];
    }
}

void kern_strided_copy(size_t elem, int rank, const int64_t *shape, const int64_t *stride,
                       int64_t offset, const void *src, void *dst)
{
    const char *s = src;
    char *d = dst;
    if (rank == 0) {
        memcpy(d, s + offset * (int64_t)elem, elem);
        return;
    }
    for (int k = 0; k < rank; k++)
        if (shape[k] == 0)
            return;
    int64_t idx[TOSAC_MAX_RANK] = {0};
    int64_t inner = shape[rank - 1], istride = stride[rank - 1];
    int64_t off = offset;
    for (;;) {
        if (istride == 1) {
            memcpy(d, s + off * (int64_t)elem, (size_t)inner * elem);
            d += inner * (int64_t)elem;
        } else {
            for (int64_t j = 0; j < inner; j++, d += elem)
                memcpy(d, s + (off + j * istride) * (int64_t)elem, elem);
        }
        /* odometer over the outer dimensions, keeping off in step */
        int k = rank - 2;
        for (; k >= 0; k--) {
            off += stride[k];
            if (++idx[k] < shape[k])
                break;
            off -= stride[k] * shape[k];
            idx[k] = 0;
        }
        if (k < 0)
            return;
    }
}

int kern_bcast_init(kern_bcast *b, int n_in, const int *ranks, const int64_t *const *shapes)
{
    memset(b, 0, sizeof *b);
    b->n_in = n_in;
    int r = 0;
    for (int i = 0; i < n_in; i++)
        if (ranks[i] > r)
            r = ranks[i];
    b->rank = r;
    for (int k = 0; k < r; k++) {
        int64_t d = 1;
        for (int i = 0; i < n_in; i++) {
            int pos = k - (r - ranks[i]);
            if (pos < 0)
                continue;
            int64_t di = shapes[i][pos];
            if (di == d || di == 1)
                continue;
            if (d != 1)
                return -1;
            d = di;
        }
        b->shape[k] = d;
    }
    b->numel = 1;
    for (int k = 0; k < r; k++)
        b->numel *= b->shape[k];
    for (int i = 0; i < n_in; i++) {
        int64_t s = 1;
        for (int k = r - 1; k >= 0; k--) {
            int pos = k - (r - ranks[i]);
            int64_t di = pos < 0 ? 1 : shapes[i][pos];
            b->stride[i][k] = (di == 1) ? 0 : s;
            s *= di;
        }
    }
    return 0;
}

/* The same iteration with fewer, longer dimensions: size-1 dimensions are dropped and a
 * dimension merges into the next one when every operand steps through both as one
 * (stride[k] == stride[k+1] * shape[k+1], which also holds for two broadcast 0s). The
 * output is contiguous either way, so the runs keep their order. [1,C,H,W] op [1,C,1,1]
 * becomes [C, H*W]: runs of H*W elements against one scalar. */
static void bcast_coalesce(const kern_bcast *b, kern_bcast *c)
{
    *c = *b;
    int r = 0;
    for (int k = 0; k < b->rank; k++) {
        if (b->shape[k] == 1)
            continue;
        int merge = r > 0;
        for (int i = 0; i < b->n_in && merge; i++)
            if (c->stride[i][r - 1] != b->stride[i][k] * b->shape[k])
                merge = 0;
        if (merge) {
            c->shape[r - 1] *= b->shape[k];
            for (int i = 0; i < b->n_in; i++)
                c->stride[i][r - 1] = b->stride[i][k];
            continue;
        }
        c->shape[r] = b->shape[k];
        for (int i = 0; i < b->n_in; i++)
            c->stride[i][r] = b->stride[i][k];
        r++;
    }
    c->rank = r;
}

void kern_bcast_rows_init(kern_bcast_rows *r, const kern_bcast *b)
{
    memset(r, 0, sizeof *r);
    r->done = b->numel == 0;
    if (r->done)
        return;
    bcast_coalesce(b, &r->b);
    int rank = r->b.rank;
    r->n = rank ? r->b.shape[rank - 1] : 1;
    for (int i = 0; i < r->b.n_in; i++)
        r->inner[i] = rank ? r->b.stride[i][rank - 1] : 0;
}

int kern_bcast_rows_next(kern_bcast_rows *r)
{
    if (r->done)
        return 0;
    if (!r->started) {
        r->started = 1;
        return 1;
    }
    const kern_bcast *b = &r->b;
    r->out_off += r->n;
    /* odometer over the outer dimensions, keeping the offsets in step */
    for (int k = b->rank - 2; k >= 0; k--) {
        for (int i = 0; i < b->n_in; i++)
            r->off[i] += b->stride[i][k];
        if (++r->idx[k] < b->shape[k])
            return 1;
        for (int i = 0; i < b->n_in; i++)
            r->off[i] -= b->stride[i][k] * b->shape[k];
        r->idx[k] = 0;
    }
    r->done = 1;
    return 0;
}

void kern_bcast_each(const kern_bcast *b, kern_bcast_run_fn fn, void *ctx)
{
    kern_bcast_rows r;
    kern_bcast_rows_init(&r, b);
    while (kern_bcast_rows_next(&r))
        fn(ctx, r.n, r.off, r.inner, r.out_off);
}
