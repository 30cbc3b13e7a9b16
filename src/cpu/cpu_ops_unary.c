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

/* The attributes of the unary operators that have any, read once (prepare step); defaults
 * are the ONNX ones. The math operators without attributes have no prepare step. */
typedef struct unary_prep {
    kern_unary_params p;
    kern_unop op;
    int has_bounds;             /* Clip before opset 11: min/max attributes */
    int det_neg, det_pos;       /* IsInf */
    float ratio;                /* Dropout before opset 12 */
    tosac_dtype to;             /* Cast */
} unary_prep;

#define ACT_PREP(NAME, OP, BODY)                                                               \
    static tosac_code NAME(cpu_ctx *c, void *st)                                               \
    {                                                                                          \
        unary_prep *u = st;                                                                    \
        u->op = OP;                                                                            \
        BODY;                                                                                  \
        return TOSAC_OK;                                                                       \
    }
ACT_PREP(leaky_prepare, KERN_LEAKY_RELU, u->p.alpha = cpu_attr_f(c, "alpha", 0.01f))
ACT_PREP(elu_prepare, KERN_ELU, u->p.alpha = cpu_attr_f(c, "alpha", 1.0f))
ACT_PREP(celu_prepare, KERN_CELU, u->p.alpha = cpu_attr_f(c, "alpha", 1.0f))
ACT_PREP(thresholded_prepare, KERN_THRESHOLDED_RELU, u->p.alpha = cpu_attr_f(c, "alpha", 1.0f))
ACT_PREP(selu_prepare, KERN_SELU,
         u->p.alpha = cpu_attr_f(c, "alpha", 1.67326319217681884765625f);
         u->p.gamma = cpu_attr_f(c, "gamma", 1.05070102214813232421875f))
ACT_PREP(hardsigmoid_prepare, KERN_HARD_SIGMOID,
         u->p.alpha = cpu_attr_f(c, "alpha", 0.2f);
         u->p.beta = cpu_attr_f(c, "beta", 0.5f))
ACT_PREP(shrink_prepare, KERN_SHRINK,
         u->p.alpha = cpu_attr_f(c, "lambd", 0.5f);
         u->p.beta = cpu_attr_f(c, "bias", 0.0f))

static tosac_code gelu_prepare(cpu_ctx *c, void *st)
{
    unary_prep *u = st;
    const char *ap = cpu_attr_s(c, "approximate", "none");
    if (strcmp(ap, "none") != 0 && strcmp(ap, "tanh") != 0)
        return cpu_fail(c, TOSAC_ERR_INPUT, "approximate must be 'none' or 'tanh', got '%s'", ap);
    u->op = ap[0] == 't' ? KERN_GELU_TANH : KERN_GELU;
    return TOSAC_OK;
}

/* An activation with its prepared kind and parameters. */
static tosac_code op_act(cpu_ctx *c)
{
    const unary_prep *u = c->prep;
    return unary(c, u->op, &u->p);
}

static tosac_code op_gelu(cpu_ctx *c) { return unary(c, ((const unary_prep *)c->prep)->op, NULL); }

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
    double r = ((const unary_prep *)c->prep)->ratio;
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

static tosac_code dropout_prepare(cpu_ctx *c, void *st)
{
    ((unary_prep *)st)->ratio = cpu_attr_f(c, "ratio", 0.5f);
    return TOSAC_OK;
}

/* Clip: bounds from attributes before opset 11, from optional inputs after. */
static tosac_code clip_prepare(cpu_ctx *c, void *st)
{
    unary_prep *u = st;
    if (cpu_has_attr(c, "min") || cpu_has_attr(c, "max")) {
        u->has_bounds = 1;
        u->p.lo = cpu_attr_f(c, "min", -FLT_MAX);
        u->p.hi = cpu_attr_f(c, "max", FLT_MAX);
    }
    return TOSAC_OK;
}

