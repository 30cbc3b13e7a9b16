/* Elementwise unary operators: math, activations (with their attributes), Clip, Cast,
 * IsNaN/IsInf, Identity and Dropout (inference: identity). */
#include "cpu/cpu_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "kernels/quant.h"
#include "kernels/unary.h"

static tosac_code unary(cpu_ctx *c, kern_unop op, const kern_unary_params *p)
{
    const tosac_tensor *x;
    tosac_tensor *y;
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc)
        rc = cpu_out_uninit(c, 0, x->dtype, x->rank, x->shape, &y);
    if (rc)
        return rc;
    if (kern_unary(op, x->dtype, p, tosac_tensor_numel(x), x->data, y->data))
        return cpu_fail(c, TOSAC_ERR_UNSUPPORTED, "input of type %s is not supported",
                        tosac_dtype_name(x->dtype));
    return TOSAC_OK;
}

#define UN(NAME, OP)                                                                           \
    static tosac_code NAME(cpu_ctx *c) { return unary(c, OP, NULL); }

UN(op_abs, KERN_ABS)
UN(op_neg, KERN_NEG)
UN(op_exp, KERN_EXP)
UN(op_log, KERN_LOG)
UN(op_sqrt, KERN_SQRT)
UN(op_reciprocal, KERN_RECIPROCAL)
UN(op_sin, KERN_SIN)
UN(op_cos, KERN_COS)
UN(op_tan, KERN_TAN)
UN(op_asin, KERN_ASIN)
UN(op_acos, KERN_ACOS)
UN(op_atan, KERN_ATAN)
UN(op_sinh, KERN_SINH)
UN(op_cosh, KERN_COSH)
UN(op_asinh, KERN_ASINH)
UN(op_acosh, KERN_ACOSH)
UN(op_atanh, KERN_ATANH)
UN(op_floor, KERN_FLOOR)
UN(op_ceil, KERN_CEIL)
UN(op_round, KERN_ROUND)
UN(op_erf, KERN_ERF)
UN(op_sign, KERN_SIGN)
UN(op_not, KERN_NOT)
UN(op_bitnot, KERN_BITNOT)
UN(op_relu, KERN_RELU)
UN(op_sigmoid, KERN_SIGMOID)
UN(op_hardswish, KERN_HARD_SWISH)
UN(op_tanh, KERN_TANH)
UN(op_softplus, KERN_SOFTPLUS)
UN(op_softsign, KERN_SOFTSIGN)
UN(op_mish, KERN_MISH)

/* Activations with attributes; defaults are the ONNX ones. */
static tosac_code with_alpha(cpu_ctx *c, kern_unop op, float alpha)
{
    kern_unary_params p = {.alpha = cpu_attr_f(c, "alpha", alpha)};
    return unary(c, op, &p);
}

static tosac_code op_leaky(cpu_ctx *c) { return with_alpha(c, KERN_LEAKY_RELU, 0.01f); }
static tosac_code op_elu(cpu_ctx *c) { return with_alpha(c, KERN_ELU, 1.0f); }
static tosac_code op_celu(cpu_ctx *c) { return with_alpha(c, KERN_CELU, 1.0f); }
static tosac_code op_thresholded(cpu_ctx *c) { return with_alpha(c, KERN_THRESHOLDED_RELU, 1.0f); }

static tosac_code op_selu(cpu_ctx *c)
{
    kern_unary_params p = {.alpha = cpu_attr_f(c, "alpha", 1.67326319217681884765625f),
                           .gamma = cpu_attr_f(c, "gamma", 1.05070102214813232421875f)};
    return unary(c, KERN_SELU, &p);
}

static tosac_code op_hardsigmoid(cpu_ctx *c)
{
    kern_unary_params p = {.alpha = cpu_attr_f(c, "alpha", 0.2f), .beta = cpu_attr_f(c, "beta", 0.5f)};
    return unary(c, KERN_HARD_SIGMOID, &p);
}

static tosac_code op_shrink(cpu_ctx *c)
{
    kern_unary_params p = {.alpha = cpu_attr_f(c, "lambd", 0.5f), .beta = cpu_attr_f(c, "bias", 0.0f)};
    return unary(c, KERN_SHRINK, &p);
}

