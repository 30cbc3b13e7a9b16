/* Operator group: type conversion (CAST, RESCALE). */
#include <math.h>
#include <string.h>

#include "interp/interp_arith.h"
#include "interp/interp_internal.h"

/* ---------------------------------------------------------------- helpers */

static bool same_shape(const tosac_tensor *a, const tosac_tensor *b)
{
    return tosac_shape_equal(a->rank, a->shape, b->rank, b->shape);
}

/* Significant bits (incl. the implicit one) of a float format: an integer with at most this
 * many significant bits converts exactly. */
static int float_precision(tosac_dtype dt)
{
    switch (dt) {
    case TOSAC_DT_F16: return 11;
    case TOSAC_DT_BF16: return 8;
    case TOSAC_DT_FP8E4M3: return 4;
    case TOSAC_DT_FP8E5M2: return 3;
    case TOSAC_DT_F64: return 53;
    default: return 24;
    }
}

/* |v| rounded to `prec` significant bits, nearest-even. Rounding the integer directly (not
 * via float) keeps int -> bf16/fp16 a single rounding, as the spec requires. */
static double int_round_to_precision(int64_t v, int prec)
{
    uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    int n = 64 - arith_clz64(a);
    if (n > prec) {
        int drop = n - prec;
        uint64_t q = a >> drop, rem = a & (((uint64_t)1 << drop) - 1);
        uint64_t half = (uint64_t)1 << (drop - 1);
        if (rem > half || (rem == half && (q & 1)))
            q++;
        a = q << drop; /* q <= 2^prec, so this cannot pass 2^64 for prec <= 53 < n */
    }
    double d = (double)a; /* exact: at most 53 significant bits */
    return v < 0 ? -d : d;
}

/* round_to_nearest_int: ties to even, computed in double where every float is exact. */
static double round_half_even(double x)
{
    double f = floor(x);
    double frac = x - f;
    if (frac > 0.5 || (frac == 0.5 && fmod(f, 2.0) != 0.0))
        f += 1.0;
    return f;
}

static bool is_cast_float(tosac_dtype dt)
{
    return dt == TOSAC_DT_F16 || dt == TOSAC_DT_BF16 || dt == TOSAC_DT_F32 ||
           dt == TOSAC_DT_F64 || dt == TOSAC_DT_FP8E4M3 || dt == TOSAC_DT_FP8E5M2;
}

static bool is_cast_int(tosac_dtype dt)
{
    return dt == TOSAC_DT_I4 || dt == TOSAC_DT_I8 || dt == TOSAC_DT_I16 || dt == TOSAC_DT_I32 ||
           dt == TOSAC_DT_I48 || dt == TOSAC_DT_I64 || dt == TOSAC_DT_U8 || dt == TOSAC_DT_U16 ||
           dt == TOSAC_DT_U32;
}

/* ---------------------------------------------------------------- CAST */

