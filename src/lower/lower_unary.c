/* Elementwise unary operators: Abs, Neg, Floor, Ceil, Reciprocal, Exp, Log, Sqrt, Sin, Cos,
 * Erf, Round, Sign.
 *
 * Float forms map to the TOSA operator of the same meaning, except:
 *   Sqrt  = RECIPROCAL(RSQRT(x)): exact at 0 (1/inf) and +inf, NaN below 0; POW(x, 0.5) has
 *           a looser precision bound in the spec;
 *   Round = CAST to int32 and back (TOSA's float->int CAST rounds half to even, as ONNX
 *           Round does), selected only where |x| < 2^mantissa: larger values are already
 *           integers (or inf/NaN) and would not fit int32;
 *   Sign  = two GREATER comparisons and two SELECTs (0 and NaN pass through).
 * Integer Abs/Neg use ABS/NEGATE (NEGATE saturates at the type's minimum where ONNX wraps).
 * Quantized (int8/int16 per tensor) forms are TABLE lookups of the real function
 * (lower_table_unary), except Neg with equal input and output scales (at different ones a
 * TABLE too): NEGATE with both zero
 * points is exact. */
#include <math.h>
#include <string.h>

#include "lower/lower_extra.h"
#include "lower/lower_table.h"

typedef enum { U_PLAIN, U_NEG, U_SQRT, U_ROUND, U_SIGN } unary_form;

typedef struct unary_def {
    const char *onnx;
    tosa_op op;          /* for U_PLAIN */
    unary_form form;
    bool int_ok;         /* meaningful on plain integers */
    double (*real)(double); /* the function for the quantized TABLE */
    bool steps;          /* discontinuous: an int16 TABLE (interpolated) would smooth its jumps */
} unary_def;

static double recip(double x) { return 1.0 / x; }
static double neg(double x) { return -x; }
static double sign(double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : x; }

static const unary_def defs[] = {
    {"Abs", TOSA_OP_ABS, U_PLAIN, true, fabs, false},
    {"Neg", TOSA_OP_NEGATE, U_NEG, true, neg, false},
    {"Floor", TOSA_OP_FLOOR, U_PLAIN, false, floor, true},
    {"Ceil", TOSA_OP_CEIL, U_PLAIN, false, ceil, true},
    {"Reciprocal", TOSA_OP_RECIPROCAL, U_PLAIN, false, recip, false},
    {"Exp", TOSA_OP_EXP, U_PLAIN, false, exp, false},
    {"Log", TOSA_OP_LOG, U_PLAIN, false, log, false},
    {"Sqrt", TOSA_OP_UNKNOWN, U_SQRT, false, sqrt, false},
    {"Sin", TOSA_OP_SIN, U_PLAIN, false, sin, false},
    {"Cos", TOSA_OP_COS, U_PLAIN, false, cos, false},
    {"Erf", TOSA_OP_ERF, U_PLAIN, false, erf, false},
    {"Round", TOSA_OP_UNKNOWN, U_ROUND, false, nearbyint, true},
    {"Sign", TOSA_OP_UNKNOWN, U_SIGN, true, sign, true},
};

static const unary_def *find_def(const ir_node *n)
{
    for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++)
        if (strcmp(defs[i].onnx, n->op_type) == 0)
            return &defs[i];
    return NULL;
}

/* Magnitude from which every value of the format is an integer (2^mantissa bits). */
static double integral_from(tosac_dtype dt)
{
    switch (dt) {
    case TOSAC_DT_F16: return 1024.0;
    case TOSAC_DT_BF16: return 128.0;
    default: return 8388608.0;
    }
}

static int emit_round(lower_ctx *c, int x, int rank, int out)
{
    tosac_dtype dt = lower_dtype(c, x);
    int r = lx_cast(c, lx_cast(c, x, TOSAC_DT_I32, -1), dt, -1);
    int small = lx_binary(c, TOSA_OP_GREATER, lx_fill(c, "integral_from", dt, rank,
                                                      integral_from(dt)),
                          lx_unary(c, TOSA_OP_ABS, x, TOSAC_DT_UNKNOWN, -1), TOSAC_DT_BOOL, -1);
    return lx_select(c, small, r, x, out);
}

