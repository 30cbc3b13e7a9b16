/* Helpers shared by the lower-more rule families (see lower_extra.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lower/lower_extra.h"
#include "util/fp.h"

tosac_code lx_unsupported(lower_ctx *c, const ir_node *n, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "%s: %s", n->op_type, msg);
}

tosac_code lx_code(const lower_ctx *c)
{
    return c->err && c->err->code ? c->err->code : TOSAC_ERR_INTERNAL;
}

bool lx_const_ints(const lower_ctx *c, const ir_node *n, int slot, int64_t *v, int max,
                   int *count)
{
    tosac_tensor t;
    if (!lower_in_const(c, n, slot, &t) || !tosac_dtype_is_int(t.dtype))
        return false;
    int64_t numel = tosac_tensor_numel(&t);
    if (numel > max)
        return false;
    for (int64_t i = 0; i < numel; i++) {
        switch (t.dtype) {
        case TOSAC_DT_I8: v[i] = ((const int8_t *)t.data)[i]; break;
        case TOSAC_DT_U8: v[i] = ((const uint8_t *)t.data)[i]; break;
        case TOSAC_DT_I16: v[i] = ((const int16_t *)t.data)[i]; break;
        case TOSAC_DT_U16: v[i] = ((const uint16_t *)t.data)[i]; break;
        case TOSAC_DT_I32: v[i] = ((const int32_t *)t.data)[i]; break;
        case TOSAC_DT_U32: v[i] = ((const uint32_t *)t.data)[i]; break;
        case TOSAC_DT_I64: v[i] = ((const int64_t *)t.data)[i]; break;
        default: return false; /* I4/I48/U64: never an axes/shape operand */
        }
    }
    *count = (int)numel;
    return true;
}

int lx_axis(int64_t axis, int rank)
{
    if (axis < -rank || axis >= rank)
        return -1;
    return (int)(axis < 0 ? axis + rank : axis);
}

int lx_fill(lower_ctx *c, const char *prefix, tosac_dtype dt, int rank, double v)
{
    int64_t shape[TOSAC_MAX_RANK];
    for (int i = 0; i < rank; i++)
        shape[i] = 1;
    uint8_t buf[8];
    bool ok = true;
    switch (dt) {
    case TOSAC_DT_F32: { float f = (float)v; memcpy(buf, &f, 4); break; }
    case TOSAC_DT_F16: { uint16_t h = tosac_f32_to_f16((float)v); memcpy(buf, &h, 2); break; }
    case TOSAC_DT_BF16: { uint16_t h = tosac_f32_to_bf16((float)v); memcpy(buf, &h, 2); break; }
    case TOSAC_DT_BOOL: buf[0] = v != 0.0; break;
    case TOSAC_DT_I8: ok = v >= -128 && v <= 127; buf[0] = (uint8_t)(int8_t)v; break;
    case TOSAC_DT_I16: {
        ok = v >= -32768 && v <= 32767;
        int16_t x = (int16_t)(ok ? v : 0);
        memcpy(buf, &x, 2);
        break;
    }
    case TOSAC_DT_I32: {
        ok = v >= -2147483648.0 && v <= 2147483647.0;
        int32_t x = (int32_t)(ok ? v : 0);
        memcpy(buf, &x, 4);
        break;
    }
    case TOSAC_DT_I48: case TOSAC_DT_I64: {
        int64_t x = (int64_t)v;
        memcpy(buf, &x, 8);
        break;
    }
    default: ok = false;
    }
    if (!ok || v != v) {
        tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "constant %g cannot be a %s value", v,
                   tosac_dtype_name(dt));
        return -1;
    }
    return lower_const(c, prefix, dt, rank, shape, buf);
}

static int emit1(lower_ctx *c, tosa_op op, const tosa_attr *at, const int *ins, int n_ins,
                 tosac_dtype dt, int rank, const int64_t *shape, int out)
{
    if (out < 0)
        out = lower_tmp(c, tosa_op_name(op), dt, rank, shape);
    if (out < 0 || lower_emit(c, op, at, ins, n_ins, &out, 1))
        return -1;
    return out;
}

int lx_unary(lower_ctx *c, tosa_op op, int a, tosac_dtype out_dt, int out)
{
    if (a < 0)
        return -1;
    int64_t shape[TOSAC_MAX_RANK];
    int r = lower_rank(c, a);
    memcpy(shape, lower_shape(c, a), (size_t)r * sizeof *shape);
    tosa_attr at;
    memset(&at, 0, sizeof at);
    at.nan_mode = TOSA_NAN_PROPAGATE;
    return emit1(c, op, &at, &a, 1, out_dt == TOSAC_DT_UNKNOWN ? lower_dtype(c, a) : out_dt, r,
                 shape, out);
}

