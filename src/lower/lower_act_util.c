/* Emit helpers for the activation, table, softmax, quantization and norm rules (see .h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lower/lower_act_util.h"
#include "util/fp.h"

void la_qrange(tosac_dtype dt, int64_t *lo, int64_t *hi)
{
    int bits = tosac_dtype_bits(dt);
    *lo = -(INT64_C(1) << (bits - 1));
    *hi = (INT64_C(1) << (bits - 1)) - 1;
}

/* v stored as one dt value in buf; false if it does not fit. */
static bool encode(tosac_dtype dt, double v, uint8_t *buf)
{
    if (isnan(v) && !tosac_dtype_is_float(dt))
        return false;
    switch (dt) {
    case TOSAC_DT_F32: { float f = (float)v; memcpy(buf, &f, 4); return true; }
    case TOSAC_DT_F16: { uint16_t h = tosac_f32_to_f16((float)v); memcpy(buf, &h, 2); return true; }
    case TOSAC_DT_BF16: { uint16_t h = tosac_f32_to_bf16((float)v); memcpy(buf, &h, 2); return true; }
    case TOSAC_DT_I8: case TOSAC_DT_I16: case TOSAC_DT_I32: {
        int64_t lo, hi;
        la_qrange(dt, &lo, &hi);
        if (v != floor(v) || v < (double)lo || v > (double)hi)
            return false;
        int64_t x = (int64_t)v;
        memcpy(buf, &x, tosac_dtype_size(dt)); /* little endian: the low bytes */
        return true;
    }
    default:
        return false;
    }
}

int la_like(lower_ctx *c, int t, double v)
{
    return t < 0 ? -1 : lx_fill(c, "const", lower_dtype(c, t), lower_rank(c, t), v);
}

static int emit(lower_ctx *c, tosa_op op, const tosa_attr *at, const int *ins, int n_ins,
                tosac_dtype dt, int rank, const int64_t *shape, int out)
{
    if (out < 0)
        out = lower_tmp(c, tosa_op_name(op), dt, rank, shape);
    if (out < 0 || lower_emit(c, op, at, ins, n_ins, &out, 1))
        return -1;
    return out;
}

static tosa_attr nan_attr(void)
{
    tosa_attr at;
    memset(&at, 0, sizeof at);
    at.nan_mode = TOSA_NAN_PROPAGATE;
    return at;
}

int la_unary(lower_ctx *c, tosa_op op, int a, int out)
{
    return lx_unary(c, op, a, TOSAC_DT_UNKNOWN, out);
}

int la_binary(lower_ctx *c, tosa_op op, int a, int b, int out)
{
    return lx_binary(c, op, a, b, TOSAC_DT_UNKNOWN, out);
}

int la_compare(lower_ctx *c, tosa_op op, int a, int b)
{
    return lx_binary(c, op, a, b, TOSAC_DT_BOOL, -1);
}

int la_clamp(lower_ctx *c, int a, double lo, double hi, int out)
{
    if (a < 0)
        return -1;
    tosac_dtype dt = lower_dtype(c, a);
    tosa_attr at = nan_attr();
    if (!encode(dt, lo, at.min_val) || !encode(dt, hi, at.max_val)) {
        tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "CLAMP bounds %g..%g do not fit %s", lo, hi,
                   tosac_dtype_name(dt));
        return -1;
    }
    at.n_min_val = at.n_max_val = (int)tosac_dtype_size(dt);
    int64_t shape[TOSAC_MAX_RANK];
    int r = lower_rank(c, a);
    memcpy(shape, lower_shape(c, a), (size_t)r * sizeof *shape);
    return emit(c, TOSA_OP_CLAMP, &at, &a, 1, dt, r, shape, out);
}

int la_reduce(lower_ctx *c, tosa_op op, int a, int axis, int out)
{
    if (a < 0)
        return -1;
    tosa_attr at = nan_attr();
    at.axis = axis;
    int64_t shape[TOSAC_MAX_RANK];
    int r = lower_rank(c, a);
    memcpy(shape, lower_shape(c, a), (size_t)r * sizeof *shape);
    shape[axis] = 1;
    return emit(c, op, &at, &a, 1, lower_dtype(c, a), r, shape, out);
}

bool la_const_scalar(const lower_ctx *c, const ir_node *n, int slot, double *v)
{
    tosac_tensor t;
    if (!lower_in_const(c, n, slot, &t) || tosac_tensor_numel(&t) != 1)
        return false;
    switch (t.dtype) {
    case TOSAC_DT_F32: *v = *(const float *)t.data; return true;
    case TOSAC_DT_F64: *v = *(const double *)t.data; return true;
    case TOSAC_DT_F16: *v = tosac_f16_to_f32(*(const uint16_t *)t.data); return true;
    case TOSAC_DT_BF16: *v = tosac_bf16_to_f32(*(const uint16_t *)t.data); return true;
    case TOSAC_DT_I8: *v = *(const int8_t *)t.data; return true;
    case TOSAC_DT_U8: *v = *(const uint8_t *)t.data; return true;
    case TOSAC_DT_I16: *v = *(const int16_t *)t.data; return true;
    case TOSAC_DT_I32: *v = *(const int32_t *)t.data; return true;
    case TOSAC_DT_I64: *v = (double)*(const int64_t *)t.data; return true;
    default: return false;
    }
}
