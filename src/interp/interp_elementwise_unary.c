/* Elementwise unary operators: ABS, BITWISE_NOT, CEIL, CLZ, COS, EXP, FLOOR, LOG, LOGICAL_NOT,
 * NEGATE, RECIPROCAL, RSQRT, SIN. Float results are computed in double and rounded once to
 * the output type. */
#include <math.h>

#include "interp/interp_elementwise.h"
#include "interp/interp_ewise.h"

#define ABS_TYPES (EW_T(TOSAC_DT_I32) | EW_T(TOSAC_DT_I64) | EW_FLOATS)

static const char *abs_i(int64_t a, int64_t *r, const ew_args *k)
{
    if (a == k->min) /* apply_sub_s(0, minimum) does not fit */
        return "c >= minimum_s<in_t>() && c <= maximum_s<in_t>() in apply_sub_s(0, value1)";
    *r = a < 0 ? -a : a;
    return NULL;
}

static const char *not_i(int64_t a, int64_t *r, const ew_args *k)
{
    *r = ~a;
    return NULL;
}

static const char *lnot_i(int64_t a, int64_t *r, const ew_args *k)
{
    *r = !a;
    return NULL;
}

static const char *clz_i(int64_t a, int64_t *r, const ew_args *k)
{
    *r = k->bits == 64 ? arith_clz64((uint64_t)a) : arith_clz32((uint32_t)a);
    return NULL;
}

static double abs_f(double a, const ew_args *k)
{
    if (a == 0.0) /* -0.0 becomes +0.0; NaN is returned unchanged */
        return 0.0;
    return a < 0 ? -a : a;
}

static double ceil_f(double a, const ew_args *k) { return ceil(a); }
static double floor_f(double a, const ew_args *k) { return floor(a); }
static double cos_f(double a, const ew_args *k) { return cos(a); }
static double sin_f(double a, const ew_args *k) { return sin(a); }
static double exp_f(double a, const ew_args *k) { return exp(a); }
static double recip_f(double a, const ew_args *k) { return 1.0 / a; }

/* apply_log: log(+-0) = -inf, log(negative) = NaN, as C's log. */
static double log_f(double a, const ew_args *k) { return log(a); }

static double rsqrt_f(double a, const ew_args *k) { return a < 0 ? NAN : 1.0 / sqrt(a); }

static tosac_code int_unary(interp_ctx *c, uint32_t types, ew_int1_fn fn)
{
    ew_args k;
    tosac_code rc = ew_prologue1(c, 1, types, &k);
    return rc != TOSAC_OK ? rc : ew_map1_int(c, fn, &k);
}

tosac_code interp_op_abs(interp_ctx *c)
{
    ew_args k;
    tosac_code rc = ew_prologue1(c, 1, ABS_TYPES, &k);
    if (rc != TOSAC_OK)
        return rc;
    return ew_is_float(k.dt) ? ew_map1_float(c, abs_f, &k) : ew_map1_int(c, abs_i, &k);
}

tosac_code interp_op_bitwise_not(interp_ctx *c) { return int_unary(c, EW_INTS, not_i); }
tosac_code interp_op_logical_not(interp_ctx *c) { return int_unary(c, EW_T(TOSAC_DT_BOOL), lnot_i); }
tosac_code interp_op_clz(interp_ctx *c)
{
    return int_unary(c, EW_T(TOSAC_DT_I32) | EW_T(TOSAC_DT_I64), clz_i);
}
tosac_code interp_op_ceil(interp_ctx *c) { return ew_float_unary_op(c, ceil_f); }
tosac_code interp_op_floor(interp_ctx *c) { return ew_float_unary_op(c, floor_f); }
tosac_code interp_op_cos(interp_ctx *c) { return ew_float_unary_op(c, cos_f); }
tosac_code interp_op_sin(interp_ctx *c) { return ew_float_unary_op(c, sin_f); }
tosac_code interp_op_exp(interp_ctx *c) { return ew_float_unary_op(c, exp_f); }
tosac_code interp_op_log(interp_ctx *c) { return ew_float_unary_op(c, log_f); }
tosac_code interp_op_reciprocal(interp_ctx *c) { return ew_float_unary_op(c, recip_f); }
tosac_code interp_op_rsqrt(interp_ctx *c) { return ew_float_unary_op(c, rsqrt_f); }

/* NEGATE: acc_t is i32 (i64 for i64); result = clip(-(value - input1_zp) + output_zp) to the
 * in_out_t range, every step checked like apply_sub_s/apply_add_s. Zero points are allowed
 * only for i8. */
tosac_code interp_op_negate(interp_ctx *c)
{
    ew_args k;
    tosac_code rc = ew_prologue1(c, 3, EW_INTS | EW_FLOATS, &k);
    if (rc != TOSAC_OK ||
        (rc = ew_check_same_type(c, c->in[0], "input1", c->in[1], "input1_zp")) != TOSAC_OK ||
        (rc = ew_check_same_type(c, c->in[0], "input1", c->in[2], "output_zp")) != TOSAC_OK ||
        (rc = ew_check_scalar(c, c->in[1], "input1_zp")) != TOSAC_OK ||
        (rc = ew_check_scalar(c, c->in[2], "output_zp")) != TOSAC_OK)
        return rc;
    const tosac_tensor *in = c->in[0];
    tosac_tensor *out = c->out[0];
    int64_t n = tosac_tensor_numel(out);
    if (ew_is_float(k.dt)) {
        double izp = interp_get_float(c->in[1], 0), ozp = interp_get_float(c->in[2], 0);
        INTERP_ERROR_IF(c, izp != 0.0);
        INTERP_ERROR_IF(c, ozp != 0.0);
        for (int64_t i = 0; i < n; i++)
            interp_set_float(out, i, (float)((0.0 - ((double)interp_get_float(in, i) - izp)) + ozp));
        return TOSAC_OK;
    }
    int64_t input1_zp = interp_get_int(c->in[1], 0), output_zp = interp_get_int(c->in[2], 0);
    bool is_i8 = k.dt == TOSAC_DT_I8;
    INTERP_ERROR_IF(c, !is_i8 && input1_zp != 0);
    INTERP_ERROR_IF(c, !is_i8 && output_zp != 0);
    int acc_bits = k.bits == 64 ? 64 : 32;
    for (int64_t i = 0; i < n; i++) {
        int64_t v;
        bool ok = arith_sub_s(interp_get_int(in, i), input1_zp, acc_bits, &v) == ARITH_OK &&
                  arith_sub_s(0, v, acc_bits, &v) == ARITH_OK &&
                  arith_add_s(v, output_zp, acc_bits, &v) == ARITH_OK;
        if (!ok)
            return interp_error(c, "REQUIRE(-(value - input1_zp) + output_zp fits acc_t) violated "
                                   "for value %lld: the result is unpredictable",
                                (long long)interp_get_int(in, i));
        interp_set_int(out, i, arith_clamp_s(v, k.bits));
    }
    return TOSAC_OK;
}