tosac_code interp_op_cast(interp_ctx *c)
{
    INTERP_ERROR_IF(c, c->n_in != 1);
    const tosac_tensor *in = c->in[0];
    tosac_tensor *out = c->out[0];
    tosac_dtype it = in->dtype, ot = out->dtype;
    INTERP_ERROR_IF(c, !same_shape(in, out));
    bool in_ok = it == TOSAC_DT_BOOL || is_cast_int(it) || is_cast_float(it);
    bool out_ok = ot == TOSAC_DT_BOOL || is_cast_int(ot) || is_cast_float(ot);
    if (!in_ok || !out_ok)
        return interp_error(c, "cannot cast %s to %s", tosac_dtype_name(it), tosac_dtype_name(ot));
    /* 1.1: input_unsigned reinterprets a signless integer input as unsigned */
    bool in_unsigned = c->op->attr.input_unsigned || it == TOSAC_DT_U8 || it == TOSAC_DT_U16 ||
                       it == TOSAC_DT_U32;
    int in_bits = tosac_dtype_bits(it), out_bits = tosac_dtype_bits(ot);
    bool out_unsigned = ot == TOSAC_DT_U8 || ot == TOSAC_DT_U16 || ot == TOSAC_DT_U32;
    int64_t n = tosac_tensor_numel(in);

    for (int64_t i = 0; i < n; i++) {
        if (ot == TOSAC_DT_BOOL) {
            bool nz = is_cast_float(it) ? interp_get_float(in, i) != 0.0f : interp_get_int(in, i) != 0;
            interp_set_int(out, i, nz);
        } else if (is_cast_float(ot)) {
            if (is_cast_float(it)) { /* every input format is exact in float: one rounding */
                interp_set_float(out, i, interp_get_float(in, i));
            } else {
                int64_t v = interp_get_int(in, i);
                if (it != TOSAC_DT_BOOL)
                    v = in_unsigned ? arith_zero_extend(v, in_bits) : arith_sign_extend(v, in_bits);
                double d = int_round_to_precision(v, float_precision(ot));
                if (ot == TOSAC_DT_F64)
                    ((double *)out->data)[i] = d;
                else /* d has <= 24 significant bits: exact in float; the format's overflow
                        rule (inf, or NaN for fp8e4m3) applies when it is stored */
                    interp_set_float(out, i, (float)d);
            }
        } else { /* integer output */
            int64_t v;
            if (it == TOSAC_DT_BOOL) {
                v = interp_get_int(in, i) != 0;
            } else if (is_cast_float(it)) {
                double f = it == TOSAC_DT_F64 ? ((const double *)in->data)[i] : interp_get_float(in, i);
                double lo = out_unsigned ? 0.0 : (double)arith_min_s(out_bits);
                double hi = out_unsigned ? (double)arith_max_u(out_bits) : (double)arith_max_s(out_bits);
                /* NaN has no integer value; the spec leaves it open, we pick 0 */
                if (isnan(f))
                    v = 0;
                else if (f <= lo)
                    v = out_unsigned ? 0 : arith_min_s(out_bits);
                else if (f >= hi)
                    v = out_unsigned ? arith_max_u(out_bits) : arith_max_s(out_bits);
                else
                    v = (int64_t)round_half_even(f);
            } else {
                v = interp_get_int(in, i);
                v = in_unsigned ? arith_zero_extend(v, in_bits) : arith_sign_extend(v, in_bits);
            }
            /* wider: sign/zero extension done above; narrower: keep the low bits */
            v = out_unsigned ? arith_zero_extend(v, out_bits) : arith_sign_extend(v, out_bits);
            interp_set_int(out, i, v);
        }
    }
    return TOSAC_OK;
}

/* ---------------------------------------------------------------- RESCALE */

static inline int64_t read_raw(const void *data, int bits, int64_t i)
{
    switch (bits) {
    case 8: return ((const int8_t *)data)[i];
    case 16: return ((const int16_t *)data)[i];
    case 32: return ((const int32_t *)data)[i];
    default: return ((const int64_t *)data)[i];
    }
}

static inline void write_raw(void *data, int bits, int64_t i, int64_t v)
{
    /* v is already clamped to the signed or unsigned range: keep its low bits */
    switch (bits) {
    case 8: ((uint8_t *)data)[i] = (uint8_t)v; break;
    case 16: ((uint16_t *)data)[i] = (uint16_t)v; break;
    default: ((uint32_t *)data)[i] = (uint32_t)v; break;
    }
}

