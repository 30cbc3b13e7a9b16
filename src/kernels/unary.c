/* Unary kernels. The float loop is written once as a macro over the element type; <tgmath.h>
 * picks expf/tanhf/... for float and exp/tanh/... for double, so f32 is computed in f32 as
 * onnxruntime does. */
#include "kernels/unary.h"

#include <tgmath.h>

#define FLOAT_LOOP(T)                                                                          \
    {                                                                                          \
        const T *X = x;                                                                        \
        T *Y = y;                                                                              \
        const T alpha = (T)p->alpha, beta = (T)p->beta, gamma = (T)p->gamma;                   \
        const T lo = (T)p->lo, hi = (T)p->hi;                                                  \
        for (int64_t i = 0; i < n; i++) {                                                      \
            T v = X[i], r;                                                                     \
            switch (op) {                                                                      \
            case KERN_ABS: r = fabs(v); break;                                                 \
            case KERN_NEG: r = -v; break;                                                      \
            case KERN_EXP: r = exp(v); break;                                                  \
            case KERN_LOG: r = log(v); break;                                                  \
            case KERN_SQRT: r = sqrt(v); break;                                                \
            case KERN_RECIPROCAL: r = (T)1 / v; break;                                         \
            case KERN_SIN: r = sin(v); break;                                                  \
            case KERN_COS: r = cos(v); break;                                                  \
            case KERN_TAN: r = tan(v); break;                                                  \
            case KERN_ASIN: r = asin(v); break;                                                \
            case KERN_ACOS: r = acos(v); break;                                                \
            case KERN_ATAN: r = atan(v); break;                                                \
            case KERN_SINH: r = sinh(v); break;                                                \
            case KERN_COSH: r = cosh(v); break;                                                \
            case KERN_ASINH: r = asinh(v); break;                                              \
            case KERN_ACOSH: r = acosh(v); break;                                              \
            case KERN_ATANH: r = atanh(v); break;                                              \
            case KERN_FLOOR: r = floor(v); break;                                              \
            case KERN_CEIL: r = ceil(v); break;                                                \
            case KERN_ROUND: r = nearbyint(v); break; /* default mode: half to even */         \
            case KERN_ERF: r = erf(v); break;                                                  \
            case KERN_SIGN: r = v > 0 ? (T)1 : v < 0 ? (T)-1 : v; break;                       \
            case KERN_IDENTITY: r = v; break;                                                  \
            case KERN_RELU: r = v > 0 ? v : (T)0; break;                                       \
            case KERN_LEAKY_RELU: r = v >= 0 ? v : alpha * v; break;                           \
            case KERN_ELU: r = v >= 0 ? v : alpha * (exp(v) - (T)1); break;                    \
            case KERN_SELU: r = v > 0 ? gamma * v : gamma * (alpha * exp(v) - alpha); break;   \
            case KERN_CELU: r = fmax((T)0, v) + fmin((T)0, alpha * (exp(v / alpha) - (T)1));   \
                break;                                                                         \
            case KERN_SIGMOID:                                                                 \
                r = v >= 0 ? (T)1 / ((T)1 + exp(-v)) : exp(v) / ((T)1 + exp(v));              \
                break;                                                                         \
            case KERN_HARD_SIGMOID: r = fmax((T)0, fmin((T)1, alpha * v + beta)); break;       \
            case KERN_HARD_SWISH:                                                              \
                r = v * fmax((T)0, fmin((T)1, v / (T)6 + (T)0.5));                             \
                break;                                                                         \
            case KERN_TANH: r = tanh(v); break;                                                \
            case KERN_SOFTPLUS: r = v > 0 ? v + log1p(exp(-v)) : log1p(exp(v)); break;         \
            case KERN_SOFTSIGN: r = v / ((T)1 + fabs(v)); break;                               \
            case KERN_CLIP: r = v < lo ? lo : v > hi ? hi : v; break;                          \
            case KERN_THRESHOLDED_RELU: r = v > alpha ? v : (T)0; break;                       \
            case KERN_SHRINK:                                                                  \
                r = v < -alpha ? v + beta : v > alpha ? v - beta : (T)0;                       \
                break;                                                                         \
            case KERN_GELU: r = (T)0.5 * v * ((T)1 + erf(v * (T)0.70710678118654752440)); break;\
            case KERN_GELU_TANH:                                                               \
                r = (T)0.5 * v *                                                               \
                    ((T)1 + tanh((T)0.79788456080286535588 * (v + (T)0.044715 * v * v * v)));  \
                break;                                                                         \
            case KERN_MISH: r = v * tanh(v > 0 ? v + log1p(exp(-v)) : log1p(exp(v))); break;   \
            default: return -1;                                                                \
            }                                                                                  \
            Y[i] = r;                                                                          \
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
