/* Elementwise binary operators (TOSA 1.0 section "Elementwise Binary Operators", plus the
 * 1.1 EXT-INT64 rows): ADD, SUB, MUL, INTDIV, shifts, bitwise and logical ops, MAXIMUM,
 * MINIMUM, POW. TABLE lives in interp_elementwise_table.c. */
#include <math.h>

#include "interp/interp_elementwise.h"
#include "interp/interp_ewise.h"

#define ADD_SUB_TYPES (EW_T(TOSAC_DT_I32) | EW_T(TOSAC_DT_I64) | EW_FLOATS)

/* ---- integer element functions (values sign-extended to int64) ---- */

static const char *add_i(int64_t a, int64_t b, int64_t *r, const ew_args *k)
{
    if (arith_add_s(a, b, k->bits, r) != ARITH_OK)
        return "c >= minimum_s<in_t>() && c <= maximum_s<in_t>() in apply_add_s";
    return NULL;
}

static const char *sub_i(int64_t a, int64_t b, int64_t *r, const ew_args *k)
{
    if (arith_sub_s(a, b, k->bits, r) != ARITH_OK)
        return "c >= minimum_s<in_t>() && c <= maximum_s<in_t>() in apply_sub_s";
    return NULL;
}

static const char *shift_range(int64_t b, const ew_args *k)
{
    if (b < 0 || b > k->bits - 1)
        return "0 <= value2 && value2 <= bits(in_out_t) - 1";
    return NULL;
}

static const char *asr_i(int64_t a, int64_t b, int64_t *r, const ew_args *k)
{
    const char *bad = shift_range(b, k);
    if (bad)
        return bad;
    *r = a >> b; /* arithmetic on a sign-extended value */
    if (k->round && b > 0 && ((a >> (b - 1)) & 1))
        *r += 1;
    return NULL;
}

static const char *lsl_i(int64_t a, int64_t b, int64_t *r, const ew_args *k)
{
    const char *bad = shift_range(b, k);
    if (!bad)
        *r = arith_sign_extend((int64_t)((uint64_t)a << b), k->bits);
    return bad;
}

static const char *lsr_i(int64_t a, int64_t b, int64_t *r, const ew_args *k)
{
    const char *bad = shift_range(b, k);
    if (bad)
        return bad;
    /* the shift happens on the type's unsigned bits */
    uint64_t u = (uint64_t)arith_zero_extend(a, k->bits);
    *r = arith_sign_extend((int64_t)(u >> b), k->bits);
    return NULL;
}

EW_PURE_INT2(and_i, a & b)
EW_PURE_INT2(or_i, a | b)
EW_PURE_INT2(xor_i, a ^ b)
EW_PURE_INT2(land_i, a && b)
EW_PURE_INT2(lor_i, a || b)
EW_PURE_INT2(lxor_i, (a != 0) != (b != 0))
static const char *intdiv_i(int64_t a, int64_t b, int64_t *r, const ew_args *k)
{
    if (b == 0)
        return "value2 != 0";
    if (a == k->min && b == -1) /* the only quotient out of range (C division is UB there) */
        return "value1 / value2 <= maximum_s<in_out_t>()";
    *r = a / b; /* C truncates toward zero, as the spec's apply_intdiv_s */
    return NULL;
}

EW_PURE_INT2(max_i, a >= b ? a : b)
EW_PURE_INT2(min_i, a < b ? a : b)
/* floor((p + 2^(s-1)) / 2^s) for 0 < s <= 63, without the int64 overflow that p + 2^62
 * could cause (p = INT32_MIN squared, s = 63). */
static int64_t round_shift(int64_t p, int s)
{
    int64_t q = p >> s;
    uint64_t rem = (uint64_t)p & (((uint64_t)1 << s) - 1);
    return rem >= ((uint64_t)1 << (s - 1)) ? q + 1 : q;
}

/* MUL: in_t i8/i16 give an exact i32 product; i32 with shift 0 and i64 keep the low bits;
 * i32 with shift > 0 rounds half up: (a*b + 2^(shift-1)) >> shift, which must fit i32. */
static const char *mul_i(int64_t a, int64_t b, int64_t *r, const ew_args *k)
{
    if (k->bits == 32 && k->shift > 0) {
        int64_t q = round_shift(a * b, k->shift); /* |a*b| <= 2^62 */
        if (q < INT32_MIN || q > INT32_MAX)
            return "product >= minimum_s<i32_t>() && product <= maximum_s<i32_t>()";
        *r = q;
        return NULL;
    }
    int out_bits = k->bits == 64 ? 64 : 32;
    *r = arith_sign_extend((int64_t)((uint64_t)a * (uint64_t)b), out_bits);
    return NULL;
}

