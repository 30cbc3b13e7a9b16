/* Activations: Relu, Clip, LeakyRelu, PRelu, HardSigmoid, HardSwish, Elu, Selu, Softplus,
 * Gelu, Sigmoid, Tanh, Mish, Celu.
 *
 * Float: TOSA's own SIGMOID/TANH/ERF/CLAMP where they exist, otherwise the ONNX definition
 * written with elementwise operators. Quantized (int8/int16 per tensor): Relu and Clip are a
 * CLAMP in the integer domain (after a RESCALE when input and output quantization differ),
 * since quantization is monotonic: Q(clip(v, lo, hi)) = clip(Q(v), Q(lo), Q(hi)); every other
 * activation is a TABLE of the real function (lower_table_unary). */
#include <math.h>
#include <string.h>

#include "lower/lower_act_util.h"
#include "lower/lower_table.h"

#define LA_PI 3.14159265358979323846

/* Parameters of the real functions, from the node's attributes. */
typedef struct act_params {
    double alpha, beta, gamma;
    bool tanh_form;        /* Gelu approximate="tanh" */
} act_params;

static double f_sigmoid(double x, const void *a) { (void)a; return 1.0 / (1.0 + exp(-x)); }
static double f_tanh(double x, const void *a) { (void)a; return tanh(x); }
static double f_leaky(double x, const void *a)
{
    return x >= 0 ? x : ((const act_params *)a)->alpha * x;
}
static double f_hardsigmoid(double x, const void *a)
{
    const act_params *p = a;
    return fmax(0.0, fmin(1.0, p->alpha * x + p->beta));
}
static double f_hardswish(double x, const void *a)
{
    (void)a;
    return x * fmax(0.0, fmin(1.0, x / 6.0 + 0.5));
}
static double f_elu(double x, const void *a)
{
    const act_params *p = a;
    return p->gamma * (x > 0 ? x : p->alpha * (exp(x) - 1.0));
}
static double f_softplus(double x, const void *a)
{
    (void)a;
    return fmax(x, 0.0) + log1p(exp(-fabs(x)));
}
static double f_gelu(double x, const void *a)
{
    if (((const act_params *)a)->tanh_form)
        return 0.5 * x * (1.0 + tanh(sqrt(2.0 / LA_PI) * (x + 0.044715 * x * x * x)));
    return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
}
static double f_celu(double x, const void *a)
{
    double al = ((const act_params *)a)->alpha;
    return fmax(0.0, x) + fmin(0.0, al * (exp(x / al) - 1.0));
}
static double f_mish(double x, const void *a) { return x * tanh(f_softplus(x, a)); }

static bool quantized(const lower_ctx *c, const ir_node *n)
{
    return lower_is_quantized(lower_out_ir(c, n, 0)) || lower_is_quantized(lower_in_ir(c, n, 0));
}

static tosac_code check_io(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *x = lower_in_ir(c, n, 0), *y = lower_out_ir(c, n, 0);
    if (!x || !y)
        return lx_unsupported(c, n, "missing input or output");
    if (!quantized(c, n) && (!tosac_dtype_is_float(x->dtype) || x->dtype != y->dtype))
        return lx_unsupported(c, n, "%s input is neither float nor quantized",
                              tosac_dtype_name(x->dtype));
    return TOSAC_OK;
}

/* ---- Relu / Clip ---- */

/* Quantized clip to the real range [lo, hi] (infinite for no bound). */
static tosac_code clip_quantized(lower_ctx *c, const ir_node *n, double lo, double hi)
{
    const ir_tensor *X = lower_in_ir(c, n, 0), *Y = lower_out_ir(c, n, 0);
    tosac_code rc;
    if ((rc = lx_check_quant(c, n, X)) || (rc = lx_check_quant(c, n, Y)))
        return rc;
    double sy = lower_qscale(Y);
    int64_t zy = lower_qzp(Y), tmin, tmax;
    la_qrange(Y->dtype, &tmin, &tmax);
    /* bounds quantized like the values (half to even), then kept in the type */
    double qlo = isinf(lo) && lo < 0 ? (double)tmin : nearbyint(lo / sy) + (double)zy;
    double qhi = isinf(hi) && hi > 0 ? (double)tmax : nearbyint(hi / sy) + (double)zy;
    qlo = fmax(qlo, (double)tmin);
    qhi = fmin(qhi, (double)tmax);
    if (qlo > qhi)
        return lx_unsupported(c, n, "empty range");
    int x = lower_in(c, n, 0);
    bool same = X->dtype == Y->dtype && lower_qscale(X) == sy && lower_qzp(X) == zy;
    if (x >= 0 && !same)
        x = lx_rescale(c, x, lower_qscale(X) / sy, lower_qzp(X), zy, Y->dtype, -1);
    int y = x < 0 ? -1 : lower_out(c, n, 0);
    if (y < 0)
        return lx_code(c);
    if (qlo <= (double)tmin && qhi >= (double)tmax) /* the range covers the type: no-op */
        return la_unary(c, TOSA_OP_IDENTITY, x, y) < 0 ? lx_code(c) : TOSAC_OK;
    return la_clamp(c, x, qlo, qhi, y) < 0 ? lx_code(c) : TOSAC_OK;
}

