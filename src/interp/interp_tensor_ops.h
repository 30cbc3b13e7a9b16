/* The tensor operator group is spread over several files (interp_tensor.c holds the table,
 * ARGMAX and MATMUL; interp_pool.c the pools; interp_fft.c the Fourier transforms). */
#ifndef TOSAC_INTERP_TENSOR_OPS_H
#define TOSAC_INTERP_TENSOR_OPS_H

#include <math.h>
#include <stdbool.h>

#include "interp/interp_internal.h"

tosac_code interp_op_avg_pool2d(interp_ctx *c);
tosac_code interp_op_max_pool2d(interp_ctx *c);
tosac_code interp_op_fft2d(interp_ctx *c);
tosac_code interp_op_rfft2d(interp_ctx *c);

/* The spec's apply_max_s for floating point: with a NaN operand, PROPAGATE gives NaN and
 * IGNORE the other operand; otherwise a if a >= b, else b. */
static inline float interp_fmax_nan(float a, float b, bool ignore)
{
    if (isnan(a) || isnan(b)) {
        if (!ignore)
            return NAN;
        return isnan(a) ? b : a;
    }
    return a >= b ? a : b;
}

#endif