/* ---- float element functions (computed in double, rounded once on store) ---- */

static double add_f(double a, double b, const ew_args *k) { return a + b; }
static double sub_f(double a, double b, const ew_args *k) { return a - b; }
static double mul_f(double a, double b, const ew_args *k) { return a * b; }
static double pow_f(double a, double b, const ew_args *k) { return pow(a, b); }

/* apply_max_s / apply_min_s with compare_nan: PROPAGATE gives NaN, IGNORE the other value. */
static double max_f(double a, double b, const ew_args *k)
{
    if (isnan(a) || isnan(b))
        return k->nan_mode == TOSA_NAN_PROPAGATE ? NAN : (isnan(a) ? b : a);
    return a >= b ? a : b;
}

static double min_f(double a, double b, const ew_args *k)
{
    if (isnan(a) || isnan(b))
        return k->nan_mode == TOSA_NAN_PROPAGATE ? NAN : (isnan(a) ? b : a);
    return a < b ? a : b;
}

/* ---- typed loops for the hot int32/fp32 cases ---- */

enum { ARITH_ADD, ARITH_SUB, ARITH_MUL };

static tosac_code arith_f32(interp_ctx *c, int what)
{
    const float *a = c->in[0]->data, *b = c->in[1]->data;
    float *o = c->out[0]->data;
    kern_bcast_rows r;
    ew_rows_init(&r, c->out[0], c->in, 2);
    while (kern_bcast_rows_next(&r)) {
        const float *pa = a + r.off[0], *pb = b + r.off[1];
        int64_t sa = r.inner[0], sb = r.inner[1];
        float *po = o + r.out_off;
        /* float op float is correctly rounded in IEEE fp32, as the spec requires */
        if (what == ARITH_ADD)
            for (int64_t j = 0; j < r.n; j++) po[j] = pa[j * sa] + pb[j * sb];
        else if (what == ARITH_SUB)
            for (int64_t j = 0; j < r.n; j++) po[j] = pa[j * sa] - pb[j * sb];
        else
            for (int64_t j = 0; j < r.n; j++) po[j] = pa[j * sa] * pb[j * sb];
    }
    return TOSAC_OK;
}

/* int32 ADD / SUB / MUL: the product is exact in int64 (|a*b| <= 2^62). */
static tosac_code arith_i32(interp_ctx *c, int what, int shift)
{
    const int32_t *a = c->in[0]->data, *b = c->in[1]->data;
    int32_t *o = c->out[0]->data;
    kern_bcast_rows r;
    ew_rows_init(&r, c->out[0], c->in, 2);
    while (kern_bcast_rows_next(&r)) {
        const int32_t *pa = a + r.off[0], *pb = b + r.off[1];
        int64_t sa = r.inner[0], sb = r.inner[1];
        int32_t *po = o + r.out_off;
        for (int64_t j = 0; j < r.n; j++) {
            int64_t x = pa[j * sa], y = pb[j * sb], v;
            if (what == ARITH_ADD)
                v = x + y;
            else if (what == ARITH_SUB)
                v = x - y;
            else if (shift == 0) /* low 32 bits of the product */
                v = arith_sign_extend(x * y, 32);
            else
                v = round_shift(x * y, shift);
            if (v < INT32_MIN || v > INT32_MAX)
                return interp_error(c, "REQUIRE(result >= minimum_s<i32_t>() && result <= "
                                       "maximum_s<i32_t>()) violated in %s: the result is "
                                       "unpredictable",
                                    what == ARITH_ADD ? "apply_add_s" : what == ARITH_SUB ? "apply_sub_s" : "MUL");
            po[j] = (int32_t)v;
        }
    }
    return TOSAC_OK;
}

/* ---- operators ---- */

static tosac_code add_sub(interp_ctx *c, bool sub)
{
    ew_args k;
    tosac_code rc = ew_prologue2(c, 2, ADD_SUB_TYPES, TOSAC_DT_UNKNOWN, &k);
    if (rc != TOSAC_OK)
        return rc;
    if (k.dt == TOSAC_DT_I32)
        return arith_i32(c, sub ? ARITH_SUB : ARITH_ADD, 0);
    if (k.dt == TOSAC_DT_F32)
        return arith_f32(c, sub ? ARITH_SUB : ARITH_ADD);
    if (ew_is_float(k.dt))
        return ew_map2_float(c, sub ? sub_f : add_f, &k);
    return ew_map2_int(c, sub ? sub_i : add_i, &k);
}

tosac_code interp_op_add(interp_ctx *c) { return add_sub(c, false); }
tosac_code interp_op_sub(interp_ctx *c) { return add_sub(c, true); }