static tosac_code clip(lower_ctx *c, const ir_node *n, double lo, double hi)
{
    tosac_code rc = check_io(c, n);
    if (rc)
        return rc;
    if (quantized(c, n))
        return clip_quantized(c, n, lo, hi);
    int x = lower_in(c, n, 0);
    int y = x < 0 ? -1 : lower_out(c, n, 0);
    return y < 0 || la_clamp(c, x, lo, hi, y) < 0 ? lx_code(c) : TOSAC_OK;
}

static tosac_code lower_relu(lower_ctx *c, const ir_node *n)
{
    return clip(c, n, 0.0, INFINITY);
}

/* Bounds from attributes (opset < 11) or constant inputs 1 and 2 (omitted: unbounded). */
static tosac_code lower_clip(lower_ctx *c, const ir_node *n)
{
    double lo = -INFINITY, hi = INFINITY;
    if (ir_node_attr(n, "min"))
        lo = ir_node_attr_float(n, "min", 0.0f);
    if (ir_node_attr(n, "max"))
        hi = ir_node_attr_float(n, "max", 0.0f);
    for (int slot = 1; slot <= 2; slot++) {
        if (slot >= n->n_inputs || n->inputs[slot] < 0)
            continue;
        const ir_tensor *b = lower_in_ir(c, n, slot);
        double v;
        if (!la_const_scalar(c, n, slot, &v))
            return lx_unsupported(c, n, "bound '%s' is not a constant scalar",
                                  b ? b->name : "?");
        if (lower_is_quantized(b)) /* a folded DequantizeLinear of the bound */
            v = (v - (double)lower_qzp(b)) * lower_qscale(b);
        *(slot == 1 ? &lo : &hi) = v;
    }
    return clip(c, n, lo, hi);
}

/* ---- table-or-float rules ---- */

typedef int (*float_fn)(lower_ctx *c, int x, const act_params *p, int out);

static tosac_code act(lower_ctx *c, const ir_node *n, lower_table_fn f, float_fn ff,
                      const act_params *p)
{
    tosac_code rc = check_io(c, n);
    if (rc)
        return rc;
    if (quantized(c, n))
        return lower_table_unary(c, n, f, p);
    int x = lower_in(c, n, 0);
    int y = x < 0 ? -1 : lower_out(c, n, 0);
    return y < 0 || ff(c, x, p, y) < 0 ? lx_code(c) : TOSAC_OK;
}

static int ff_sigmoid(lower_ctx *c, int x, const act_params *p, int out)
{
    (void)p;
    return la_unary(c, TOSA_OP_SIGMOID, x, out);
}

static int ff_tanh(lower_ctx *c, int x, const act_params *p, int out)
{
    (void)p;
    return la_unary(c, TOSA_OP_TANH, x, out);
}

/* x >= 0 ? x : neg */
static int select_nonneg(lower_ctx *c, int x, int neg, int out)
{
    int ge = la_compare(c, TOSA_OP_GREATER_EQUAL, x, la_like(c, x, 0.0));
    return lx_select(c, ge, x, neg, out);
}

static int ff_leaky(lower_ctx *c, int x, const act_params *p, int out)
{
    int ax = la_binary(c, TOSA_OP_MUL, x, la_like(c, x, p->alpha), -1);
    if (p->alpha >= 0.0 && p->alpha <= 1.0) /* then max(x, alpha x) is the same function */
        return la_binary(c, TOSA_OP_MAXIMUM, x, ax, out);
    return select_nonneg(c, x, ax, out);
}

static int ff_hardsigmoid(lower_ctx *c, int x, const act_params *p, int out)
{
    int t = la_binary(c, TOSA_OP_MUL, x, la_like(c, x, p->alpha), -1);
    t = la_binary(c, TOSA_OP_ADD, t, la_like(c, x, p->beta), -1);
    return la_clamp(c, t, 0.0, 1.0, out);
}

static int ff_hardswish(lower_ctx *c, int x, const act_params *p, int out)
{
    act_params hs = *p;
    hs.alpha = 1.0 / 6.0;
    hs.beta = 0.5;
    return la_binary(c, TOSA_OP_MUL, x, ff_hardsigmoid(c, x, &hs, -1), out);
}

