/* Reductions over any set of axes (ONNX Reduce*), arg-reductions, TopK and CumSum. */
#ifndef TOSAC_KERNELS_REDUCE_H
#define TOSAC_KERNELS_REDUCE_H

#include "kernels/kern.h"

typedef enum kern_reduce_op {
    KERN_RED_SUM, KERN_RED_MEAN, KERN_RED_MAX, KERN_RED_MIN, KERN_RED_PROD, KERN_RED_L1,
    KERN_RED_L2, KERN_RED_LOGSUM, KERN_RED_LOGSUMEXP, KERN_RED_SUMSQUARE,
} kern_reduce_op;

/* y has x's shape with every axis in mask[] set to 1 (C order over the kept axes). Floats
 * accumulate in double in input order; integers in int64 with wrap-around. An empty
 * reduction gives the operator's identity (0, 1, -inf/+inf or the type's limits).
 * dt: f32, f64, or an integer type. Returns -1 if op is not defined for dt. */
int kern_reduce(kern_reduce_op op, tosac_dtype dt, int rank, const int64_t *shape,
                const uint8_t *mask, const void *x, void *y);

/* ArgMax/ArgMin along axis (x viewed as [outer, n, inner]); first index of the extreme, or
 * the last with select_last. NaN counts as the extreme as in numpy. */
void kern_argextreme(tosac_dtype dt, int is_max, int select_last, int64_t outer, int64_t n,
                     int64_t inner, const void *x, int64_t *y);

/* TopK along axis: k values and their indices for each (outer, inner) line, largest or
 * smallest first; equal values keep the lower index first. scratch holds n int64. */
void kern_topk(tosac_dtype dt, int largest, int64_t outer, int64_t n, int64_t inner, int64_t k,
               const void *x, void *values, int64_t *indices, int64_t *scratch);

/* CumSum along axis ([outer, n, inner]); exclusive and reverse as ONNX says. */
void kern_cumsum(tosac_dtype dt, int exclusive, int reverse, int64_t outer, int64_t n,
                 int64_t inner, const void *x, void *y);

#endif