/* The broadcast shape of equal-rank operands (dims equal or 1). */
static bool broadcast_shape(lower_ctx *c, const int *ts, int n, int *rank, int64_t *shape)
{
    int r = lower_rank(c, ts[0]);
    for (int i = 1; i < n; i++)
        if (lower_rank(c, ts[i]) != r) {
            tosac_fail(c->err, TOSAC_ERR_INTERNAL, "elementwise operands of ranks %d and %d", r,
                       lower_rank(c, ts[i]));
            return false;
        }
    for (int d = 0; d < r; d++) {
        shape[d] = 1;
        for (int i = 0; i < n; i++) {
            int64_t v = lower_shape(c, ts[i])[d];
            if (v != 1 && shape[d] != 1 && v != shape[d]) {
                tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "operand shapes do not broadcast "
                           "(dim %d: %lld vs %lld)", d, (long long)shape[d], (long long)v);
                return false;
            }
            if (v != 1)
                shape[d] = v;
        }
    }
    *rank = r;
    return true;
}

int lx_binary(lower_ctx *c, tosa_op op, int a, int b, tosac_dtype out_dt, int out)
{
    if (a < 0 || b < 0)
        return -1;
    int ins[3] = {a, b, -1}, r;
    int64_t shape[TOSAC_MAX_RANK];
    if (!broadcast_shape(c, ins, 2, &r, shape))
        return -1;
    int n_ins = 2;
    if (op == TOSA_OP_MUL) {
        if ((ins[2] = lower_scalar(c, "shift", TOSAC_DT_I8, 0)) < 0)
            return -1;
        n_ins = 3;
    }
    tosa_attr at;
    memset(&at, 0, sizeof at);
    at.nan_mode = TOSA_NAN_PROPAGATE;
    return emit1(c, op, &at, ins, n_ins, out_dt == TOSAC_DT_UNKNOWN ? lower_dtype(c, a) : out_dt,
                 r, shape, out);
}

int lx_negate(lower_ctx *c, int a, int out)
{
    if (a < 0)
        return -1;
    tosac_dtype dt = lower_dtype(c, a);
    int z1 = lx_fill(c, "input1_zp", dt, 1, 0.0), z2 = lx_fill(c, "output_zp", dt, 1, 0.0);
    if (z1 < 0 || z2 < 0)
        return -1;
    int ins[3] = {a, z1, z2}, r = lower_rank(c, a);
    int64_t shape[TOSAC_MAX_RANK];
    memcpy(shape, lower_shape(c, a), (size_t)r * sizeof *shape);
    return emit1(c, TOSA_OP_NEGATE, NULL, ins, 3, dt, r, shape, out);
}

int lx_cast(lower_ctx *c, int a, tosac_dtype dt, int out)
{
    return lx_unary(c, TOSA_OP_CAST, a, dt, out);
}

int lx_select(lower_ctx *c, int cond, int a, int b, int out)
{
    if (cond < 0 || a < 0 || b < 0)
        return -1;
    int ins[3] = {cond, a, b}, r;
    int64_t shape[TOSAC_MAX_RANK];
    if (!broadcast_shape(c, ins, 3, &r, shape))
        return -1;
    return emit1(c, TOSA_OP_SELECT, NULL, ins, 3, lower_dtype(c, a), r, shape, out);
}

int lx_identity(lower_ctx *c, int a, int out)
{
    return lx_unary(c, TOSA_OP_IDENTITY, a, TOSAC_DT_UNKNOWN, out);
}

tosac_code lx_check_quant(lower_ctx *c, const ir_node *n, const ir_tensor *t)
{
    if (!lower_is_quantized(t) || t->quant->n != 1)
        return lx_unsupported(c, n, "'%s' is not quantized per tensor", t ? t->name : "?");
    if (t->dtype != TOSAC_DT_I8 && t->dtype != TOSAC_DT_I16)
        return lx_unsupported(c, n, "quantized '%s' is %s, not int8/int16", t->name,
                              tosac_dtype_name(t->dtype));
    return TOSAC_OK;
}

bool lx_same_quant(const ir_tensor *a, const ir_tensor *b)
{
    return lower_is_quantized(a) && lower_is_quantized(b) && a->quant->n == 1 &&
           b->quant->n == 1 && a->dtype == b->dtype && lower_qscale(a) == lower_qscale(b) &&
           lower_qzp(a) == lower_qzp(b);
}

int lx_rescale(lower_ctx *c, int t, double scale, int64_t in_zp, int64_t out_zp,
               tosac_dtype dt, int out)
{
    lower_rescale_args ra = {dt, &scale, 1, in_zp, out_zp, out, NULL};
    return lower_rescale(c, t, &ra);
}