/* alpha (exp(x) - 1) for x <= 0, x above; times gamma (Selu) unless gamma is 1 (Elu) */
static int ff_elu(lower_ctx *c, int x, const act_params *p, int out)
{
    int e = la_binary(c, TOSA_OP_SUB, la_unary(c, TOSA_OP_EXP, x, -1), la_like(c, x, 1.0), -1);
    e = la_binary(c, TOSA_OP_MUL, e, la_like(c, x, p->alpha), -1);
    int gt = la_compare(c, TOSA_OP_GREATER, x, la_like(c, x, 0.0));
    if (p->gamma == 1.0)
        return lx_select(c, gt, x, e, out);
    int r = lx_select(c, gt, x, e, -1);
    return la_binary(c, TOSA_OP_MUL, r, la_like(c, x, p->gamma), out);
}

/* max(x, 0) + log(1 + exp(-|x|)): no overflow for large x */
static int ff_softplus(lower_ctx *c, int x, const act_params *p, int out)
{
    (void)p;
    int m = la_binary(c, TOSA_OP_MUL, la_unary(c, TOSA_OP_ABS, x, -1), la_like(c, x, -1.0), -1);
    int l = la_binary(c, TOSA_OP_ADD, la_unary(c, TOSA_OP_EXP, m, -1), la_like(c, x, 1.0), -1);
    l = la_unary(c, TOSA_OP_LOG, l, -1);
    return la_binary(c, TOSA_OP_ADD, la_binary(c, TOSA_OP_MAXIMUM, x, la_like(c, x, 0.0), -1),
                     l, out);
}

/* max(0, x) + min(0, alpha (exp(x / alpha) - 1)) */
static int ff_celu(lower_ctx *c, int x, const act_params *p, int out)
{
    int xa = la_binary(c, TOSA_OP_MUL, x, la_like(c, x, 1.0 / p->alpha), -1);
    int e = la_unary(c, TOSA_OP_EXP, xa, -1);
    e = la_binary(c, TOSA_OP_SUB, e, la_like(c, x, 1.0), -1);
    e = la_binary(c, TOSA_OP_MUL, e, la_like(c, x, p->alpha), -1);
    int neg = la_binary(c, TOSA_OP_MINIMUM, e, la_like(c, x, 0.0), -1);
    return la_binary(c, TOSA_OP_ADD, la_binary(c, TOSA_OP_MAXIMUM, x, la_like(c, x, 0.0), -1),
                     neg, out);
}

static int ff_mish(lower_ctx *c, int x, const act_params *p, int out)
{
    int sp = ff_softplus(c, x, p, -1);
    return la_binary(c, TOSA_OP_MUL, x, la_unary(c, TOSA_OP_TANH, sp, -1), out);
}

/* 0.5 x (1 + erf(x / sqrt 2)), or with tanh(sqrt(2/pi) (x + 0.044715 x^3)) */
static int ff_gelu(lower_ctx *c, int x, const act_params *p, int out)
{
    int inner;
    if (p->tanh_form) {
        int x3 = la_binary(c, TOSA_OP_MUL, la_binary(c, TOSA_OP_MUL, x, x, -1), x, -1);
        int t = la_binary(c, TOSA_OP_MUL, x3, la_like(c, x, 0.044715), -1);
        t = la_binary(c, TOSA_OP_ADD, x, t, -1);
        t = la_binary(c, TOSA_OP_MUL, t, la_like(c, x, sqrt(2.0 / LA_PI)), -1);
        inner = la_unary(c, TOSA_OP_TANH, t, -1);
    } else {
        int t = la_binary(c, TOSA_OP_MUL, x, la_like(c, x, 1.0 / sqrt(2.0)), -1);
        inner = la_unary(c, TOSA_OP_ERF, t, -1);
    }
    int one_plus = la_binary(c, TOSA_OP_ADD, inner, la_like(c, x, 1.0), -1);
    int h = la_binary(c, TOSA_OP_MUL, x, la_like(c, x, 0.5), -1);
    return la_binary(c, TOSA_OP_MUL, h, one_plus, out);
}

static tosac_code lower_sigmoid(lower_ctx *c, const ir_node *n)
{
    act_params p = {0};
    return act(c, n, f_sigmoid, ff_sigmoid, &p);
}

static tosac_code lower_tanh(lower_ctx *c, const ir_node *n)
{
    act_params p = {0};
    return act(c, n, f_tanh, ff_tanh, &p);
}

static tosac_code lower_leaky(lower_ctx *c, const ir_node *n)
{
    act_params p = {ir_node_attr_float(n, "alpha", 0.01f), 0, 0, false};
    return act(c, n, f_leaky, ff_leaky, &p);
}

static tosac_code lower_hardsigmoid(lower_ctx *c, const ir_node *n)
{
    act_params p = {ir_node_attr_float(n, "alpha", 0.2f), ir_node_attr_float(n, "beta", 0.5f),
                    0, false};
    return act(c, n, f_hardsigmoid, ff_hardsigmoid, &p);
}

