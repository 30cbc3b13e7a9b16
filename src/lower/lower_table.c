/* TABLE builders and the quantized-unary lowering every rule uses for non-linear functions
 * in the integer domain (see lower_table.h). */
#include <math.h>
#include <string.h>

#include "lower/lower_act_util.h"
#include "lower/lower_table.h"

/* clamp(round_half_even(r) + zp) */
static int64_t quantize(const lower_table_spec *s, double r)
{
    if (isnan(r))
        return s->lo;
    /* far outside any integer range: saturate before converting */
    if (r < -9e15)
        return s->lo;
    if (r > 9e15)
        return s->hi;
    int64_t q = (int64_t)nearbyint(r) + s->zp;
    return q < s->lo ? s->lo : q > s->hi ? s->hi : q;
}

void lower_table_values_i8(const lower_table_spec *s, int8_t tab[256])
{
    for (int i = 0; i < 256; i++) {
        int64_t q = quantize(s, s->raw(i - 128, s->arg));
        tab[i] = (int8_t)(q < -128 ? -128 : q > 127 ? 127 : q);
    }
}

/* q / 2^shift rounded half up */
static int64_t shr_round(int64_t q, int shift)
{
    if (shift == 0)
        return q;
    int64_t d = INT64_C(1) << shift;
    int64_t t = q + d / 2;
    return t >= 0 ? t / d : -((-t + d - 1) / d); /* floor division */
}

void lower_table_values_i16(const lower_table_spec *s, int16_t tab[513], int *shift)
{
    /* TABLE interpolates linearly between entries 128 inputs apart; for a curved function
     * the error peaks mid-segment. Each entry moves by half the midpoint error of the
     * segment to its right, which roughly halves the worst error (as TFLite's int16 LUTs). */
    double r[513];
    for (int j = 0; j < 513; j++)
        r[j] = s->raw(-32768 + 128 * (int64_t)j, s->arg);
    int64_t q[513];
    for (int j = 0; j < 513; j++) {
        double v = r[j];
        if (j < 512) {
            double mid = s->raw(-32768 + 128 * (int64_t)j + 64, s->arg);
            double err = (r[j] + r[j + 1]) / 2.0 - mid;
            if (isfinite(err))
                v -= err / 2.0;
        }
        q[j] = quantize(s, v);
    }
    int sh = 0;
    for (; sh < 48; sh++) {
        bool ok = true;
        for (int j = 0; j < 513 && ok; j++) {
            int64_t e = shr_round(q[j], sh);
            ok = e >= INT16_MIN && e <= INT16_MAX;
            if (ok && j > 0) {
                int64_t d = e - shr_round(q[j - 1], sh);
                ok = d >= INT16_MIN && d <= INT16_MAX;
            }
        }
        if (ok)
            break;
    }
    for (int j = 0; j < 513; j++)
        tab[j] = (int16_t)shr_round(q[j], sh);
    *shift = sh;
}

int lower_table_emit(lower_ctx *c, int t, const void *tab, int out)
{
    if (t < 0)
        return -1;
    bool i8 = lower_dtype(c, t) == TOSAC_DT_I8;
    if (!i8 && lower_dtype(c, t) != TOSAC_DT_I16) {
        tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "TABLE of a %s tensor",
                   tosac_dtype_name(lower_dtype(c, t)));
        return -1;
    }
    int64_t n = i8 ? 256 : 513;
    int k = lower_const(c, "table", i8 ? TOSAC_DT_I8 : TOSAC_DT_I16, 1, &n, tab);
    if (k < 0)
        return -1;
    if (out < 0) {
        int64_t shape[TOSAC_MAX_RANK];
        int r = lower_rank(c, t);
        memcpy(shape, lower_shape(c, t), (size_t)r * sizeof *shape);
        out = lower_tmp(c, "table_out", i8 ? TOSAC_DT_I8 : TOSAC_DT_I32, r, shape);
    }
    int ins[2] = {t, k};
    if (out < 0 || lower_emit(c, TOSA_OP_TABLE, NULL, ins, 2, &out, 1))
        return -1;
    return out;
}

static double qfunc_raw(int64_t v, const void *arg)
{
    const lower_qfunc *q = arg;
    return q->f((double)(v - q->zp_in) * q->s_in, q->arg) / q->s_out;
}

int lower_table_quantized(lower_ctx *c, int t, const lower_qfunc *q, tosac_dtype out_dt,
                          int out)
{
    if (t < 0)
        return -1;
    tosac_dtype in_dt = lower_dtype(c, t);
    if ((in_dt != TOSAC_DT_I8 && in_dt != TOSAC_DT_I16) ||
        (out_dt != TOSAC_DT_I8 && out_dt != TOSAC_DT_I16) ||
        (in_dt == TOSAC_DT_I8 && out_dt != TOSAC_DT_I8)) {
        tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "no table from %s to %s",
                   tosac_dtype_name(in_dt), tosac_dtype_name(out_dt));
        return -1;
    }
    lower_table_spec s = {qfunc_raw, q, q->zp_out, 0, 0};
    la_qrange(out_dt, &s.lo, &s.hi);
    if (in_dt == TOSAC_DT_I8) {
        int8_t tab[256];
        lower_table_values_i8(&s, tab);
        return lower_table_emit(c, t, tab, out);
    }
    int16_t tab[513];
    int shift;
    lower_table_values_i16(&s, tab, &shift);
    int r = lower_table_emit(c, t, tab, -1);
    /* the zero point is inside the table: the RESCALE only removes the 7 fraction bits */
    return lx_rescale(c, r, ldexp(1.0, shift - 7), 0, 0, out_dt, out);
}

tosac_code lower_table_unary(lower_ctx *c, const ir_node *n, lower_table_fn f, const void *arg)
{
    const ir_tensor *X = lower_in_ir(c, n, 0), *Y = lower_out_ir(c, n, 0);
    tosac_code rc;
    if ((rc = lx_check_quant(c, n, X)) || (rc = lx_check_quant(c, n, Y)))
        return rc;
    if (X->dtype == TOSAC_DT_I8 && Y->dtype != TOSAC_DT_I8)
        return lx_unsupported(c, n, "int8 input with a %s output", tosac_dtype_name(Y->dtype));
    lower_qfunc q = {f, arg, lower_qscale(X), lower_qscale(Y), lower_qzp(X), lower_qzp(Y)};
    int x = lower_in(c, n, 0);
    int y = x < 0 ? -1 : lower_out(c, n, 0);
    return lower_table_quantized(c, x, &q, Y->dtype, y) < 0 ? lx_code(c) : TOSAC_OK;
}