tosac_code interp_op_rescale(interp_ctx *c)
{
    INTERP_ERROR_IF(c, c->n_in != 5);
    const tosac_tensor *in = c->in[0], *mul = c->in[1], *sh = c->in[2];
    const tosac_tensor *izp = c->in[3], *ozp = c->in[4];
    tosac_tensor *out = c->out[0];
    const tosa_attr *a = &c->op->attr;
    int ib = arith_rescale_bits(in->dtype), ob = arith_rescale_bits(out->dtype);
    if (!ib || !ob || ob == 48)
        return interp_error(c, "unsupported types %s to %s", tosac_dtype_name(in->dtype),
                            tosac_dtype_name(out->dtype));
    INTERP_ERROR_IF(c, !same_shape(in, out));
    INTERP_ERROR_IF(c, izp->dtype != in->dtype || ozp->dtype != out->dtype);
    INTERP_ERROR_IF(c, tosac_tensor_numel(izp) != 1 || tosac_tensor_numel(ozp) != 1);
    INTERP_ERROR_IF(c, mul->dtype != (a->scale32 ? TOSAC_DT_I32 : TOSAC_DT_I16));
    INTERP_ERROR_IF(c, sh->dtype != TOSAC_DT_I8);
    INTERP_ERROR_IF(c, a->per_channel && in->rank < 1);
    int64_t nc = a->per_channel ? in->shape[in->rank - 1] : 1;
    INTERP_ERROR_IF(c, mul->rank != 1 || mul->shape[0] != nc);
    INTERP_ERROR_IF(c, sh->rank != 1 || sh->shape[0] != nc);
    uint32_t rm = a->rounding_mode;
    if (rm != TOSA_ROUND_SINGLE && rm != TOSA_ROUND_INEXACT && rm != TOSA_ROUND_DOUBLE)
        return interp_error(c, "rounding_mode %u is not SINGLE/INEXACT/DOUBLE_ROUND", rm);
    bool iu = a->input_unsigned, ou = a->output_unsigned;
    int64_t in_zp = read_raw(izp->data, ib, 0), out_zp = read_raw(ozp->data, ob, 0);
    in_zp = iu ? arith_zero_extend(in_zp, ib) : in_zp;
    out_zp = ou ? arith_zero_extend(out_zp, ob) : out_zp;

    /* The spec's ERROR_IFs, in its order, worded with its names. */
    if (ib != 8 && !(ib == 16 && iu) && in_zp != 0)
        return interp_error(c, "ERROR_IF(input_zp != 0): only int8/uint8/uint16 inputs have a "
                            "zero point (input_zp %lld)", (long long)in_zp);
    if (ob != 8 && !(ob == 16 && ou) && out_zp != 0)
        return interp_error(c, "ERROR_IF(output_zp != 0): only int8/uint8/uint16 outputs have a "
                            "zero point (output_zp %lld)", (long long)out_zp);
    if (ib == 16 && iu && in_zp != 0 && in_zp != 32768)
        return interp_error(c, "ERROR_IF: uint16 input_zp %lld is not 0 or 32768", (long long)in_zp);
    if (ob == 16 && ou && out_zp != 0 && out_zp != 32768)
        return interp_error(c, "ERROR_IF: uint16 output_zp %lld is not 0 or 32768",
                            (long long)out_zp);
    if (a->scale32 && ib == 48)
        return interp_error(c, "ERROR_IF(scale32 && in_t == i48_t)");
    if (!a->scale32 && rm == TOSA_ROUND_DOUBLE)
        return interp_error(c, "ERROR_IF(!scale32 && rounding_mode == DOUBLE_ROUND)");
    if (iu && ou)
        return interp_error(c, "ERROR_IF(input_unsigned && output_unsigned)");
    if ((ob == 32 && iu) || (ib == 32 && iu) || (ib == 48 && iu))
        return interp_error(c, "ERROR_IF: input_unsigned with %s input and %s output",
                            tosac_dtype_name(in->dtype), tosac_dtype_name(out->dtype));
    if ((ib == 32 && ou) || (ib == 48 && ou) || (ob == 32 && ou))
        return interp_error(c, "ERROR_IF: output_unsigned with %s input and %s output",
                            tosac_dtype_name(in->dtype), tosac_dtype_name(out->dtype));

    int64_t lo = ou ? 0 : arith_min_s(ob), hi = ou ? arith_max_u(ob) : arith_max_s(ob);
    int64_t n = tosac_tensor_numel(in);
    int64_t ch = 0; /* channel of element i: the index in the last dim when per_channel */
    for (int64_t i = 0; i < n; i++, ch = (a->per_channel && ch + 1 < nc) ? ch + 1 : 0) {
        int32_t m = (int32_t)read_raw(mul->data, a->scale32 ? 32 : 16, ch);
        int s = ((const int8_t *)sh->data)[ch];
        int64_t v = read_raw(in->data, ib, i);
        if (iu)
            v = arith_zero_extend(v, ib);
        v -= in_zp; /* both within 17 bits of int48 range: exact */
        int32_t r;
        arith_status st = a->scale32 ? arith_apply_scale_32((int32_t)v, m, s, rm, &r)
                                     : arith_apply_scale_16(v, m, s, &r);
        if (st != ARITH_OK)
            return interp_error(c, "REQUIRE failed at element %lld (value %lld, multiplier %d, "
                                "shift %d): %s", (long long)i, (long long)v, (int)m, s,
                                arith_status_str(st));
        int64_t res;
        if (arith_add_s(r, out_zp, 32, &res) != ARITH_OK)
            return interp_error(c, "REQUIRE failed at element %lld: result %d + output_zp %lld "
                                "outside int32", (long long)i, (int)r, (long long)out_zp);
        /* Unsigned output clamps the signed int32 result to [0, maximum_u<out_t>]: negative
         * results give 0, as Arm's reference model does (a literal unsigned reading of
         * apply_clip_u<i32_t> would saturate them to the maximum instead). */
        res = res < lo ? lo : res > hi ? hi : res;
        write_raw(out->data, ob, i, res);
    }
    return TOSAC_OK;
}

const interp_op_entry interp_ops_type_conversion[] = {
    {TOSA_OP_CAST, interp_op_cast},
    {TOSA_OP_RESCALE, interp_op_rescale},
    {TOSA_OP_UNKNOWN, NULL},
};
