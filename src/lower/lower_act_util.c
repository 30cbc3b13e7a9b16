/* Emit helpers for the activation, table, softmax, quantization and norm rules (see .h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lower/lower_act_util.h"
#include "util/fp.h"

tosac_code la_unsupported(lower_ctx *c, const ir_node *n, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "%s: %s", n->op_type, msg);
}

tosac_code la_code(const lower_ctx *c)
{
    return c->err && c->err->code ? c->err->code : TOSAC_ERR_INTERNAL;
}

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

int la_const(lower_ctx *c, const char *prefix, tosac_dtype dt, int rank, double v)
{
    int64_t shape[TOSAC_MAX_RANK];
    for (int i = 0; i < rank; i++)
        shape[i] = 1;
    uint8_t buf[8] = {0};
    if (!encode(dt, v, buf)) {
        tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "constant %g cannot be a %s value", v,
                   tosac_dtype_name(dt));
        return -1;
    }
    return lower_const(c, prefix, dt, rank, shape, buf);
}

int la_like(lower_ctx *c, int t, double v)
{
    return t < 0 ? -1 : la_const(c, "const", lower_dtype(c, t), lower_rank(c, t), v);
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
    if (a < 0)
        return -1;
    tosa_attr at = nan_attr();
    int64_t shape[TOSAC_MAX_RANK];
    int r = lower_rank(c, a);
    memcpy(shape, lower_shape(c, a), (size_t)r * sizeof *shape);
    return emit(c, op, &at, &a, 1, lower_dtype(c, a), r, shape, out);
}

int la_cast(lower_ctx *c, int a, tosac_dtype dt, int out)
{
    if (a < 0)
        return -1;
    int64_t shape[TOSAC_MAX_RANK];
    int r = lower_rank(c, a);
    memcpy(shape, lower_shape(c, a), (size_t)r * sizeof *shape);
    return emit(c, TOSA_OP_CAST, NULL, &a, 1, dt, r, shape, out);
}

/* Broadcast shape of equal-rank operands (each dim equal or 1). */
static bool bshape(lower_ctx *c, const int *ts, int n, int *rank, int64_t *shape)
{
    int r = lower_rank(c, ts[0]);
    for (int d = 0; d < r; d++)
        shape[d] = 1;
    for (int i = 0; i < n; i++) {
        if (lower_rank(c, ts[i]) != r) {
            tosac_fail(c->err, TOSAC_ERR_INTERNAL, "elementwise operands of ranks %d and %d", r,
                       lower_rank(c, ts[i]));
            return false;
        }
        for (int d = 0; d < r; d++) {
            int64_t v = lower_shape(c, ts[i])[d];
            if (v != 1 && shape[d] != 1 && v != shape[d]) {
                tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "operands do not broadcast");
                return false;
            }
            if (v != 1)
                shape[d] = v;
        }
    }
    *rank = r;
    return true;
}

static int binary(lower_ctx *c, tosa_op op, int a, int b, int shift, tosac_dtype dt, int out)
{
    if (a < 0 || b < 0)
        return -1;
    int ins[3] = {a, b, -1}, r;
    int64_t shape[TOSAC_MAX_RANK];
    if (!bshape(c, ins, 2, &r, shape))
        return -1;
    if (op == TOSA_OP_MUL && (ins[2] = lower_scalar(c, "shift", TOSAC_DT_I8, shift)) < 0)
        return -1;
    tosa_attr at = nan_attr();
    return emit(c, op, &at, ins, op == TOSA_OP_MUL ? 3 : 2, dt, r, shape, out);
}

int la_binary(lower_ctx *c, tosa_op op, int a, int b, int out)
{
    return a < 0 ? -1 : binary(c, op, a, b, 0, lower_dtype(c, a), out);
}

int la_mul_shift(lower_ctx *c, int a, int b, int shift, int out)
{
    return binary(c, TOSA_OP_MUL, a, b, shift, TOSAC_DT_I32, out);
}

int la_compare(lower_ctx *c, tosa_op op, int a, int b)
{
    return binary(c, op, a, b, 0, TOSAC_DT_BOOL, -1);
}

int la_select(lower_ctx *c, int cond, int a, int b, int out)
{
    if (cond < 0 || a < 0 || b < 0)
        return -1;
    int ins[3] = {cond, a, b}, r;
    int64_t shape[TOSAC_MAX_RANK];
    if (!bshape(c, ins, 3, &r, shape))
        return -1;
    return emit(c, TOSA_OP_SELECT, NULL, ins, 3, lower_dtype(c, a), r, shape, out);
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

int la_rescale(lower_ctx *c, int t, double scale, int64_t in_zp, int64_t out_zp,
               tosac_dtype dt, int out)
{
    lower_rescale_args ra = {dt, &scale, 1, in_zp, out_zp, out, NULL};
    return lower_rescale(c, t, &ra);
}

tosac_code la_check_quant(lower_ctx *c, const ir_node *n, const ir_tensor *t)
{
    if (!t || !lower_is_quantized(t) || t->quant->n != 1)
        return la_unsupported(c, n, "'%s' is not quantized per tensor", t ? t->name : "?");
    if (t->dtype != TOSAC_DT_I8 && t->dtype != TOSAC_DT_I16)
        return la_unsupported(c, n, "quantized '%s' is %s, not int8/int16", t->name,
                              tosac_dtype_name(t->dtype));
    return TOSAC_OK;
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