static tosac_code lower_hardswish(lower_ctx *c, const ir_node *n)
{
    act_params p = {0};
    return act(c, n, f_hardswish, ff_hardswish, &p);
}

static tosac_code lower_elu(lower_ctx *c, const ir_node *n)
{
    act_params p = {ir_node_attr_float(n, "alpha", 1.0f), 0, 1.0, false};
    return act(c, n, f_elu, ff_elu, &p);
}

static tosac_code lower_selu(lower_ctx *c, const ir_node *n)
{
    act_params p = {ir_node_attr_float(n, "alpha", 1.67326319217681884765625f), 0,
                    ir_node_attr_float(n, "gamma", 1.05070102214813232421875f), false};
    return act(c, n, f_elu, ff_elu, &p);
}

static tosac_code lower_softplus(lower_ctx *c, const ir_node *n)
{
    act_params p = {0};
    return act(c, n, f_softplus, ff_softplus, &p);
}

static tosac_code lower_mish(lower_ctx *c, const ir_node *n)
{
    act_params p = {0};
    return act(c, n, f_mish, ff_mish, &p);
}

static tosac_code lower_celu(lower_ctx *c, const ir_node *n)
{
    act_params p = {ir_node_attr_float(n, "alpha", 1.0f), 0, 0, false};
    if (!(p.alpha != 0.0) || !isfinite(p.alpha))
        return lx_unsupported(c, n, "alpha %g (ONNX divides by it)", p.alpha);
    return act(c, n, f_celu, ff_celu, &p);
}

static tosac_code lower_gelu(lower_ctx *c, const ir_node *n)
{
    const char *ap = ir_node_attr_string(n, "approximate", "none");
    if (strcmp(ap, "none") != 0 && strcmp(ap, "tanh") != 0)
        return lx_unsupported(c, n, "approximate=\"%s\"", ap);
    act_params p = {0, 0, 0, strcmp(ap, "tanh") == 0};
    return act(c, n, f_gelu, ff_gelu, &p);
}

/* ---- PRelu ---- */

/* The slope when it is one constant value (dequantized when quantized). */
static bool uniform_slope(const lower_ctx *c, const ir_node *n, double *alpha)
{
    tosac_tensor t;
    const ir_tensor *s = lower_in_ir(c, n, 1);
    if (!s || !lower_in_const(c, n, 1, &t) || tosac_tensor_numel(&t) < 1)
        return false;
    double first = 0;
    for (int64_t i = 0; i < tosac_tensor_numel(&t); i++) {
        double v;
        switch (t.dtype) {
        case TOSAC_DT_F32: v = ((const float *)t.data)[i]; break;
        case TOSAC_DT_I8: v = ((const int8_t *)t.data)[i]; break;
        case TOSAC_DT_I16: v = ((const int16_t *)t.data)[i]; break;
        default: return false;
        }
        if (lower_is_quantized(s))
            v = (v - (double)lower_qzp(s)) * lower_qscale(s);
        if (i == 0)
            first = v;
        else if (v != first)
            return false;
    }
    *alpha = first;
    return true;
}

static tosac_code lower_prelu(lower_ctx *c, const ir_node *n)
{
    tosac_code rc = check_io(c, n);
    if (rc)
        return rc;
    act_params p = {0};
    if (quantized(c, n)) {
        if (!uniform_slope(c, n, &p.alpha))
            return lx_unsupported(c, n, "quantized with a slope that is not one constant");
        return lower_table_unary(c, n, f_leaky, &p);
    }
    const ir_tensor *Y = lower_out_ir(c, n, 0);
    int x = lower_in(c, n, 0);
    int s = lower_broadcast_rank(c, lower_in(c, n, 1), Y->rank);
    if (s >= 0 && lower_dtype(c, s) != lower_dtype(c, x))
        return lx_unsupported(c, n, "slope type differs from the input");
    int y = s < 0 ? -1 : lower_out(c, n, 0);
    int neg = y < 0 ? -1 : la_binary(c, TOSA_OP_MUL, x, s, -1);
    return select_nonneg(c, x, neg, y) < 0 ? lx_code(c) : TOSAC_OK;
}

const lower_rule lower_rules_activation[] = {
    {IR_DOMAIN_ONNX, "Relu", lower_relu, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Clip", lower_clip, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "LeakyRelu", lower_leaky, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "PRelu", lower_prelu, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "HardSigmoid", lower_hardsigmoid, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "HardSwish", lower_hardswish, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Elu", lower_elu, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Selu", lower_selu, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Softplus", lower_softplus, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Gelu", lower_gelu, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Sigmoid", lower_sigmoid, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Tanh", lower_tanh, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Mish", lower_mish, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "Celu", lower_celu, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
