/* Operator group: data layout (CONCAT, PAD, RESHAPE, REVERSE, SLICE, TILE, TRANSPOSE).
 *
 * These ops only move elements, so they work on raw bytes of tosac_dtype_size() and support
 * every element type alike. Each one is expressed as a copy between two strided views
 * (copy_view): SLICE offsets the source, REVERSE negates a stride, TRANSPOSE permutes the
 * strides, TILE splits each output dim into (multiple, dim) with a zero stride, PAD and
 * CONCAT place the source inside a larger destination. */
#include <string.h>

#include "interp/interp_internal.h"

#define VIEW_MAX_RANK (2 * TOSAC_MAX_RANK) /* TILE doubles the rank */

/* Copies shape[] elements from src (base + sum idx*src_st) to dst (base + sum idx*dst_st);
 * strides and bases count elements. Runs contiguous in both are copied with memcpy. */
static void copy_view(uint8_t *dst, int64_t dst_base, const int64_t *dst_st, const uint8_t *src,
                      int64_t src_base, const int64_t *src_st, int rank, const int64_t *shape,
                      size_t esz)
{
    for (int d = 0; d < rank; d++)
        if (shape[d] == 0)
            return;
    /* the innermost dim is handled as a run; iterate the outer dims */
    int64_t run = rank > 0 ? shape[rank - 1] : 1;
    int64_t ds = rank > 0 ? dst_st[rank - 1] : 1, ss = rank > 0 ? src_st[rank - 1] : 1;
    int outer_rank = rank > 0 ? rank - 1 : 0;
    int64_t idx[VIEW_MAX_RANK] = {0};
    int64_t doff = dst_base, soff = src_base;
    for (;;) {
        if (ds == 1 && ss == 1) {
            memcpy(dst + doff * esz, src + soff * esz, (size_t)run * esz);
        } else {
            for (int64_t k = 0; k < run; k++)
                memcpy(dst + (doff + k * ds) * esz, src + (soff + k * ss) * esz, esz);
        }
        /* advance the outer multi-index, keeping both offsets in step */
        int d = outer_rank - 1;
        for (; d >= 0; d--) {
            doff += dst_st[d];
            soff += src_st[d];
            if (++idx[d] < shape[d])
                break;
            doff -= dst_st[d] * shape[d];
            soff -= src_st[d] * shape[d];
            idx[d] = 0;
        }
        if (d < 0)
            return;
    }
}

/* Row-major element strides of a shape. */
static void strides_of(int rank, const int64_t *shape, int64_t *st)
{
    int64_t s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        st[d] = s;
        s *= shape[d];
    }
}

/* Reads a shape_t operand into vals (at most max values). shape_t values are a rank-1
 * tensor; a rank-0 one is the empty shape: the conformance files declare the shape operand
 * of a rank-0 RESHAPE as shape [] with one dummy value 0. */
static tosac_code read_shape_operand(interp_ctx *c, const tosac_tensor *t, const char *what,
                                     int64_t *vals, int max, int *n)
{
    if (t->dtype != TOSAC_DT_SHAPE && t->dtype != TOSAC_DT_I64 && t->dtype != TOSAC_DT_I32)
        return interp_error(c, "%s operand has type %s, not shape", what, tosac_dtype_name(t->dtype));
    if (t->rank > 1)
        return interp_error(c, "%s operand has rank %d, not 1", what, t->rank);
    int64_t cnt = t->rank == 0 ? 0 : tosac_tensor_numel(t);
    if (cnt > max)
        return interp_error(c, "%s operand has %lld values, at most %d allowed", what,
                            (long long)cnt, max);
    for (int64_t i = 0; i < cnt; i++)
        vals[i] = interp_get_int(t, i);
    *n = (int)cnt;
    return TOSAC_OK;
}

static tosac_code check_same_type(interp_ctx *c, const tosac_tensor *in, const tosac_tensor *out)
{
    if (in->dtype != out->dtype)
        return interp_error(c, "ERROR_IF: output type %s differs from input type %s",
                            tosac_dtype_name(out->dtype), tosac_dtype_name(in->dtype));
    return TOSAC_OK;
}

#define TRY(x)                                                                                 \
    do {                                                                                       \
        tosac_code rc_ = (x);                                                                  \
        if (rc_ != TOSAC_OK)                                                                   \
            return rc_;                                                                        \
    } while (0)

/* ---------------------------------------------------------------- CONCAT */

