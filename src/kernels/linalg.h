/* Linear algebra beyond Gemm/MatMul: Det. */
#ifndef TOSAC_KERNELS_LINALG_H
#define TOSAC_KERNELS_LINALG_H

#include "kernels/kern.h"

/* Determinants of batch square matrices [batch, m, m] (f32 or f64, dt for x and y) by LU
 * decomposition with partial pivoting in double. scratch holds m * m doubles. */
void kern_det(tosac_dtype dt, int64_t batch, int64_t m, const void *x, void *y, double *scratch);

#endif
