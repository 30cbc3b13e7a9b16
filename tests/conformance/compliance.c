/* Floating-point compliance modes, written from the rules in shared/conformance/README.md. */
#include "compliance.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

bool cmp_type_params(tosac_dtype dt, int *frac, double *nmin, double *nmax)
{
    int emax;
    switch (dt) {
    case TOSAC_DT_F32: *frac = 23, emax = 127; break;
    case TOSAC_DT_F16: *frac = 10, emax = 15; break;
    case TOSAC_DT_BF16: *frac = 7, emax = 127; break;
    default: return false;
    }
    *nmin = ldexp(1.0, 1 - emax);
    *nmax = ldexp(2.0 - ldexp(1.0, -*frac), emax);
    return true;
}

bool cmp_needs_bounds(cmp_mode m)
{
    return m == CMP_ABS_ERROR || m == CMP_DOT_PRODUCT || m == CMP_FP_SPECIAL;
}

static const struct {
    const char *name;
    cmp_mode mode;
} mode_names[] = {
    {"EXACT", CMP_EXACT},         {"ULP", CMP_ULP},
    {"RELATIVE", CMP_RELATIVE},   {"REDUCE_PRODUCT", CMP_REDUCE_PRODUCT},
    {"ABS_ERROR", CMP_ABS_ERROR}, {"FP_SPECIAL", CMP_FP_SPECIAL},
    {"DOT_PRODUCT", CMP_DOT_PRODUCT},
};

/* A required number member of obj, or the default when absent (def_ok). */
static tosac_code num(const tosac_json *obj, const char *key, bool def_ok, double def, double *out,
                      tosac_error *err)
{
    const tosac_json *v = tosac_json_get(obj, key);
    if (!v && def_ok) {
        *out = def;
        return TOSAC_OK;
    }
    if (!tosac_json_double(v, out))
        return tosac_fail(err, TOSAC_ERR_INPUT, "compliance: '%s' is missing or not a number", key);
    return TOSAC_OK;
}

tosac_code cmp_rule_from_json(const tosac_json *t, cmp_rule *r, tosac_error *err)
{
    memset(r, 0, sizeof *r);
    const char *mode = tosac_json_string(tosac_json_get(t, "mode"));
    const char *dt = tosac_json_string(tosac_json_get(t, "data_type"));
    if (!mode || !dt)
        return tosac_fail(err, TOSAC_ERR_INPUT, "compliance: entry without mode/data_type");
    size_t i;
    for (i = 0; i < sizeof mode_names / sizeof mode_names[0]; i++)
        if (strcmp(mode, mode_names[i].name) == 0)
            break;
    if (i == sizeof mode_names / sizeof mode_names[0])
        return tosac_fail(err, TOSAC_ERR_INPUT, "compliance: unknown mode '%s'", mode);
    r->mode = mode_names[i].mode;
    r->dtype = strcmp(dt, "FP32") == 0   ? TOSAC_DT_F32
               : strcmp(dt, "FP16") == 0 ? TOSAC_DT_F16
               : strcmp(dt, "BF16") == 0 ? TOSAC_DT_BF16
                                         : TOSAC_DT_UNKNOWN;
    if (r->dtype == TOSAC_DT_UNKNOWN && r->mode != CMP_EXACT)
        return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "compliance: mode %s on data type %s", mode, dt);
    const tosac_json *info;
    double s = 0;
    bool b = false;
    switch (r->mode) {
    case CMP_ULP:
        return num(tosac_json_get(t, "ulp_info"), "ulp", false, 0, &r->ulp, err);
    case CMP_RELATIVE:
        info = tosac_json_get(t, "relative_info");
        if (num(info, "max", false, 0, &r->rel_max, err) ||
            num(info, "scale", false, 0, &r->rel_scale, err) ||
            num(info, "ulp_bound", true, 0, &r->rel_ulp_bound, err))
            return err->code;
        return TOSAC_OK;
    case CMP_REDUCE_PRODUCT:
        return num(tosac_json_get(t, "reduce_product_info"), "n", false, 0, &r->rp_n, err);
    case CMP_ABS_ERROR:
        info = tosac_json_get(t, "abs_error_info"); /* may be absent: all defaults */
        if (num(info, "lower_bound", true, 0, &r->abs_lower_bound, err) ||
            num(info, "normal_divisor", true, 1, &r->abs_normal_divisor, err) ||
            num(info, "max_compare", true, 0, &r->abs_max_compare, err))
            return err->code;
        if (tosac_json_bool(tosac_json_get(info, "bound_as_magnitude"), &b))
            r->abs_bound_as_magnitude = b;
        if (r->abs_normal_divisor == 0)
            return tosac_fail(err, TOSAC_ERR_INPUT, "compliance: normal_divisor is 0");
        return TOSAC_OK;
    case CMP_DOT_PRODUCT:
        info = tosac_json_get(t, "dot_product_info");
        if (num(info, "ks", false, 0, &r->dp_ks, err) || num(info, "s", false, 0, &s, err))
            return err->code;
        r->dp_s = (int)s;
        return TOSAC_OK;
    default: return TOSAC_OK;
    }
}