tosac_code interp_op_concat(interp_ctx *c)
{
    tosac_tensor *out = c->out[0];
    int axis = c->op->attr.axis;
    INTERP_ERROR_IF(c, c->n_in < 1);
    const tosac_tensor *first = c->in[0];
    INTERP_ERROR_IF(c, first->rank < 1);
    INTERP_ERROR_IF(c, axis < 0 || axis >= first->rank);
    INTERP_ERROR_IF(c, out->rank != first->rank);
    int64_t axis_sum = 0;
    for (int t = 0; t < c->n_in; t++) {
        const tosac_tensor *in = c->in[t];
        TRY(check_same_type(c, in, out));
        if (in->rank != first->rank)
            return interp_error(c, "ERROR_IF: input %d has rank %d, input 0 rank %d", t, in->rank,
                                first->rank);
        for (int d = 0; d < in->rank; d++)
            if (d != axis && in->shape[d] != out->shape[d])
                return interp_error(c, "ERROR_IF: input %d dim %d is %lld, output %lld", t, d,
                                    (long long)in->shape[d], (long long)out->shape[d]);
        axis_sum += in->shape[axis];
    }
    if (axis_sum != out->shape[axis])
        return interp_error(c, "ERROR_IF(axis_sum != shape[axis]): %lld != %lld",
                            (long long)axis_sum, (long long)out->shape[axis]);
    size_t esz = tosac_dtype_size(out->dtype);
    int64_t ost[TOSAC_MAX_RANK], ist[TOSAC_MAX_RANK];
    strides_of(out->rank, out->shape, ost);
    int64_t pos = 0;
    for (int t = 0; t < c->n_in; t++) {
        const tosac_tensor *in = c->in[t];
        strides_of(in->rank, in->shape, ist);
        copy_view(out->data, pos * ost[axis], ost, in->data, 0, ist, in->rank, in->shape, esz);
        pos += in->shape[axis];
    }
    return TOSAC_OK;
}

/* ---------------------------------------------------------------- PAD */

tosac_code interp_op_pad(interp_ctx *c)
{
    INTERP_ERROR_IF(c, c->n_in != 3);
    const tosac_tensor *in = c->in[0], *padc = c->in[2];
    tosac_tensor *out = c->out[0];
    TRY(check_same_type(c, in, out));
    INTERP_ERROR_IF(c, padc->dtype != in->dtype || tosac_tensor_numel(padc) != 1);
    int64_t pad[2 * TOSAC_MAX_RANK];
    int npad;
    TRY(read_shape_operand(c, c->in[1], "padding", pad, 2 * TOSAC_MAX_RANK, &npad));
    INTERP_ERROR_IF(c, out->rank != in->rank);
    if (npad != 2 * in->rank)
        return interp_error(c, "ERROR_IF: padding has %d values, rank %d needs %d", npad, in->rank,
                            2 * in->rank);
    for (int d = 0; d < in->rank; d++) {
        if (pad[2 * d] < 0 || pad[2 * d + 1] < 0)
            return interp_error(c, "ERROR_IF(padding < 0): dim %d pads %lld, %lld", d,
                                (long long)pad[2 * d], (long long)pad[2 * d + 1]);
        /* written as a difference so huge untrusted pads cannot overflow */
        if (pad[2 * d] > out->shape[d] || pad[2 * d + 1] > out->shape[d] - pad[2 * d] ||
            out->shape[d] - pad[2 * d] - pad[2 * d + 1] != in->shape[d])
            return interp_error(c, "ERROR_IF(shape[%d] != padding[%d] + shape1[%d] + "
                                "padding[%d]): output %lld, input %lld, pads %lld, %lld", d,
                                2 * d, d, 2 * d + 1, (long long)out->shape[d],
                                (long long)in->shape[d], (long long)pad[2 * d],
                                (long long)pad[2 * d + 1]);
    }
    size_t esz = tosac_dtype_size(out->dtype);
    int64_t n = tosac_tensor_numel(out);
    uint8_t *o = out->data;
    if (n > 0) { /* fill with pad_const by doubling copies */
        memcpy(o, padc->data, esz);
        int64_t done = 1;
        while (done < n) {
            int64_t k = done < n - done ? done : n - done;
            memcpy(o + done * esz, o, (size_t)k * esz);
            done += k;
        }
    }
    int64_t ost[TOSAC_MAX_RANK], ist[TOSAC_MAX_RANK], base = 0;
    strides_of(out->rank, out->shape, ost);
    strides_of(in->rank, in->shape, ist);
    for (int d = 0; d < in->rank; d++)
        base += pad[2 * d] * ost[d];
    copy_view(o, base, ost, in->data, 0, ist, in->rank, in->shape, esz);
    return TOSAC_OK;
}

