/* QuantizeLinear / DequantizeLinear inside a delegate, for specs with floating point
 * (TOSA-1.0+INT+FP, TOSA-1.0+FP): under INT alone the CASTs to and from float are illegal and
 * the node stays on the CPU.
 *
 *   DequantizeLinear: CAST int -> float, SUB zero point (skipped when all are 0), MUL scale.
 *   QuantizeLinear:   MUL 1/scale, CAST float -> int8/int16 (round half to even, saturating);
 *                     with zero points, CAST to int32 and back to float (the rounding), ADD
 *                     the zero point, then the CAST (exact, saturating).
 * Only PRO-FP operators: under TOSA-1.0+FP too both lower (the integer side of a QDQ
 * model's activations stays inside a float delegate).
 * Per-axis parameters become constants shaped [1, .., n, .., 1] that broadcast along the
 * axis. The parameters are the ones the importer recorded on the quantized tensor. */
#include <stdlib.h>
#include <string.h>

#include "lower/lower_act_util.h"

/* A constant of rank r: the n values along axis (n == 1: every dim 1), as dt. */
static int param_const(lower_ctx *c, const char *prefix, tosac_dtype dt, int r, int axis, int n,
                       const double *v)
{
    int64_t shape[TOSAC_MAX_RANK];
    for (int i = 0; i < r; i++)
        shape[i] = i == axis && n > 1 ? n : 1;
    void *buf = malloc((size_t)n * 4);
    if (!buf) {
        tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory");
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (dt == TOSAC_DT_F32)
            ((float *)buf)[i] = (float)v[i];
        else
            ((int32_t *)buf)[i] = (int32_t)v[i];
    }
    int k = lower_const(c, prefix, dt, r, shape, buf);
    free(buf);
    return k;
}

/* The quantization of t, checked: int8/int16 storage, a per-tensor or per-axis scale. */
static tosac_code params(lower_ctx *c, const ir_node *n, const ir_tensor *t, const ir_tensor *f,
                         double **scale, double **zp, int *count, int *axis)
{
    if (!t || !f || !t->quant || t->quant->block_size)
        return lx_unsupported(c, n, "no per-tensor or per-axis quantization recorded");
    if (t->dtype != TOSAC_DT_I8 && t->dtype != TOSAC_DT_I16)
        return lx_unsupported(c, n, "%s quantized values", tosac_dtype_name(t->dtype));
    if (f->dtype != TOSAC_DT_F32)
        return lx_unsupported(c, n, "%s float side", tosac_dtype_name(f->dtype));
    const ir_quant *q = t->quant;
    *count = q->n;
    *axis = q->axis;
    if (q->n > 1 && (q->axis < 0 || q->axis >= t->rank || t->shape[q->axis] != q->n))
        return lx_unsupported(c, n, "per-axis parameters do not match the shape");
    *scale = malloc((size_t)q->n * sizeof **scale);
    *zp = malloc((size_t)q->n * sizeof **zp);
    if (!*scale || !*zp)
        return tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory");
    for (int i = 0; i < q->n; i++) {
        if (!(q->scale[i] > 0.0f))
            return lx_unsupported(c, n, "scale %g is not positive", (double)q->scale[i]);
        (*scale)[i] = q->scale[i];
        (*zp)[i] = (double)q->zero_point[i];
    }
    return TOSAC_OK;
}

static bool any_nonzero(const double *v, int n)
{
    for (int i = 0; i < n; i++)
        if (v[i] != 0.0)
            return true;
    return false;
}

static tosac_code lower_dequantize(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *X = lower_in_ir(c, n, 0), *Y = lower_out_ir(c, n, 0);
    double *scale = NULL, *zp = NULL;
    int cnt = 0, axis = -1;
    tosac_code rc = params(c, n, X, Y, &scale, &zp, &cnt, &axis);
    if (!rc) {
        int r = X->rank;
        int x = lx_cast(c, lower_in(c, n, 0), TOSAC_DT_F32, -1);
        if (any_nonzero(zp, cnt))
            x = la_binary(c, TOSA_OP_SUB, x,
                          param_const(c, "zero_point", TOSAC_DT_F32, r, axis, cnt, zp), -1);
        int s = x < 0 ? -1 : param_const(c, "scale", TOSAC_DT_F32, r, axis, cnt, scale);
        int y = s < 0 ? -1 : lower_out(c, n, 0);
        rc = la_binary(c, TOSA_OP_MUL, x, s, y) < 0 ? lx_code(c) : TOSAC_OK;
    }
    free(scale);
    free(zp);
    return rc;
}

static tosac_code lower_quantize(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *X = lower_in_ir(c, n, 0), *Y = lower_out_ir(c, n, 0);
    double *scale = NULL, *zp = NULL;
    int cnt = 0, axis = -1;
    tosac_code rc = params(c, n, Y, X, &scale, &zp, &cnt, &axis);
    if (!rc) {
        int r = Y->rank;
        for (int i = 0; i < cnt; i++)
            scale[i] = 1.0 / scale[i];
        int x = la_binary(c, TOSA_OP_MUL, lower_in(c, n, 0),
                          param_const(c, "inv_scale", TOSAC_DT_F32, r, axis, cnt, scale), -1);
        /* CAST to the integer type rounds half to even and saturates: with zero points 0
         * that is the whole quantization; else the rounding comes first (in int32) and the
         * zero point is added to the exact integer in float */
        if (any_nonzero(zp, cnt)) {
            x = lx_cast(c, lx_cast(c, x, TOSAC_DT_I32, -1), TOSAC_DT_F32, -1);
            x = la_binary(c, TOSA_OP_ADD, x,
                          param_const(c, "zero_point", TOSAC_DT_F32, r, axis, cnt, zp), -1);
        }
        int y = x < 0 ? -1 : lower_out(c, n, 0);
        rc = y < 0 || lx_cast(c, x, Y->dtype, y) < 0 ? lx_code(c) : TOSAC_OK;
    }
    free(scale);
    free(zp);
    return rc;
}

const lower_rule lower_rules_quant[] = {
    {IR_DOMAIN_ONNX, "QuantizeLinear", lower_quantize, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "DequantizeLinear", lower_dequantize, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