/* ulp(ref) = max(2^floor(log2|ref|), nmin) * 2^-frac; 0 for 0 and non-finite ref. */
static double ulp_of(double ref, int frac, double nmin)
{
    if (ref == 0 || !isfinite(ref))
        return 0;
    int e;
    frexp(fabs(ref), &e); /* |ref| = m * 2^e with m in [0.5, 1): floor(log2|ref|) = e - 1 */
    return fmax(ldexp(1.0, e - 1), nmin) * ldexp(1.0, -frac);
}

/* The bound check shared by ULP, RELATIVE, REDUCE_PRODUCT and ABS_ERROR. */
static bool within(double imp, double ref, double errb, double nmin, double nmax, double *lo_out,
                   double *hi_out)
{
    *lo_out = *hi_out = NAN;
    if (isnan(ref))
        return isnan(imp);
    if (isnan(imp))
        return false;
    if (isinf(errb))
        return true;
    if (ref < 0) { /* mirror so that ref >= 0 */
        ref = -ref;
        imp = -imp;
    }
    double lo = ref - errb, hi = ref + errb;
    if (hi > nmax)
        hi = INFINITY;
    if (lo > nmax)
        lo = INFINITY;
    else if (lo < -nmax)
        lo = -INFINITY;
    *lo_out = lo;
    *hi_out = hi;
    return (lo <= imp && imp <= hi) || (imp == 0 && lo < nmin);
}

static double error_bound(const cmp_rule *r, double ref, double bnd, int frac, double nmin)
{
    switch (r->mode) {
    case CMP_ULP: return r->ulp * ulp_of(ref, frac, nmin);
    case CMP_RELATIVE:
        return fmax(r->rel_max * r->rel_scale, r->rel_ulp_bound * ulp_of(ref, frac, nmin));
    case CMP_REDUCE_PRODUCT:
        return fmax(fabs(ref), nmin) * (pow(1 + ldexp(1.0, -frac - 1), r->rp_n) - 1);
    case CMP_ABS_ERROR: {
        double v = fmax(fabs(ref), nmin);
        if (r->abs_bound_as_magnitude) {
            v = fmax(fabs(bnd), nmin);
            bnd = 1;
        }
        if (r->abs_lower_bound > 0)
            v = fmax(r->abs_lower_bound / bnd, v);
        double e = exp2(-frac / r->abs_normal_divisor) * v * bnd;
        if (r->abs_max_compare > 0)
            e = fmax(e, r->abs_max_compare);
        return e;
    }
    default: return 0;
    }
}

static bool fp_special_ok(tosac_dtype dt, double imp, double ref, double bnd)
{
    if (ref == 0 && imp == 0)
        return true;
    if (isnan(ref)) /* "for every mode: if ref is NaN, imp must be NaN" (either sign) */
        return isnan(imp);
    if (isnan(ref) == isnan(imp) && (isfinite(ref) != 0) == (isfinite(imp) != 0) &&
        (signbit(ref) != 0) == (signbit(imp) != 0))
        return true;
    if (dt == TOSAC_DT_F32 && isnan(imp) && (isnan(ref) || isnan(bnd)))
        return true;
    if (dt != TOSAC_DT_F32 && !isnan(ref) && isnan(bnd))
        return true;
    return false;
}

