/* RESCALE emission and the scale -> (multiplier, shift) rule every integer rule relies on. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"

tosac_code lower_quant_multiplier(double scale, int bits, int32_t *multiplier, int32_t *shift,
                                  tosac_error *err)
{
    if (!(scale > 0.0) || !isfinite(scale))
        return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "RESCALE scale %g is not a positive "
                          "finite number", scale);
    int base = bits == 16 ? 15 : 31;
    double one = ldexp(1.0, base);
    int e;
    double m = frexp(scale, &e); /* scale = m * 2^e, m in [0.5, 1) */
    /* nearbyint rounds half to even in the default rounding mode. */
    int64_t q = (int64_t)nearbyint(m * one);
    if ((double)q == one) { /* m rounded up to 1.0: renormalise */
        q /= 2;
        e++;
    }
    int s = base - e;
    if (s > 62) {
        /* A tiny scale: fold the excess shift into the multiplier (half to even again). */
        q = (int64_t)nearbyint(ldexp((double)q, 62 - s));
        s = 62;
    }
    if (s < 2)
        return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "RESCALE scale %g is too large (shift "
                          "%d below 2)", scale, s);
    *multiplier = (int32_t)q;
    *shift = s;
    return TOSAC_OK;
}

double lower_qscale(const ir_tensor *t)
{
    return t && t->quant && t->quant->n >= 1 ? (double)t->quant->scale[0] : 1.0;
}

int64_t lower_qzp(const ir_tensor *t)
{
    return t && t->quant && t->quant->n >= 1 ? t->quant->zero_point[0] : 0;
}

bool lower_is_quantized(const ir_tensor *t)
{
    return t && t->quant && tosac_dtype_is_int(t->dtype);
}

int lower_rescale(lower_ctx *c, int t, const lower_rescale_args *a)
{
    if (t < 0)
        return -1;
    if (a->n < 1 || a->n > (1 << 20)) {
        tosac_fail(c->err, TOSAC_ERR_INTERNAL, "RESCALE with %d scales", a->n);
        return -1;
    }
    tosac_dtype in_dt = lower_dtype(c, t);
    /* The spec forbids 32-bit multipliers on 48-bit inputs (ERROR_IF(scale32 && i48)). */
    bool scale32 = in_dt != TOSAC_DT_I48;
    int32_t mult32[64];
    int16_t mult16[64];
    int8_t sh8[64];
    int32_t *m32 = mult32;
    int16_t *m16 = mult16;
    int8_t *s8 = sh8;
    void *heap = NULL;
    if (a->n > 64) { /* per-channel with many channels: one allocation for all three */
        heap = malloc((size_t)a->n * (sizeof *m32 + sizeof *m16 + sizeof *s8));
        if (!heap) {
            tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory building a RESCALE");
            return -1;
        }
        m32 = heap;
        m16 = (int16_t *)(m32 + a->n);
        s8 = (int8_t *)(m16 + a->n);
    }
    int out = -1;
    for (int i = 0; i < a->n; i++) {
        int32_t s = 0;
        if (lower_quant_multiplier(a->scales[i], scale32 ? 32 : 16, &m32[i], &s, c->err))
            goto done;
        m16[i] = (int16_t)m32[i];
        s8[i] = (int8_t)s;
    }
    int64_t nc = a->n;
    int mul = scale32 ? lower_const(c, "multiplier", TOSAC_DT_I32, 1, &nc, m32)
                      : lower_const(c, "multiplier", TOSAC_DT_I16, 1, &nc, m16);
    int sh = lower_const(c, "shift", TOSAC_DT_I8, 1, &nc, s8);
    int izp = lower_scalar(c, "input_zp", in_dt, a->in_zp);
    int ozp = lower_scalar(c, "output_zp", a->out_dtype, a->out_zp);
    if (mul < 0 || sh < 0 || izp < 0 || ozp < 0)
        goto done;
    out = a->out;
    if (out < 0) {
        int64_t shape[TOSAC_MAX_RANK];
        int r = lower_rank(c, t);
        memcpy(shape, lower_shape(c, t), (size_t)r * sizeof *shape);
        out = lower_tmp(c, a->prefix ? a->prefix : "rescale", a->out_dtype, r, shape);
        if (out < 0)
            goto done;
    }
    tosa_attr at;
    memset(&at, 0, sizeof at);
    at.scale32 = scale32;
    at.rounding_mode = TOSA_ROUND_SINGLE;
    at.per_channel = a->n > 1;
    int ins[5] = {t, mul, sh, izp, ozp};
    if (lower_emit(c, TOSA_OP_RESCALE, &at, ins, 5, &out, 1))
        out = -1;
done:
    free(heap);
    return out;
}