static tosac_code op_gelu(cpu_ctx *c)
{
    const char *ap = cpu_attr_s(c, "approximate", "none");
    if (strcmp(ap, "none") != 0 && strcmp(ap, "tanh") != 0)
        return cpu_fail(c, TOSAC_ERR_INPUT, "approximate must be 'none' or 'tanh', got '%s'", ap);
    return unary(c, ap[0] == 't' ? KERN_GELU_TANH : KERN_GELU, NULL);
}

static tosac_code op_identity(cpu_ctx *c)
{
    const tosac_tensor *x;
    tosac_code rc = cpu_req(c, 0, &x);
    return rc ? rc : cpu_out_copy(c, 0, x, x->rank, x->shape);
}

/* Inference Dropout passes x through; the optional mask is all true. Training-mode dropout
 * with a non-zero ratio draws random numbers, which no reference could reproduce. */
static tosac_code op_dropout(cpu_ctx *c)
{
    const tosac_tensor *ratio = cpu_opt(c, 1), *training = cpu_opt(c, 2);
    int64_t on = 0;
    double r = cpu_attr_f(c, "ratio", 0.5f);
    tosac_code rc;
    if (training && (rc = cpu_scalar_i64(c, training, &on)))
        return rc;
    if (ratio && (rc = cpu_scalar_f64(c, ratio, &r)))
        return rc;
    if (on && r != 0)
        return cpu_fail(c, TOSAC_ERR_UNSUPPORTED, "training-mode dropout (random) is not supported");
    rc = op_identity(c);
    if (!rc && c->n_out > 1 && c->node->outputs[1] >= 0) {
        tosac_tensor *m;
        rc = cpu_out(c, 1, TOSAC_DT_BOOL, c->in[0]->rank, c->in[0]->shape, &m);
        if (!rc)
            memset(m->data, 1, m->nbytes);
    }
    return rc;
}

/* Clip: bounds from attributes before opset 11, from optional inputs after. */
static tosac_code op_clip(cpu_ctx *c)
{
    const tosac_tensor *x;
    tosac_code rc = cpu_req(c, 0, &x);
    if (rc)
        return rc;
    kern_unary_params p = {0};
    p.lo = -INFINITY;
    p.hi = INFINITY;
    p.ilo = INT64_MIN;
    p.ihi = INT64_MAX;
    if (x->dtype == TOSAC_DT_U64)
        p.ilo = 0, p.ihi = -1; /* unsigned bits: 0 .. UINT64_MAX */
    if (cpu_has_attr(c, "min") || cpu_has_attr(c, "max")) {
        p.lo = cpu_attr_f(c, "min", -FLT_MAX);
        p.hi = cpu_attr_f(c, "max", FLT_MAX);
    }
    for (int k = 1; k <= 2; k++) {
        const tosac_tensor *b = cpu_opt(c, k);
        if (!b)
            continue;
        CPU_CHECK(c, b->dtype == x->dtype, "bound type %s differs from input type %s",
                  tosac_dtype_name(b->dtype), tosac_dtype_name(x->dtype));
        double v;
        int64_t iv;
        if ((rc = cpu_scalar_f64(c, b, &v)) || (rc = cpu_scalar_i64(c, b, &iv)))
            return rc;
        if (k == 1) {
            p.lo = v;
            p.ilo = iv;
        } else {
            p.hi = v;
            p.ihi = iv;
        }
    }
    return unary(c, KERN_CLIP, &p);
}

static tosac_code cast_to(cpu_ctx *c, tosac_dtype to)
{
    const tosac_tensor *x;
    tosac_tensor *y;
    tosac_code rc = cpu_req(c, 0, &x);
    if (rc)
        return rc;
    if (to == TOSAC_DT_UNKNOWN || tosac_dtype_size(to) == 0 || to == TOSAC_DT_I4)
        return cpu_fail(c, TOSAC_ERR_UNSUPPORTED, "cast to this type is not supported");
    if ((rc = cpu_out(c, 0, to, x->rank, x->shape, &y)))
        return rc;
    kern_cast(x->dtype, to, tosac_tensor_numel(x), x->data, y->data);
    return TOSAC_OK;
}