static bool dot_product(const cmp_rule *r, const double *imp, const double *ref, const double *bnd,
                        int64_t n, int frac, double nmin, double nmax, char *why, size_t whylen)
{
    double ks = r->dp_ks, sum = 0, sumsq = 0;
    double overflow_at = nmax + ldexp(ulp_of(nmax, frac, nmin), -1); /* rounds to inf */
    for (int64_t i = 0; i < n; i++) {
        double e = 0;
        if (isnan(ref[i])) {
            if (!isnan(imp[i])) {
                snprintf(why, whylen, "element %lld: got %.9g, expected NaN", (long long)i, imp[i]);
                return false;
            }
        } else if (isnan(bnd[i]) || fabs(bnd[i] * (1 + ks * ldexp(1.0, -1 - frac))) >= overflow_at) {
            e = 0;
        } else if (bnd[i] == 0) {
            if (ref[i] != 0 || imp[i] != 0) {
                snprintf(why, whylen, "element %lld: got %.9g, bound is 0 so it must be 0 (ref %.17g)",
                         (long long)i, imp[i], ref[i]);
                return false;
            }
        } else {
            e = (imp[i] - ref[i]) / fmax(bnd[i] * ldexp(1.0, -1 - frac), nmin);
            if (!(fabs(e) <= ks)) {
                snprintf(why, whylen,
                         "element %lld: got %.9g, ref %.17g, bound %.17g: error %.3g ulp-units > KS %g",
                         (long long)i, imp[i], ref[i], bnd[i], e, ks);
                return false;
            }
        }
        sum += e;
        sumsq += e * e;
    }
    if (sumsq > 0.4 * ks * (double)n) {
        snprintf(why, whylen, "sum of squared errors %.6g > 0.4*KS*T = %.6g", sumsq, 0.4 * ks * (double)n);
        return false;
    }
    if (r->dp_s >= 3 && r->dp_s <= 5 && fabs(sum) > 2 * sqrt(ks * (double)n)) {
        snprintf(why, whylen, "|sum of errors| %.6g > 2*sqrt(KS*T) = %.6g", fabs(sum),
                 2 * sqrt(ks * (double)n));
        return false;
    }
    return true;
}

bool cmp_check(const cmp_rule *r, const double *imp, const double *ref, const double *bnd,
               int64_t n, char *why, size_t whylen)
{
    int frac = 23;
    double nmin = 0, nmax = INFINITY;
    if (r->dtype != TOSAC_DT_UNKNOWN && !cmp_type_params(r->dtype, &frac, &nmin, &nmax)) {
        snprintf(why, whylen, "unsupported data type");
        return false;
    }
    if (cmp_needs_bounds(r->mode) && !bnd) {
        snprintf(why, whylen, "the mode needs bounds data");
        return false;
    }
    if (r->mode == CMP_DOT_PRODUCT)
        return dot_product(r, imp, ref, bnd, n, frac, nmin, nmax, why, whylen);
    for (int64_t i = 0; i < n; i++) {
        double b = bnd ? bnd[i] : 0;
        bool ok;
        double lo = NAN, hi = NAN;
        if (r->mode == CMP_EXACT)
            ok = imp[i] == ref[i] || (isnan(imp[i]) && isnan(ref[i]));
        else if (r->mode == CMP_FP_SPECIAL)
            ok = fp_special_ok(r->dtype, imp[i], ref[i], b);
        else
            ok = within(imp[i], ref[i], error_bound(r, ref[i], b, frac, nmin), nmin, nmax, &lo, &hi);
        if (!ok) {
            if (isnan(lo))
                snprintf(why, whylen, "element %lld: got %.9g, expected %.17g", (long long)i, imp[i],
                         ref[i]);
            else /* lo/hi are mirrored when ref < 0 */
                snprintf(why, whylen, "element %lld: got %.9g, expected %.17g within [%.17g, %.17g]",
                         (long long)i, imp[i], ref[i], ref[i] < 0 ? -hi : lo, ref[i] < 0 ? -lo : hi);
            return false;
        }
    }
    return true;
}
