/* Unary kernels. The float loop is written once as a macro over the element type; <tgmath.h>
 * picks expf/tanhf/... for float and exp/tanh/... for double, so f32 is computed in f32 as
 * onnxruntime does. */
#include "kernels/unary.h"

#include "kernels/kern_tgmath.h"

/* The switch picks a loop once per call; each case is a plain loop over the elements
 * (MAP), so the simple activations (Relu, Clip, ...) vectorise. Round is nearbyint in the
 * default rounding mode: half to even. */
#define MAP(EXPR)                                                                              \
    for (int64_t i = 0; i < n; i++) {                                                          \
        const elem_t v = X[i];                                                                 \
        Y[i] = (EXPR);                                                                         \
    }                                                                                          \
    break;

#define FLOAT_LOOP(T)                                                                          \
    {                                                                                          \
        typedef T elem_t;                                                                      \
        const T *X = x;                                                                        \
        T *Y = y;                                                                              \
        const T alpha = (T)p->alpha, beta = (T)p->beta, gamma = (T)p->gamma;                   \
        const T lo = (T)p->lo, hi = (T)p->hi;                                                  \
        switch (op) {                                                                          \
        case KERN_ABS: MAP(fabs(v))                                                            \
        case KERN_NEG: MAP(-v)                                                                 \
        case KERN_EXP: MAP(exp(v))                                                             \
        case KERN_LOG: MAP(log(v))                                                             \
        case KERN_SQRT: MAP(sqrt(v))                                                           \
        case KERN_RECIPROCAL: MAP((T)1 / v)                                                    \
        case KERN_SIN: MAP(sin(v))                                                             \
        case KERN_COS: MAP(cos(v))                                                             \
        case KERN_TAN: MAP(tan(v))                                                             \
        case KERN_ASIN: MAP(asin(v))                                                           \
        case KERN_ACOS: MAP(acos(v))                                                           \
        case KERN_ATAN: MAP(atan(v))                                                           \
        case KERN_SINH: MAP(sinh(v))                                                           \
        case KERN_COSH: MAP(cosh(v))                                                           \
        case KERN_ASINH: MAP(asinh(v))                                                         \
        case KERN_ACOSH: MAP(acosh(v))                                                         \
        case KERN_ATANH: MAP(atanh(v))                                                         \
        case KERN_FLOOR: MAP(floor(v))                                                         \
        case KERN_CEIL: MAP(ceil(v))                                                           \
        case KERN_ROUND: MAP(nearbyint(v))                                                     \
        case KERN_ERF: MAP(erf(v))                                                             \
        case KERN_SIGN: MAP(v > 0 ? (T)1 : v < 0 ? (T)-1 : v)                                  \
        case KERN_IDENTITY: MAP(v)                                                             \
        case KERN_RELU: MAP(v > 0 ? v : (T)0)                                                  \
        case KERN_LEAKY_RELU: MAP(v >= 0 ? v : alpha * v)                                      \
        case KERN_ELU: MAP(v >= 0 ? v : alpha * (exp(v) - (T)1))                               \
        case KERN_SELU: MAP(v > 0 ? gamma * v : gamma * (alpha * exp(v) - alpha))              \
        case KERN_CELU: MAP(fmax((T)0, v) + fmin((T)0, alpha * (exp(v / alpha) - (T)1)))       \
        case KERN_SIGMOID: MAP(v >= 0 ? (T)1 / ((T)1 + exp(-v)) : exp(v) / ((T)1 + exp(v)))    \
        case KERN_HARD_SIGMOID: MAP(fmax((T)0, fmin((T)1, alpha * v + beta)))                  \
        case KERN_HARD_SWISH: MAP(v * fmax((T)0, fmin((T)1, v / (T)6 + (T)0.5)))               \
        case KERN_TANH: MAP(tanh(v))                                                           \
        case KERN_SOFTPLUS: MAP(v > 0 ? v + log1p(exp(-v)) : log1p(exp(v)))                    \
        case KERN_SOFTSIGN: MAP(v / ((T)1 + fabs(v)))                                          \
        case KERN_CLIP: MAP(v < lo ? lo : v > hi ? hi : v)                                     \
        case KERN_THRESHOLDED_RELU: MAP(v > alpha ? v : (T)0)                                  \
        case KERN_SHRINK: MAP(v < -alpha ? v + beta : v > alpha ? v - beta : (T)0)             \
        case KERN_GELU: MAP((T)0.5 * v * ((T)1 + erf(v * (T)0.70710678118654752440)))          \
        case KERN_GELU_TANH:                                                                   \
            MAP((T)0.5 * v                                                                     \
                * ((T)1 + tanh((T)0.79788456080286535588 * (v + (T)0.044715 * v * v * v))))    \
        case KERN_MISH: MAP(v * tanh(v > 0 ? v + log1p(exp(-v)) : log1p(exp(v))))              \
        default: return -1;                                                                    \
        }                                                                                      \
        return 0;                                                                              \
    }

static int unary_int(kern_unop op, tosac_dtype dt, const kern_unary_params *p, int64_t n,
                     const void *x, void *y)
{
    for (int64_t i = 0; i < n; i++) {
        int64_t v = kern_get_i64(dt, x, i), r;
        switch (op) {
        case KERN_ABS: r = v < 0 ? (int64_t)(0 - (uint64_t)v) : v; break;
        case KERN_NEG: r = (int64_t)(0 - (uint64_t)v); break;
        case KERN_SIGN: r = v > 0 ? 1 : v < 0 ? -1 : 0; break;
        case KERN_RELU: r = v > 0 ? v : 0; break;
        case KERN_IDENTITY: r = v; break;
        case KERN_NOT: r = !v; break;
        case KERN_BITNOT: r = (int64_t)~(uint64_t)v; break;
        case KERN_CLIP: r = v < p->ilo ? p->ilo : v > p->ihi ? p->ihi : v; break;
        default: return -1;
        }
        kern_set_i64(dt, y, i, r);
    }
    return 0;
}

int kern_unary(kern_unop op, tosac_dtype dt, const kern_unary_params *p, int64_t n, const void *x,
               void *y)
{
    static const kern_unary_params none = {0};
    if (!p)
        p = &none;
    if (dt == TOSAC_DT_F32)
        FLOAT_LOOP(float)
    if (dt == TOSAC_DT_F64)
        FLOAT_LOOP(double)
    if (dt == TOSAC_DT_U64 && op == KERN_CLIP) { /* unsigned order, not int64 order */
        const uint64_t *X = x, lo = (uint64_t)p->ilo, hi = (uint64_t)p->ihi;
        uint64_t *Y = y;
        for (int64_t i = 0; i < n; i++)
            Y[i] = X[i] < lo ? lo : X[i] > hi ? hi : X[i];
        return 0;
    }
    if (tosac_dtype_is_int(dt) || dt == TOSAC_DT_BOOL)
        return unary_int(op, dt, p, n, x, y);
    return -1;
}

void kern_isnan(tosac_dtype dt, int64_t n, const void *x, uint8_t *y)
{
    for (int64_t i = 0; i < n; i++)
        y[i] = isnan(kern_get_f64(dt, x, i)) != 0;
}

void kern_isinf(tosac_dtype dt, int64_t n, const void *x, int neg, int pos, uint8_t *y)
{
    for (int64_t i = 0; i < n; i++) {
        double v = kern_get_f64(dt, x, i);
        y[i] = isinf(v) && ((v < 0 && neg) || (v > 0 && pos));
    }
}
