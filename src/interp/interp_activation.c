/* Operator group: activation functions — CLAMP, ERF, SIGMOID, TANH. */
#include <math.h>
#include <string.h>

#include "interp/interp_ewise.h"
#include "util/fp.h"

/* One in_out_t value from the raw little-endian attribute bytes (FLATBUFFER_LAYOUT.md). */
static tosac_code decode_bound(interp_ctx *c, const uint8_t *bytes, int n, const char *name,
                               tosac_dtype dt, int64_t *iv, double *fv)
{
    int need = (int)tosac_dtype_size(dt);
    if (n < need)
        return interp_error(c, "%s has %d byte(s), a %s value needs %d", name, n,
                            tosac_dtype_name(dt), need);
    uint32_t u = 0;
    for (int i = need - 1; i >= 0; i--)
        u = (u << 8) | bytes[i];
    switch (dt) {
    case TOSAC_DT_I8: *iv = (int8_t)u; break;
    case TOSAC_DT_I16: *iv = (int16_t)u; break;
    case TOSAC_DT_F16: *fv = tosac_f16_to_f32((uint16_t)u); break;
    case TOSAC_DT_BF16: *fv = tosac_bf16_to_f32((uint16_t)u); break;
    default: {
        float f;
        memcpy(&f, &u, sizeof f);
        *fv = f;
    }
    }
    return TOSAC_OK;
}

/* apply_max_s then apply_min_s with the op's nan_mode (compare_nan). */
static double clip_f(double v, double lo, double hi, uint32_t nan_mode)
{
    if (isnan(v))
        return nan_mode == TOSA_NAN_PROPAGATE ? v : lo; /* IGNORE: max(NaN, lo) = lo <= hi */
    v = v >= lo ? v : lo;
    return v < hi ? v : hi;
}

tosac_code interp_op_clamp(interp_ctx *c)
{
    ew_args k;
    tosac_code rc = ew_prologue1(c, 1, EW_T(TOSAC_DT_I8) | EW_T(TOSAC_DT_I16) | EW_FLOATS, &k);
    if (rc != TOSAC_OK || (rc = ew_check_nan_mode(c, k.dt)) != TOSAC_OK)
        return rc;
    const tosa_attr *at = &c->op->attr;
    int64_t imin = 0, imax = 0;
    double fmin = 0, fmax = 0;
    if ((rc = decode_bound(c, at->min_val, at->n_min_val, "min_val", k.dt, &imin, &fmin)) != TOSAC_OK ||
        (rc = decode_bound(c, at->max_val, at->n_max_val, "max_val", k.dt, &imax, &fmax)) != TOSAC_OK)
        return rc;
    const tosac_tensor *in = c->in[0];
    tosac_tensor *out = c->out[0];
    int64_t n = tosac_tensor_numel(out);
    if (!ew_is_float(k.dt)) {
        if (imax < imin)
            return interp_error(c, "ERROR_IF(max_val < min_val): min_val %lld, max_val %lld",
                                (long long)imin, (long long)imax);
        for (int64_t i = 0; i < n; i++) {
            int64_t v = interp_get_int(in, i);
            interp_set_int(out, i, v < imin ? imin : v > imax ? imax : v);
        }
        return TOSAC_OK;
    }
    INTERP_ERROR_IF(c, isnan(fmin) || isnan(fmax));
    if (fmax < fmin)
        return interp_error(c, "ERROR_IF(max_val < min_val): min_val %g, max_val %g", fmin, fmax);
    for (int64_t i = 0; i < n; i++)
        interp_set_float(out, i, (float)clip_f(interp_get_float(in, i), fmin, fmax, at->nan_mode));
    return TOSAC_OK;
}

static double erf_f(double a, const ew_args *k) { return erf(a); }
static double sigmoid_f(double a, const ew_args *k) { return 1.0 / (1.0 + exp(-a)); }
static double tanh_f(double a, const ew_args *k) { return tanh(a); }

tosac_code interp_op_erf(interp_ctx *c) { return ew_float_unary_op(c, erf_f); }
tosac_code interp_op_sigmoid(interp_ctx *c) { return ew_float_unary_op(c, sigmoid_f); }
tosac_code interp_op_tanh(interp_ctx *c) { return ew_float_unary_op(c, tanh_f); }

const interp_op_entry interp_ops_activation[] = {
    {TOSA_OP_CLAMP, interp_op_clamp},
    {TOSA_OP_ERF, interp_op_erf},
    {TOSA_OP_SIGMOID, interp_op_sigmoid},
    {TOSA_OP_TANH, interp_op_tanh},
    {TOSA_OP_UNKNOWN, NULL},
};