static tosac_code op_cast(cpu_ctx *c)
{
    int64_t to = cpu_attr_i(c, "to", 0);
    tosac_dtype dt = onnx_dtype_to_tosac((int)to);
    /* the graph's declared output type wins when the importer knows it */
    if (c->node->n_outputs > 0 && c->node->outputs[0] >= 0) {
        tosac_dtype decl = c->g->tensors[c->node->outputs[0]].dtype;
        if (dt == TOSAC_DT_UNKNOWN && decl != TOSAC_DT_UNKNOWN)
            dt = decl;
    }
    if (dt == TOSAC_DT_UNKNOWN)
        return cpu_fail(c, TOSAC_ERR_UNSUPPORTED, "cast to ONNX type %lld is not supported",
                        (long long)to);
    return cast_to(c, dt);
}

static tosac_code op_castlike(cpu_ctx *c)
{
    const tosac_tensor *like;
    tosac_code rc = cpu_req(c, 1, &like);
    return rc ? rc : cast_to(c, like->dtype);
}

static tosac_code op_isnan(cpu_ctx *c)
{
    const tosac_tensor *x;
    tosac_tensor *y;
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc)
        rc = cpu_out(c, 0, TOSAC_DT_BOOL, x->rank, x->shape, &y);
    if (!rc)
        kern_isnan(x->dtype, tosac_tensor_numel(x), x->data, y->data);
    return rc;
}

static tosac_code op_isinf(cpu_ctx *c)
{
    const tosac_tensor *x;
    tosac_tensor *y;
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc)
        rc = cpu_out(c, 0, TOSAC_DT_BOOL, x->rank, x->shape, &y);
    if (!rc)
        kern_isinf(x->dtype, tosac_tensor_numel(x), x->data,
                   (int)cpu_attr_i(c, "detect_negative", 1), (int)cpu_attr_i(c, "detect_positive", 1),
                   y->data);
    return rc;
}

#define F CPU_F16_VIA_F32
const cpu_op_entry cpu_ops_unary[] = {
    {"Abs", op_abs, F, NULL}, {"Neg", op_neg, F, NULL}, {"Exp", op_exp, F, NULL}, {"Log", op_log, F, NULL},
    {"Sqrt", op_sqrt, F, NULL}, {"Reciprocal", op_reciprocal, F, NULL}, {"Sin", op_sin, F, NULL},
    {"Cos", op_cos, F, NULL}, {"Tan", op_tan, F, NULL}, {"Asin", op_asin, F, NULL}, {"Acos", op_acos, F, NULL},
    {"Atan", op_atan, F, NULL}, {"Sinh", op_sinh, F, NULL}, {"Cosh", op_cosh, F, NULL}, {"Asinh", op_asinh, F, NULL},
    {"Acosh", op_acosh, F, NULL}, {"Atanh", op_atanh, F, NULL}, {"Floor", op_floor, F, NULL},
    {"Ceil", op_ceil, F, NULL}, {"Round", op_round, F, NULL}, {"Erf", op_erf, F, NULL}, {"Sign", op_sign, F, NULL},
    {"Not", op_not, 0, NULL}, {"BitwiseNot", op_bitnot, 0, NULL}, {"Relu", op_relu, F, NULL},
    {"Sigmoid", op_sigmoid, F, NULL}, {"HardSwish", op_hardswish, F, NULL}, {"Tanh", op_tanh, F, NULL},
    {"Softplus", op_softplus, F, NULL}, {"Softsign", op_softsign, F, NULL}, {"Mish", op_mish, F, NULL},
    {"LeakyRelu", op_leaky, F, NULL}, {"Elu", op_elu, F, NULL}, {"Celu", op_celu, F, NULL},
    {"ThresholdedRelu", op_thresholded, F, NULL}, {"Selu", op_selu, F, NULL},
    {"HardSigmoid", op_hardsigmoid, F, NULL}, {"Shrink", op_shrink, F, NULL}, {"Gelu", op_gelu, F, NULL},
    {"Identity", op_identity, 0, NULL}, {"Dropout", op_dropout, 0, NULL}, {"Clip", op_clip, F, NULL},
    {"Cast", op_cast, 0, NULL}, {"CastLike", op_castlike, 0, NULL}, {"IsNaN", op_isnan, 0, NULL},
    {"IsInf", op_isinf, 0, NULL},
    {NULL, NULL, 0, NULL},
};
