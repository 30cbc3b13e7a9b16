/* Elementwise unary kernels: math functions and parametrised activations. */
#ifndef TOSAC_KERNELS_UNARY_H
#define TOSAC_KERNELS_UNARY_H

#include "kernels/kern.h"

typedef enum kern_unop {
    /* math */
    KERN_ABS, KERN_NEG, KERN_EXP, KERN_LOG, KERN_SQRT, KERN_RECIPROCAL, KERN_SIN, KERN_COS,
    KERN_TAN, KERN_ASIN, KERN_ACOS, KERN_ATAN, KERN_SINH, KERN_COSH, KERN_ASINH, KERN_ACOSH,
    KERN_ATANH, KERN_FLOOR, KERN_CEIL, KERN_ROUND /* half to even */, KERN_ERF, KERN_SIGN,
    KERN_NOT /* logical, bool */, KERN_BITNOT, KERN_IDENTITY,
    /* activations; parameters in kern_unary_params */
    KERN_RELU, KERN_LEAKY_RELU /* alpha */, KERN_ELU /* alpha */, KERN_SELU /* alpha, gamma */,
    KERN_CELU /* alpha */, KERN_SIGMOID, KERN_HARD_SIGMOID /* alpha, beta */, KERN_HARD_SWISH,
    KERN_TANH, KERN_SOFTPLUS, KERN_SOFTSIGN, KERN_CLIP /* lo, hi */,
    KERN_THRESHOLDED_RELU /* alpha */, KERN_SHRINK /* lambd, bias */, KERN_GELU,
    KERN_GELU_TANH, KERN_MISH,
} kern_unop;

typedef struct kern_unary_params {
    double alpha, beta, gamma;
    double lo, hi;        /* KERN_CLIP bounds for floats */
    int64_t ilo, ihi;     /* KERN_CLIP bounds for integers (u64: the bits) */
} kern_unary_params;

/* y[i] = op(x[i]) for n elements of dt (f32, f64, or an integer type for ABS, NEG, SIGN,
 * RELU, CLIP, NOT, BITNOT, IDENTITY). Returns -1 if op is not defined for dt. */
int kern_unary(kern_unop op, tosac_dtype dt, const kern_unary_params *p, int64_t n, const void *x,
               void *y);

/* IsNaN / IsInf (detect_negative, detect_positive) into bool. */
void kern_isnan(tosac_dtype dt, int64_t n, const void *x, uint8_t *y);
void kern_isinf(tosac_dtype dt, int64_t n, const void *x, int neg, int pos, uint8_t *y);

#endif
