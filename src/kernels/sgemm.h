/* Cache-blocked single-precision matrix product with a register-tiled micro-kernel:
 * C[m,n] = A[m,k] B[k,n] (+ row_bias[i] after the sum). A and B are read through element
 * strides, so transposed operands and NCHW images (Conv 1x1) need no copy. Used by Gemm,
 * MatMul and every non-depthwise Conv. Sums run over k in blocks of KERN_SGEMM_KC: each
 * output is the in-order sum of its block sums, not the naive left-to-right sum. */
#ifndef TOSAC_KERNELS_SGEMM_H
#define TOSAC_KERNELS_SGEMM_H

#include <stddef.h>
#include <stdint.h>

#define KERN_SGEMM_MR 4     /* micro-tile rows (A panel height) */
#define KERN_SGEMM_NR 16    /* micro-tile columns (B panel width) */
#define KERN_SGEMM_KC 256   /* depth of one packed block (A and B panels stay in L1/L2) */
#define KERN_SGEMM_MC 128   /* rows of A packed at a time (L2) */
#define KERN_SGEMM_NC 1024  /* columns of B packed at a time (L2/L3) */

typedef struct kern_sgemm {
    int64_t m, n, k;
    const float *a;
    int64_t a_rs, a_cs;     /* A(i, kk) = a[i * a_rs + kk * a_cs] */
    const float *b;
    int64_t b_rs, b_cs;     /* B(kk, j) = b[kk * b_rs + j * b_cs] */
    float *c;
    int64_t ldc;            /* C(i, j) = c[i * ldc + j]; C is written, never read */
    const float *row_bias;  /* NULL or m values added to each row after its sum */
} kern_sgemm;

/* Floats of scratch kern_sgemm_run needs for an m x n x k product. */
size_t kern_sgemm_scratch(int64_t m, int64_t n, int64_t k);
void kern_sgemm_run(const kern_sgemm *g, float *scratch);

#endif
