/* Inverse trigonometric and hyperbolic functions: Acos, Acosh, Asin, Asinh, Atan, Atanh, Cosh,
 * Sinh, Tan. TOSA 1.0 has SIN, COS, EXP, LOG, RSQRT but none of these, so the float forms are
 * compositions (errors of a few f32 ulps of the terms):
 *   Tan   = SIN / COS;  Sinh, Cosh = (e^x -+ e^-x) / 2;
 *   Asinh = sign(x) log(|x| + sqrt(x^2 + 1)) (|x|: no cancellation for x < 0);
 *   Acosh = log(x + sqrt(x^2 - 1));  Atanh = log((1 + x) / (1 - x)) / 2;
 *   Atan  = range reduced: a = |x|, r = a > 1 ? 1/a : a, two half-angle steps
 *           t -> t / (1 + sqrt(1 + t^2)) bring |t| below tan(pi/16) = 0.199, where five terms
 *           of the Taylor series err by < 2e-9; then 4 atan(t), pi/2 minus it when a > 1,
 *           and the sign of x;
 *   Asin  = atan(x / sqrt((1 - x)(1 + x)));  Acos = 2 atan(sqrt((1 - x) / (1 + x))).
 * Outside the domain the square roots and logs give NaN, as ONNX does.
 * Quantized (int8/int16 per tensor): a TABLE of the real function (lower_table_unary). */
#include <math.h>
#include <string.h>

#include "lower/lower_act_util.h"
#include "lower/lower_table.h"

#define LT_PI 3.14159265358979323846

typedef int (*trig_float_fn)(lower_ctx *c, int x, int out);

static int mul(lower_ctx *c, int a, int b) { return la_binary(c, TOSA_OP_MUL, a, b, -1); }
static int add(lower_ctx *c, int a, int b) { return la_binary(c, TOSA_OP_ADD, a, b, -1); }
static int sub(lower_ctx *c, int a, int b) { return la_binary(c, TOSA_OP_SUB, a, b, -1); }
static int k(lower_ctx *c, int x, double v) { return la_like(c, x, v); }
static int recip(lower_ctx *c, int a) { return la_unary(c, TOSA_OP_RECIPROCAL, a, -1); }
/* sqrt(a) = 1 / rsqrt(a): exact at 0 (1/inf), NaN below 0 (as lower_unary's Sqrt) */
static int sqrt_(lower_ctx *c, int a) { return recip(c, la_unary(c, TOSA_OP_RSQRT, a, -1)); }
static int scale(lower_ctx *c, int a, double v, int out)
{
    return la_binary(c, TOSA_OP_MUL, a, k(c, a, v), out);
}

static int ff_tan(lower_ctx *c, int x, int out)
{
    return la_binary(c, TOSA_OP_MUL, la_unary(c, TOSA_OP_SIN, x, -1),
                     recip(c, la_unary(c, TOSA_OP_COS, x, -1)), out);
}

static int exp_pair(lower_ctx *c, int x, tosa_op op, int out)
{
    int e = la_unary(c, TOSA_OP_EXP, x, -1);
    int em = la_unary(c, TOSA_OP_EXP, lx_negate(c, x, -1), -1);
    return scale(c, la_binary(c, op, e, em, -1), 0.5, out);
}
static int ff_sinh(lower_ctx *c, int x, int out) { return exp_pair(c, x, TOSA_OP_SUB, out); }
static int ff_cosh(lower_ctx *c, int x, int out) { return exp_pair(c, x, TOSA_OP_ADD, out); }

/* x < 0 ? -v : v */
static int with_sign_of(lower_ctx *c, int x, int v, int out)
{
    int neg = la_compare(c, TOSA_OP_GREATER, k(c, x, 0.0), x);
    return lx_select(c, neg, lx_negate(c, v, -1), v, out);
}

static int ff_asinh(lower_ctx *c, int x, int out)
{
    int a = la_unary(c, TOSA_OP_ABS, x, -1);
    int r = sqrt_(c, add(c, mul(c, x, x), k(c, x, 1.0)));
    return with_sign_of(c, x, la_unary(c, TOSA_OP_LOG, add(c, a, r), -1), out);
}

static int ff_acosh(lower_ctx *c, int x, int out)
{
    int r = sqrt_(c, sub(c, mul(c, x, x), k(c, x, 1.0)));
    return la_unary(c, TOSA_OP_LOG, add(c, x, r), out);
}

static int ff_atanh(lower_ctx *c, int x, int out)
{
    int q = mul(c, add(c, k(c, x, 1.0), x), recip(c, sub(c, k(c, x, 1.0), x)));
    return scale(c, la_unary(c, TOSA_OP_LOG, q, -1), 0.5, out);
}