tosac_code interp_op_mul(interp_ctx *c)
{
    tosac_code rc = ew_check_arity(c, 3, 1);
    if (rc != TOSAC_OK)
        return rc;
    tosac_dtype in_dt = c->in[0]->dtype;
    tosac_dtype out_dt = (in_dt == TOSAC_DT_I8 || in_dt == TOSAC_DT_I16) ? TOSAC_DT_I32
                                                                          : TOSAC_DT_UNKNOWN;
    ew_args k;
    if ((rc = ew_prologue2(c, 3, EW_INTS | EW_FLOATS, out_dt, &k)) != TOSAC_OK ||
        (rc = ew_check_type(c, c->in[2], "shift", EW_T(TOSAC_DT_I8))) != TOSAC_OK ||
        (rc = ew_check_scalar(c, c->in[2], "shift")) != TOSAC_OK)
        return rc;
    int64_t shift = interp_get_int(c->in[2], 0);
    EW_REQUIRE(c, 0 <= shift && shift <= 63);
    EW_REQUIRE(c, in_dt == TOSAC_DT_I32 || shift == 0);
    k.shift = (int)shift;
    if (in_dt == TOSAC_DT_I32)
        return arith_i32(c, ARITH_MUL, k.shift);
    if (in_dt == TOSAC_DT_F32)
        return arith_f32(c, ARITH_MUL);
    if (ew_is_float(in_dt))
        return ew_map2_float(c, mul_f, &k);
    return ew_map2_int(c, mul_i, &k);
}

static tosac_code int_binary(interp_ctx *c, uint32_t types, ew_int2_fn fn, bool round)
{
    ew_args k;
    tosac_code rc = ew_prologue2(c, 2, types, TOSAC_DT_UNKNOWN, &k);
    if (rc != TOSAC_OK)
        return rc;
    k.round = round;
    return ew_map2_int(c, fn, &k);
}

tosac_code interp_op_arithmetic_right_shift(interp_ctx *c)
{
    return int_binary(c, EW_INTS, asr_i, c->op->attr.round);
}
tosac_code interp_op_logical_left_shift(interp_ctx *c) { return int_binary(c, EW_INTS, lsl_i, false); }
tosac_code interp_op_logical_right_shift(interp_ctx *c) { return int_binary(c, EW_INTS, lsr_i, false); }
tosac_code interp_op_bitwise_and(interp_ctx *c) { return int_binary(c, EW_INTS, and_i, false); }
tosac_code interp_op_bitwise_or(interp_ctx *c) { return int_binary(c, EW_INTS, or_i, false); }
tosac_code interp_op_bitwise_xor(interp_ctx *c) { return int_binary(c, EW_INTS, xor_i, false); }
tosac_code interp_op_logical_and(interp_ctx *c) { return int_binary(c, EW_T(TOSAC_DT_BOOL), land_i, false); }
tosac_code interp_op_logical_or(interp_ctx *c) { return int_binary(c, EW_T(TOSAC_DT_BOOL), lor_i, false); }
tosac_code interp_op_logical_xor(interp_ctx *c) { return int_binary(c, EW_T(TOSAC_DT_BOOL), lxor_i, false); }

tosac_code interp_op_intdiv(interp_ctx *c)
{
    return int_binary(c, EW_T(TOSAC_DT_I32) | EW_T(TOSAC_DT_I64), intdiv_i, false);
}

static tosac_code max_min(interp_ctx *c, bool is_max)
{
    ew_args k;
    tosac_code rc = ew_prologue2(c, 2, EW_T(TOSAC_DT_I32) | EW_T(TOSAC_DT_I64) | EW_FLOATS,
                                 TOSAC_DT_UNKNOWN, &k);
    if (rc != TOSAC_OK || (rc = ew_check_nan_mode(c, k.dt)) != TOSAC_OK)
        return rc;
    k.nan_mode = c->op->attr.nan_mode;
    if (ew_is_float(k.dt))
        return ew_map2_float(c, is_max ? max_f : min_f, &k);
    return ew_map2_int(c, is_max ? max_i : min_i, &k);
}

tosac_code interp_op_maximum(interp_ctx *c) { return max_min(c, true); }
tosac_code interp_op_minimum(interp_ctx *c) { return max_min(c, false); }

tosac_code interp_op_pow(interp_ctx *c)
{
    ew_args k;
    tosac_code rc = ew_prologue2(c, 2, EW_FLOATS, TOSAC_DT_UNKNOWN, &k);
    return rc != TOSAC_OK ? rc : ew_map2_float(c, pow_f, &k);
}