/* ---------------------------------------------------------------- RESHAPE */

tosac_code interp_op_reshape(interp_ctx *c)
{
    INTERP_ERROR_IF(c, c->n_in != 2);
    const tosac_tensor *in = c->in[0];
    tosac_tensor *out = c->out[0];
    TRY(check_same_type(c, in, out));
    int64_t shp[TOSAC_MAX_RANK];
    int n;
    TRY(read_shape_operand(c, c->in[1], "shape", shp, TOSAC_MAX_RANK, &n));
    if (n != out->rank)
        return interp_error(c, "shape operand has %d values, output rank is %d", n, out->rank);
    for (int d = 0; d < n; d++)
        if (shp[d] != out->shape[d])
            return interp_error(c, "shape operand dim %d is %lld, output dim %lld", d,
                                (long long)shp[d], (long long)out->shape[d]);
    int64_t ni = tosac_tensor_numel(in), no = tosac_tensor_numel(out);
    if (ni != no)
        return interp_error(c, "ERROR_IF(tensor_size(shape1) != tensor_size(shape)): %lld != %lld",
                            (long long)ni, (long long)no);
    if (ni > 0)
        memmove(out->data, in->data, (size_t)ni * tosac_dtype_size(in->dtype));
    return TOSAC_OK;
}

/* ---------------------------------------------------------------- REVERSE */

tosac_code interp_op_reverse(interp_ctx *c)
{
    INTERP_ERROR_IF(c, c->n_in != 1);
    const tosac_tensor *in = c->in[0];
    tosac_tensor *out = c->out[0];
    int axis = c->op->attr.axis;
    TRY(check_same_type(c, in, out));
    INTERP_ERROR_IF(c, !tosac_shape_equal(out->rank, out->shape, in->rank, in->shape));
    INTERP_ERROR_IF(c, axis < 0 || axis >= in->rank);
    int64_t ost[TOSAC_MAX_RANK], ist[TOSAC_MAX_RANK];
    strides_of(in->rank, in->shape, ost);
    strides_of(in->rank, in->shape, ist);
    int64_t base = (in->shape[axis] - 1) * ist[axis];
    ist[axis] = -ist[axis];
    copy_view(out->data, 0, ost, in->data, base, ist, in->rank, in->shape,
              tosac_dtype_size(in->dtype));
    return TOSAC_OK;
}

/* ---------------------------------------------------------------- SLICE */

tosac_code interp_op_slice(interp_ctx *c)
{
    INTERP_ERROR_IF(c, c->n_in != 3);
    const tosac_tensor *in = c->in[0];
    tosac_tensor *out = c->out[0];
    TRY(check_same_type(c, in, out));
    int64_t start[TOSAC_MAX_RANK], size[TOSAC_MAX_RANK];
    int ns, nz;
    TRY(read_shape_operand(c, c->in[1], "start", start, TOSAC_MAX_RANK, &ns));
    TRY(read_shape_operand(c, c->in[2], "size", size, TOSAC_MAX_RANK, &nz));
    INTERP_ERROR_IF(c, in->rank != ns || in->rank != nz);
    INTERP_ERROR_IF(c, in->rank != out->rank);
    int64_t ist[TOSAC_MAX_RANK], ost[TOSAC_MAX_RANK], base = 0;
    strides_of(in->rank, in->shape, ist);
    strides_of(out->rank, out->shape, ost);
    for (int d = 0; d < in->rank; d++) {
        if (start[d] < 0 || size[d] <= 0 || start[d] > in->shape[d] - size[d])
            return interp_error(c, "ERROR_IF: dim %d start %lld size %lld outside input dim %lld",
                                d, (long long)start[d], (long long)size[d],
                                (long long)in->shape[d]);
        if (out->shape[d] != size[d])
            return interp_error(c, "ERROR_IF(shape[%d] != size[%d]): %lld != %lld", d, d,
                                (long long)out->shape[d], (long long)size[d]);
        base += start[d] * ist[d];
    }
    copy_view(out->data, 0, ost, in->data, base, ist, in->rank, out->shape,
              tosac_dtype_size(in->dtype));
    return TOSAC_OK;
}

