/* TABLE builders and the quantized-unary lowering every rule uses for non-linear functions
 * in the integer domain (see lower_table.h). */
#include <math.h>
#include <stdlib.h>
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

/* Where the function leaves the output range inside a segment, an entry clamped to lo/hi
 * would bend the interpolated line early: the chord from an in-range entry to the clamped
 * one lies inside the range, up to a quarter of the segment's rise short of the bound (about
 * 100 output steps for a steep Reciprocal). The RESCALE after TABLE saturates anyway, so such
 * an entry gets its unclamped value instead, as far as int16 and the neighbouring
 * differences allow at this shift: interpolate first, clamp after. Entries whose segments lie
 * wholly beyond one bound stay clamped (any value there saturates the same way). */
static void widen_crossings(const lower_table_spec *s, const double v[513], int64_t e[513],
                            int sh)
{
    for (int j = 0; j < 513; j++) {
        if (isnan(v[j]))
            continue;
        bool up = v[j] + (double)s->zp > (double)s->hi, down = v[j] + (double)s->zp < (double)s->lo;
        bool crosses = false;
        for (int k = j - 1; k <= j + 1; k += 2)
            if (k >= 0 && k < 513 && !isnan(v[k]))
                crosses |= up ? !(v[k] + (double)s->zp > (double)s->hi)
                              : down && !(v[k] + (double)s->zp < (double)s->lo);
        if (!crosses)
            continue;
        double lim = ldexp(40000.0, sh); /* beyond any int16 entry at this shift */
        double w = v[j] < -lim ? -lim : v[j] > lim ? lim : v[j];
        int64_t t = shr_round((int64_t)nearbyint(w) + s->zp, sh);
        int64_t left = j > 0 ? e[j - 1] : e[j + 1], right = j < 512 ? e[j + 1] : e[j - 1];
        if (up) {
            int64_t m = INT16_MAX;
            m = left + INT16_MAX < m ? left + INT16_MAX : m;   /* e[j] - e[j-1] <= max */
            m = right - INT16_MIN < m ? right - INT16_MIN : m; /* e[j+1] - e[j] >= min */
            t = t < m ? t : m;
            e[j] = t > e[j] ? t : e[j];
        } else {
            int64_t m = INT16_MIN;
            m = left + INT16_MIN > m ? left + INT16_MIN : m;   /* e[j] - e[j-1] >= min */
            m = right - INT16_MAX > m ? right - INT16_MAX : m; /* e[j+1] - e[j] <= max */
            t = t > m ? t : m;
            e[j] = t < e[j] ? t : e[j];
        }
    }
}

/* TABLE then RESCALE by 2^(sh - 7) (single rounding, half up) for input v, saturated. */
static int64_t simulate(const lower_table_spec *s, const int64_t e[513], int sh, int32_t v)
{
    int32_t idx = (v + 32768) >> 7, frac = v & 0x7f;
    int64_t o = e[idx] * 128 + (e[idx + 1] - e[idx]) * frac;
    int64_t y = sh >= 7 ? o * (INT64_C(1) << (sh - 7)) : shr_round(o, 7 - sh);
    return y < s->lo ? s->lo : y > s->hi ? s->hi : y;
}

/* The worst error in output steps over every int16 input, against y = quantize(raw(v)) in
 * ideal[v + 32768]; segments with a pole or NaN at an entry are left out: no line fits them
 * at any shift, and their error would hide the differences elsewhere. */
static int64_t worst_error(const lower_table_spec *s, const int64_t e[513], int sh,
                           const int32_t *ideal, const double r[513])
{
    int64_t worst = 0;
    for (int j = 0; j < 512; j++) {
        if (!isfinite(r[j]) || !isfinite(r[j + 1]))
            continue;
        for (int32_t v = -32768 + 128 * j; v < -32768 + 128 * (j + 1); v++) {
            int64_t d = simulate(s, e, sh, v) - ideal[v + 32768];
            d = d < 0 ? -d : d;
            worst = d > worst ? d : worst;
        }
    }
    return worst;
}

/* Entries at shift sh: the clamped values rounded down by 2^sh, crossings widened. */
static void entries_at(const lower_table_spec *s, const double v[513], const int64_t q[513],
                       int sh, int64_t e[513])
{
    for (int j = 0; j < 513; j++)
        e[j] = shr_round(q[j], sh);
    widen_crossings(s, v, e, sh);
}

void lower_table_values_i16(const lower_table_spec *s, int16_t tab[513], int *shift)
{
    /* TABLE interpolates linearly between entries 128 inputs apart; for a curved function
     * the error peaks mid-segment. Each entry moves by half the midpoint error of the
     * segment to its right, which roughly halves the worst error (as TFLite's int16 LUTs).
     * An entry at the edge of the function's domain (undefined to its left: Sqrt at 0) keeps
     * its exact value: inputs sit exactly there (all-zero data), where the correction alone
     * would be the error (212 steps for an a16w8 Sqrt of 0). */
    double r[513], v[513];
    for (int j = 0; j < 513; j++)
        r[j] = s->raw(-32768 + 128 * (int64_t)j, s->arg);
    int64_t q[513];
    for (int j = 0; j < 513; j++) {
        v[j] = r[j];
        if (j < 512 && !(j > 0 && isnan(r[j - 1]))) {
            double mid = s->raw(-32768 + 128 * (int64_t)j + 64, s->arg);
            double err = (r[j] + r[j + 1]) / 2.0 - mid;
            if (isfinite(err))
                v[j] -= err / 2.0;
        }
        q[j] = quantize(s, v[j]);
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
    int64_t e[513], best[513];
    entries_at(s, v, q, sh, best);
    /* A larger shift coarsens every entry but leaves room to widen a steep crossing (at
     * shift 0 an int16 output has none). Take it only when it at least halves the worst
     * error: that is a clamped crossing fixed, where a small gain is only curvature near a
     * singular point (Sqrt at 0) traded for precision everywhere else. */
    int32_t *ideal = malloc(65536 * sizeof *ideal);
    if (ideal) {
        for (int32_t x = -32768; x <= 32767; x++)
            ideal[x + 32768] = (int32_t)quantize(s, s->raw(x, s->arg));
        int64_t best_err = worst_error(s, best, sh, ideal, r);
        int best_sh = sh;
        for (int more = sh + 1; more <= sh + 2 && more < 48; more++) {
            entries_at(s, v, q, more, e);
            int64_t err = worst_error(s, e, more, ideal, r);
            if (err < best_err && err * 2 <= best_err) {
                best_err = err;
                best_sh = more;
                memcpy(best, e, sizeof e);
            }
        }
        sh = best_sh;
        free(ideal);
    }
    for (int j = 0; j < 513; j++)
        tab[j] = (int16_t)best[j];
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