static tosac_code op_clip(cpu_ctx *c)
{
    const unary_prep *u = c->prep;
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
    if (u->has_bounds) {
        p.lo = u->p.lo;
        p.hi = u->p.hi;
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

static int cast_target_ok(tosac_dtype to)
{
    return to != TOSAC_DT_UNKNOWN && tosac_dtype_size(to) != 0 && to != TOSAC_DT_I4;
}

static tosac_code cast_to(cpu_ctx *c, tosac_dtype to)
{
    const tosac_tensor *x;
    tosac_tensor *y;
    tosac_code rc = cpu_req(c, 0, &x);
    if (rc)
        return rc;
    if (!cast_target_ok(to))
        return cpu_fail(c, TOSAC_ERR_UNSUPPORTED, "cast to this type is not supported");
    if ((rc = cpu_out(c, 0, to, x->rank, x->shape, &y)))
        return rc;
    kern_cast(x->dtype, to, tosac_tensor_numel(x), x->data, y->data);
    return TOSAC_OK;
}

/* Cast's target type, resolved and checked once (prepare step). */
static tosac_code cast_prepare(cpu_ctx *c, void *st)
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
    if (!cast_target_ok(dt))
        return cpu_fail(c, TOSAC_ERR_UNSUPPORTED, "cast to this type is not supported");
    ((unary_prep *)st)->to = dt;
    return TOSAC_OK;
}

static tosac_code op_cast(cpu_ctx *c) { return cast_to(c, ((const unary_prep *)c->prep)->to); }

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

static tosac_code isinf_prepare(cpu_ctx *c, void *st)
{
    unary_prep *u = st;
    u->det_neg = (int)cpu_attr_i(c, "detect_negative", 1);
    u->det_pos = (int)cpu_attr_i(c, "detect_positive", 1);
    return TOSAC_OK;
}

static tosac_code op_isinf(cpu_ctx *c)
{
    const unary_prep *u = c->prep;
    const tosac_tensor *x;
    tosac_tensor *y;
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc)
        rc = cpu_out(c, 0, TOSAC_DT_BOOL, x->rank, x->shape, &y);
    if (!rc)
        kern_isinf(x->dtype, tosac_tensor_numel(x), x->data,
u->det_neg, u->det_pos, y->data);
    return rc;
}

#define PREP(NAME, FN) static const cpu_op_prep NAME = {FN, sizeof(unary_prep), NULL};
PREP(leaky_prep, leaky_prepare)
PREP(elu_prep, elu_prepare)
PREP(celu_prep, celu_prepare)
PREP(thresholded_prep, thresholded_prepare)
PREP(selu_prep, selu_prepare)
PREP(hardsigmoid_prep, hardsigmoid_prepare)
PREP(shrink_prep, shrink_prepare)
PREP(gelu_prep, gelu_prepare)
PREP(dropout_prep, dropout_prepare)
PREP(clip_prep, clip_prepare)
PREP(cast_prep, cast_prepare)
PREP(isinf_prep, isinf_prepare)

/* No prepare step (no attribute, nothing of the program to check): the math operators,
 * Identity, CastLike (its type is the data's) and IsNaN. */
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
    {"LeakyRelu", op_act, F, &leaky_prep}, {"Elu", op_act, F, &elu_prep}, {"Celu", op_act, F, &celu_prep},
    {"ThresholdedRelu", op_act, F, &thresholded_prep}, {"Selu", op_act, F, &selu_prep},
    {"HardSigmoid", op_act, F, &hardsigmoid_prep}, {"Shrink", op_act, F, &shrink_prep},
    {"Gelu", op_gelu, F, &gelu_prep}, {"Identity", op_identity, 0, NULL},
    {"Dropout", op_dropout, 0, &dropout_prep}, {"Clip", op_clip, F, &clip_prep},
    {"Cast", op_cast, 0, &cast_prep}, {"CastLike", op_castlike, 0, NULL}, {"IsNaN", op_isnan, 0, NULL},
    {"IsInf", op_isinf, 0, &isinf_prep},
    {NULL, NULL, 0, NULL},
};