/* Bias element i in accumulator units of acc_scale (lower_bias); false when it does not fit
 * acc (*steps says how many it is). */
static bool bias_units(const ir_tensor *bt, const tosac_tensor *bv, int64_t i, double beta,
                       double acc_scale, tosac_dtype acc, int64_t *out, double *steps)
{
    double r;
    if (lower_is_quantized(bt)) {
        int qi = bt->quant->n > 1 ? (int)i : 0;
        int64_t raw = tosac_tensor_int_at(bv, i) - bt->quant->zero_point[qi];
        double s = (double)bt->quant->scale[qi] * beta / acc_scale;
        /* an int32 bias stored at float(sx * sw) is the accumulator's own integer */
        r = fabs(s - 1.0) <= 0x1p-20 ? (double)raw : nearbyint((double)raw * s);
    } else if (tosac_dtype_is_float(bv->dtype)) {
        r = nearbyint(tosac_tensor_f64_at(bv, i) * beta / acc_scale);
    } else { /* integers without parameters are accumulator units already */
        r = nearbyint((double)tosac_tensor_int_at(bv, i) * beta);
    }
    double lim = ldexp(1.0, acc == TOSAC_DT_I32 ? 31 : 47);
    *steps = r;
    if (!(r >= -lim && r < lim))
        return false;
    *out = (int64_t)r;
    return true;
}

int lower_bias(lower_ctx *c, const ir_node *n, int slot, tosac_dtype acc, int64_t nn,
               const double *acc_scale, double beta)
{
    size_t es = tosac_dtype_size(acc);
    char *buf = calloc((size_t)(nn > 0 ? nn : 1), es);
    if (!buf) {
        tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory building a bias");
        return -1;
    }
    const ir_tensor *bt = slot >= 0 ? lower_in_ir(c, n, slot) : NULL;
    tosac_tensor bv;
    int64_t cnt = 0;
    if (bt && (!lower_in_const(c, n, slot, &bv) || ((cnt = tosac_tensor_numel(&bv)) != nn &&
                                                     cnt != 1))) {
        free(buf);
        tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "%s: bias '%s' is not a constant of 1 or "
                   "%lld values", n->op_type, bt->name, (long long)nn);
        return -1;
    }
    bool float_acc = tosac_dtype_is_float(acc);
    if (bt && float_acc && !tosac_dtype_is_float(bv.dtype)) {
        free(buf);
        tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "%s: %s bias with a %s accumulator",
                   n->op_type, tosac_dtype_name(bv.dtype), tosac_dtype_name(acc));
        return -1;
    }
    for (int64_t o = 0; bt && o < nn; o++) {
        int64_t i = cnt == 1 ? 0 : o, v = 0;
        double steps;
        if (float_acc) {
            ((float *)buf)[o] = (float)(tosac_tensor_f64_at(&bv, i) * beta);
        } else if (!bias_units(bt, &bv, i, beta, acc_scale[o], acc, &v, &steps)) {
            free(buf);
            tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "%s: bias '%s' element %lld is %.4g "
                       "accumulator steps, beyond %s", n->op_type, bt->name, (long long)i,
                       steps, acc == TOSAC_DT_I32 ? "int32" : "int48");
            return -1;
        } else if (acc == TOSAC_DT_I32) {
            ((int32_t *)buf)[o] = (int32_t)v;
        } else {
            ((int64_t *)buf)[o] = v;
        }
    }
    int k = lower_const(c, "bias", acc, 1, &nn, buf);
    free(buf);
    return k;
}
