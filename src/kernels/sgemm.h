/* Cache-blocked single-precision matrix product with a register-tiled micro-kernel:
 * C[m,n] = A[m,k] B[k,n] (+ row_bias[i] after the sum). A and B are read through element
 * strides, so transposed operands and NCHW images (Conv 1x1) need no copy. Used by Gemm,
 * MatMul and every non-depthwise Conv. Sums run over k in blocks of KERN_SGEMM_KC: each
 * output is the in-order sum of its block sums, not the naive left-to-right sum; every
 * multiply-add inside a block is fused (fmaf: one rounding, the same on every variant). */
#ifndef TOSAC_KERNELS_SGEMM_H
#define TOSAC_KERNELS_SGEMM_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/out_act.h"

/* The micro-tile is chosen per kernel variant (sgemm.c); these are the largest. */
#define KERN_SGEMM_MR 8     /* micro-tile rows (A panel height) */
#define KERN_SGEMM_NR 32    /* micro-tile columns (B panel width) */
#define KERN_SGEMM_SMALL_M 4 /* fewer rows than this take the row-at-a-time path */
#define KERN_SGEMM_KC 256   /* depth of one packed block (A and B panels stay in L1/L2); the
                               only blocking that decides the order of a sum */
#define KERN_SGEMM_MC 128   /* rows of A packed at a time (L2) */
#define KERN_SGEMM_NC 1024  /* columns of B packed at a time (L2/L3), when B is not read in
                               place */

typedef struct kern_sgemm {
    int64_t m, n, k;
    const float *a;
    int64_t a_rs, a_cs;     /* A(i, kk) = a[i * a_rs + kk * a_cs] */
    const float *b;
    int64_t b_rs, b_cs;     /* B(kk, j) = b[kk * b_rs + j * b_cs] */
    float *c;
    int64_t ldc;            /* C(i, j) = c[i * ldc + j]; C is written, never read */
    const float *row_bias;  /* NULL or m values added to each row after its sum */
    const float *a_packed;  /* NULL, or A as kern_sgemm_pack_a left it (then a is not read) */
    int a_packed_tag;       /* what kern_sgemm_pack_a returned for a_packed */
    const float *b_packed;  /* NULL, or B as kern_sgemm_pack_b left it (then b is not read
                               by the tiled path; the few-row path reads b) */
    int b_packed_tag;       /* what kern_sgemm_pack_b returned for b_packed */
    const kern_out_act *act;    /* NULL or applied to each output after its bias */
} kern_sgemm;

/* Floats of scratch kern_sgemm_run needs for an m x n x k product. */
size_t kern_sgemm_scratch(int64_t m, int64_t n, int64_t k);
void kern_sgemm_run(const kern_sgemm *g, float *scratch);

/* A packed once for many products with the same A (constant weights): floats needed (the
 * largest over the variants), and the packing of g's A (m, k, a, a_rs, a_cs) into dst for
 * the active variant; returns the tag to store in a_packed_tag. kern_sgemm_run packs A
 * itself when the tag is not the active variant's (the variant changed since). */
size_t kern_sgemm_packed_a_size(int64_t m, int64_t k);
int kern_sgemm_pack_a(const kern_sgemm *g, float *dst);
/* The tag kern_sgemm_pack_a would return now. */
int kern_sgemm_pack_tag(void);

/* B packed once for many products with the same B (constant weights), the twin of the A
 * packing: floats needed (the largest over the variants; 0 when the product would not read
 * it: fewer than KERN_SGEMM_SMALL_M rows take the few-row path, which reads B in place),
 * and the packing of g's B (n, k, b, b_rs, b_cs) into dst for the active variant; returns
 * the tag to store in b_packed_tag. The tiled path reads the same values in the same order
 * as from its per-call panels (same bits); it packs B itself when the tag is not the active
 * variant's. */
size_t kern_sgemm_packed_b_size(int64_t m, int64_t n, int64_t k);
int kern_sgemm_pack_b(const kern_sgemm *g, float *dst);
/* The tag kern_sgemm_pack_b would return now. */
int kern_sgemm_pack_b_tag(void);

#endif