/* ---------------------------------------------------------------- TILE */

tosac_code interp_op_tile(interp_ctx *c)
{
    INTERP_ERROR_IF(c, c->n_in != 2);
    const tosac_tensor *in = c->in[0];
    tosac_tensor *out = c->out[0];
    TRY(check_same_type(c, in, out));
    int64_t mult[TOSAC_MAX_RANK];
    int nm;
    TRY(read_shape_operand(c, c->in[1], "multiples", mult, TOSAC_MAX_RANK, &nm));
    INTERP_ERROR_IF(c, in->rank != out->rank);
    INTERP_ERROR_IF(c, nm != in->rank);
    /* view the output as [m0, s0, m1, s1, ...]; the multiple dims read with stride 0 */
    int64_t vshape[VIEW_MAX_RANK], vsrc[VIEW_MAX_RANK], vdst[VIEW_MAX_RANK];
    int64_t ist[TOSAC_MAX_RANK], ost[TOSAC_MAX_RANK];
    strides_of(in->rank, in->shape, ist);
    strides_of(out->rank, out->shape, ost);
    for (int d = 0; d < in->rank; d++) {
        int64_t prod;
        if (mult[d] < 0 || __builtin_mul_overflow(in->shape[d], mult[d], &prod) ||
            prod != out->shape[d])
            return interp_error(c, "ERROR_IF(shape1[%d] * multiples[%d] != shape[%d]): "
                                "%lld * %lld != %lld", d, d, d, (long long)in->shape[d],
                                (long long)mult[d], (long long)out->shape[d]);
        vshape[2 * d] = mult[d];
        vshape[2 * d + 1] = in->shape[d];
        vsrc[2 * d] = 0;
        vsrc[2 * d + 1] = ist[d];
        vdst[2 * d] = in->shape[d] * ost[d];
        vdst[2 * d + 1] = ost[d];
    }
    copy_view(out->data, 0, vdst, in->data, 0, vsrc, 2 * in->rank, vshape,
              tosac_dtype_size(in->dtype));
    return TOSAC_OK;
}

/* ---------------------------------------------------------------- TRANSPOSE */

tosac_code interp_op_transpose(interp_ctx *c)
{
    INTERP_ERROR_IF(c, c->n_in != 1);
    const tosac_tensor *in = c->in[0];
    tosac_tensor *out = c->out[0];
    const tosa_attr *a = &c->op->attr;
    TRY(check_same_type(c, in, out));
    INTERP_ERROR_IF(c, in->rank != out->rank);
    if (a->n_perms != in->rank)
        return interp_error(c, "perms has %d values, rank is %d", a->n_perms, in->rank);
    bool used[TOSAC_MAX_RANK] = {false};
    for (int i = 0; i < in->rank; i++) {
        int p = a->perms[i];
        if (p < 0 || p >= in->rank || used[p])
            return interp_error(c, "ERROR_IF: perms[%d] = %d is out of range or repeated", i, p);
        used[p] = true;
        if (in->shape[p] != out->shape[i])
            return interp_error(c, "ERROR_IF(shape1[perms[%d]] != shape[%d]): %lld != %lld", i, i,
                                (long long)in->shape[p], (long long)out->shape[i]);
    }
    int64_t ist[TOSAC_MAX_RANK], ost[TOSAC_MAX_RANK], pst[TOSAC_MAX_RANK];
    strides_of(in->rank, in->shape, ist);
    strides_of(out->rank, out->shape, ost);
    for (int i = 0; i < in->rank; i++) /* output dim i walks input dim perms[i] */
        pst[i] = ist[a->perms[i]];
    copy_view(out->data, 0, ost, in->data, 0, pst, out->rank, out->shape,
              tosac_dtype_size(in->dtype));
    return TOSAC_OK;
}

const interp_op_entry interp_ops_data_layout[] = {
    {TOSA_OP_CONCAT, interp_op_concat},
    {TOSA_OP_PAD, interp_op_pad},
    {TOSA_OP_RESHAPE, interp_op_reshape},
    {TOSA_OP_REVERSE, interp_op_reverse},
    {TOSA_OP_SLICE, interp_op_slice},
    {TOSA_OP_TILE, interp_op_tile},
    {TOSA_OP_TRANSPOSE, interp_op_transpose},
    {TOSA_OP_UNKNOWN, NULL},
};