static int emit_sign(lower_ctx *c, int x, int rank, int out)
{
    tosac_dtype dt = lower_dtype(c, x);
    int zero = lx_fill(c, "zero", dt, rank, 0.0);
    int pos = lx_binary(c, TOSA_OP_GREATER, x, zero, TOSAC_DT_BOOL, -1);
    int neg = lx_binary(c, TOSA_OP_GREATER, zero, x, TOSAC_DT_BOOL, -1);
    int t = lx_select(c, neg, lx_fill(c, "minus_one", dt, rank, -1.0), x, -1);
    return lx_select(c, pos, lx_fill(c, "one", dt, rank, 1.0), t, out);
}

static double table_fn(double x, const void *def)
{
    return ((const unary_def *)def)->real(x);
}

/* Quantized Neg with equal scales: -(x - zp_in) + zp_out. */
static tosac_code lower_quantized_neg(lower_ctx *c, const ir_node *n, const ir_tensor *x,
                                      const ir_tensor *y)
{
    tosac_code rc;
    if ((rc = lx_check_quant(c, n, x)) || (rc = lx_check_quant(c, n, y)))
        return rc;
    if (lower_qscale(x) != lower_qscale(y) || x->dtype != y->dtype)
        return lx_unsupported(c, n, "quantized with different input and output scales");
    int in = lower_in(c, n, 0);
    int z1 = lower_scalar(c, "input1_zp", x->dtype, lower_qzp(x));
    int z2 = lower_scalar(c, "output_zp", y->dtype, lower_qzp(y));
    int out = lower_out(c, n, 0);
    if (in < 0 || z1 < 0 || z2 < 0 || out < 0)
        return lx_code(c);
    int ins[3] = {in, z1, z2};
    return lower_emit(c, TOSA_OP_NEGATE, NULL, ins, 3, &out, 1);
}

static tosac_code lower_unary(lower_ctx *c, const ir_node *n)
{
    const unary_def *d = find_def(n);
    const ir_tensor *x = lower_in_ir(c, n, 0), *y = lower_out_ir(c, n, 0);
    if (!d || !x || !y)
        return lx_unsupported(c, n, "needs an input and an output");
    if (lower_is_quantized(x) || lower_is_quantized(y)) {
        /* at different scales (an If branch's output at the If's parameters) -x is a
         * TABLE like the other unary operators */
        if (d->form == U_NEG && (lower_qscale(x) == lower_qscale(y) || !lower_is_quantized(x) ||
                                 !lower_is_quantized(y) || x->dtype != y->dtype))
            return lower_quantized_neg(c, n, x, y);
        if (d->steps && x->dtype == TOSAC_DT_I16) /* int8 tables are exact: one entry a value */
            return lx_unsupported(c, n, "int16 TABLE interpolates between its 513 entries, "
                                  "which would smooth the steps of %s", n->op_type);
        return lower_table_unary(c, n, table_fn, d);
    }
    if (!tosac_dtype_is_float(x->dtype) && !d->int_ok)
        return lx_unsupported(c, n, "%s input (float only)", tosac_dtype_name(x->dtype));
    int in = lower_in(c, n, 0);
    int out = in < 0 ? -1 : lower_out(c, n, 0);
    int res;
    switch (d->form) {
    case U_NEG: res = lx_negate(c, in, out); break;
    case U_SQRT:
        res = lx_unary(c, TOSA_OP_RECIPROCAL, lx_unary(c, TOSA_OP_RSQRT, in, TOSAC_DT_UNKNOWN, -1),
                       TOSAC_DT_UNKNOWN, out);
        break;
    case U_ROUND: res = emit_round(c, in, x->rank, out); break;
    case U_SIGN: res = emit_sign(c, in, x->rank, out); break;
    default: res = lx_unary(c, d->op, in, TOSAC_DT_UNKNOWN, out); break;
    }
    return res < 0 ? lx_code(c) : TOSAC_OK;
}

const lower_rule lower_rules_unary[] = {
    {IR_DOMAIN_ONNX, "Abs", lower_unary, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Neg", lower_unary, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Floor", lower_unary, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Ceil", lower_unary, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Reciprocal", lower_unary, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Exp", lower_unary, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Log", lower_unary, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Sqrt", lower_unary, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Sin", lower_unary, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Cos", lower_unary, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Erf", lower_unary, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Round", lower_unary, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Sign", lower_unary, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