static int ff_atan(lower_ctx *c, int x, int out)
{
    int a = la_unary(c, TOSA_OP_ABS, x, -1);
    int big = la_compare(c, TOSA_OP_GREATER, a, k(c, x, 1.0));
    int t = lx_select(c, big, recip(c, a), a, -1);
    for (int i = 0; i < 2; i++) /* tan(h/2) = tan h / (1 + sqrt(1 + tan^2 h)) */
        t = mul(c, t, recip(c, add(c, k(c, x, 1.0),
                                   sqrt_(c, add(c, k(c, x, 1.0), mul(c, t, t))))));
    /* t (1 - t^2/3 + t^4/5 - t^6/7 + t^8/9), Horner in t^2 */
    int t2 = mul(c, t, t);
    int p = k(c, x, 1.0 / 9.0);
    static const double coef[4] = {-1.0 / 7.0, 1.0 / 5.0, -1.0 / 3.0, 1.0};
    for (int i = 0; i < 4; i++)
        p = add(c, mul(c, p, t2), k(c, x, coef[i]));
    int r = scale(c, mul(c, p, t), 4.0, -1);
    r = lx_select(c, big, sub(c, k(c, x, LT_PI / 2), r), r, -1);
    return with_sign_of(c, x, r, out);
}

static int ff_asin(lower_ctx *c, int x, int out)
{
    int d = sqrt_(c, mul(c, sub(c, k(c, x, 1.0), x), add(c, k(c, x, 1.0), x))); /* no cancellation */
    return ff_atan(c, mul(c, x, recip(c, d)), out);
}

static int ff_acos(lower_ctx *c, int x, int out)
{
    int q = mul(c, sub(c, k(c, x, 1.0), x), recip(c, add(c, k(c, x, 1.0), x)));
    return scale(c, ff_atan(c, sqrt_(c, q), -1), 2.0, out);
}

typedef struct trig_def {
    const char *onnx;
    double (*real)(double);
    trig_float_fn ff;
    double lo, hi;         /* the domain */
} trig_def;

static const trig_def defs[] = {
    {"Acos", acos, ff_acos, -1, 1},           {"Acosh", acosh, ff_acosh, 1, INFINITY},
    {"Asin", asin, ff_asin, -1, 1},           {"Asinh", asinh, ff_asinh, -INFINITY, INFINITY},
    {"Atan", atan, ff_atan, -INFINITY, INFINITY},
    {"Atanh", atanh, ff_atanh, -1, 1},
    {"Cosh", cosh, ff_cosh, -INFINITY, INFINITY},
    {"Sinh", sinh, ff_sinh, -INFINITY, INFINITY},
    {"Tan", tan, ff_tan, -INFINITY, INFINITY},
};

/* The table's input clamped to the domain: the int16 table's last entry stands for input
 * 32768, one step past the type, only to be interpolated towards; with x = 1 at 32767 (an
 * all-one calibration) it would be NaN there and drag the real values at the top with it. */
static double table_fn(double x, const void *d)
{
    const trig_def *t = d;
    return t->real(x < t->lo ? t->lo : x > t->hi ? t->hi : x);
}

static tosac_code lower_trig(lower_ctx *c, const ir_node *n)
{
    const trig_def *d = NULL;
    for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++)
        if (strcmp(defs[i].onnx, n->op_type) == 0)
            d = &defs[i];
    const ir_tensor *x = lower_in_ir(c, n, 0), *y = lower_out_ir(c, n, 0);
    if (!d || !x || !y)
        return lx_unsupported(c, n, "needs an input and an output");
    if (lower_is_quantized(x) || lower_is_quantized(y))
        return lower_table_unary(c, n, table_fn, d);
    if (!tosac_dtype_is_float(x->dtype) || x->dtype != y->dtype)
        return lx_unsupported(c, n, "%s input (float only)", tosac_dtype_name(x->dtype));
    int in = lower_in(c, n, 0);
    int out = in < 0 ? -1 : lower_out(c, n, 0);
    return out < 0 || d->ff(c, in, out) < 0 ? lx_code(c) : TOSAC_OK;
}

const lower_rule lower_rules_trig[] = {
    {IR_DOMAIN_ONNX, "Acos", lower_trig, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Acosh", lower_trig, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Asin", lower_trig, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Asinh", lower_trig, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Atan", lower_trig, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Atanh", lower_trig, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Cosh", lower_trig, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Sinh", lower_trig, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Tan", lower_trig, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
