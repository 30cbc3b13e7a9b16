/* Matrix products: Gemm (transposes, alpha, beta, broadcast C) and MatMul. */
#ifndef TOSAC_KERNELS_GEMM_H
#define TOSAC_KERNELS_GEMM_H

#include "kernels/kern.h"

typedef struct kern_gemm_params {
    int64_t m, n, k;
    int trans_a, trans_b;
    double alpha, beta;
    /* C broadcast to [m, n]: its element (i, j) is c[i * c_rs + j * c_cs] (strides 0 where
     * C has a dimension of 1); c may be NULL. */
    int64_t c_rs, c_cs;
    /* f32: NULL, or B as kern_gemm_f32_pack_b left it (a constant B packed once), with the
     * tag it returned; the product reads it in place of its per-call panels (same bits). */
    const float *b_packed;
    int b_packed_tag;
} kern_gemm_params;

/* y[m,n] = alpha * sum_k A[m,k] B[k,n] + beta * C. A is [m,k] ([k,m] when trans_a), B is
 * [k,n] ([n,k] when trans_b). f32 runs the blocked product of sgemm.h (k summed in blocks)
 * with kern_gemm_f32_scratch(p) floats of scratch; f64 sums k in order. */
size_t kern_gemm_f32_scratch(const kern_gemm_params *p);
void kern_gemm_f32(const kern_gemm_params *p, const float *a, const float *b, const float *c,
                   float *y, float *scratch);
/* B packed for p's product once (sgemm.h kern_sgemm_pack_b): floats needed, 0 when the
 * product would not read a packed B (few rows); the packing of b (laid out as p->trans_b
 * says) into dst, returning the tag for p->b_packed_tag. */
size_t kern_gemm_f32_packed_b_size(const kern_gemm_params *p);
int kern_gemm_f32_pack_b(const kern_gemm_params *p, const float *b, float *dst);
/* The tag kern_gemm_f32_pack_b would return now. */
int kern_gemm_f32_pack_b_tag(void);
void kern_gemm_f64(const kern_gemm_params *p, const double *a, const double *b, const double *c,
                   double *y);
/* Integer product for MatMulInteger / QLinearMatMul: int32 values with zero points already
 * subtracted, no transposes, alpha, beta or C. */
void kern_matmul_i32(int64_t m, int64_t n, int64_t k, const int32_t *a, const int32_t *b,
                     int32_t *y);
/* Generic integer MatMul (wrapping) for any integer dt, via int64. */
void kern_matmul_int(tosac_dtype dt, int64_t m, int64_t n, int64_t k, const void *a, const void *b,
                     void *y);

#endif
