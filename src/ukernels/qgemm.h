/* qgemm: the int8 x int8 -> i32 GEMM of the accelerated CONV2D and MATMUL, with TOSA's
 * RESCALE (i32 -> i8, per column) and an optional CLAMP fused in its epilogue.
 *
 *     C[m][n] = epilogue_n( sum_k (A[m][k] - a_zp) * B[k][n] + bias[n] )      m < M, n < N
 *
 * A: M rows of K int8 (row m at A + m * lda; a kernel reads exactly K bytes of a row, never
 * more). B: int8 [K][N], constant for a convolution (packed once at init), or a MATMUL
 * activation (packed per invoke into scratch). The weight zero point must be 0 (the operator
 * declines otherwise: B - zp would not fit int8). a_zp is folded at pack time:
 * bias'[n] = bias[n] - a_zp * sum_k B[k][n] (and - 128 * sum_k B[k][n] more for avx512vnni,
 * whose vpdpbusd takes A as u8 = A ^ 0x80). All of it is mod 2^32: the reference's i32
 * accumulator wraps (interp_conv.c) and so do vpmaddwd/vpdpbusd sums and the folded bias, so
 * no accumulation needs an overflow check.
 *
 * Epilogue, per column n (the reference's RESCALE with scale32, then CLAMP; operators
 * decline everything else at init):
 *   QGEMM_OUT_I32: C (int32) = acc + bias (wrapping) — a convolution with no RESCALE fused.
 *   QGEMM_OUT_I8:  v = acc + bias (wrapping, i32);
 *                  REQUIRE -2^(s-1) <= v < 2^(s-1) (only binds for shift s <= 31): else
 *                  qgemm_run returns QGEMM_ERR_RANGE (the reference reports the same REQUIRE);
 *                  r = (v * mult[n] + round) >> s   (64-bit, floor), round = 2^(s-1), plus
 *                      +2^30 (v >= 0) / -2^30 (v < 0) for DOUBLE_ROUND when s > 31;
 *                  C (int8) = min(max(r + out_zp, lo), hi), [lo, hi] the int8 range
 *                  intersected with a fused CLAMP's (computed by the operator).
 *   Pack requires mult[n] >= 0, 2 <= shift[n] <= 62 (returns 0 otherwise).
 *
 * Variants (src/kernels/isa.h KERN_ISA_LIST) and their packed-B layouts (all written by the
 * plain-C packers of qgemm_pack.c, compiled on every target; the packed size is the max over
 * variants, qgemm_packed_size, so a program measured on one machine runs on another):
 *   portable   (qgemm.c):            KN16: for each column n < Np (N rounded up to 64), its K
 *                                    values contiguous, K rounded up to Kp = 16k, zero-filled:
 *                                    w[n * Kp + k]. (Also the Helium layout: one VMLADAVA per
 *                                    16 k.)
 *   avx2       (qgemm_avx2.c):       P8K2: panels of 8 columns; panel j holds for each k pair
 *                                    (k, k+1), k < Kp = 2k, the 8 columns' two values:
 *                                    w[(j * Kp/2 + k/2) * 16 + c * 2 + (k & 1)] (vpmaddwd on
 *                                    int16 widened: products never saturate).
 *   avx512vnni (qgemm_avx512vnni.c): P16K4: panels of 16 columns; for each k quad, Kp = 4k:
 *                                    w[(j * Kp/4 + k/4) * 64 + c * 4 + (k & 3)] (vpdpbusd).
 *   helium     (qgemm_helium.c):     KN16, as portable.
 * Per-column epilogue arrays (bias', mult, shift) are padded to Np = N rounded up to
 * QGEMM_NP (64) with neutral values (mult 0, shift 2), so every variant may compute whole
 * panels and store only n < N.
 *
 * qgemm_run(p, A, lda, M, n0, n1, C, ldc) computes columns [n0, n1) of rows [0, M); n0 must
 * be a multiple of QGEMM_NP (column blocks split work between threads), n1 <= N; row m of C
 * starts ldc elements (int8 or int32) after row m - 1, column n is element n of it. It
 * allocates nothing and is re-entrant: the threads of rt_accel_parallel run it on disjoint
 * row or column blocks at once. */
#ifndef TOSAC_UKERNELS_QGEMM_H
#define TOSAC_UKERNELS_QGEMM_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/isa.h"

#define QGEMM_NP 64 /* column padding of the epilogue arrays and of column blocks */

typedef enum qgemm_out { QGEMM_OUT_I8, QGEMM_OUT_I32 } qgemm_out;

enum { QGEMM_OK = 0, QGEMM_ERR_RANGE = 1 };

/* What the operator gives qgemm_pack (nothing of it is referenced after packing). */
typedef struct qgemm_params {
    int K, N;                     /* >= 1 */
    const int8_t *b;              /* B[k][n] = b[k * b_sk + n * b_sn] (I4 weights: int8) */
    ptrdiff_t b_sk, b_sn;
    const int32_t *bias;          /* bias[n], or bias[0] for all when n_bias == 1; NULL: 0 */
    int n_bias;
    int32_t a_zp;                 /* A's zero point, -128..127 (padding reads as a_zp) */
    qgemm_out out;
    /* QGEMM_OUT_I8 only: mult/shift per column (n_rq == N) or one for all (n_rq == 1) */
    const int32_t *mult;
    const int8_t *shift;
    int n_rq;
    int double_round;             /* rounding_mode == DOUBLE_ROUND */
    int32_t out_zp;               /* -128..127 */
    int32_t lo, hi;               /* clamp after adding out_zp, -128 <= lo <= hi <= 127 */
} qgemm_params;

typedef struct qgemm_packed qgemm_packed;
/* Computes columns [n0, n1) of rows [0, M) (see above); QGEMM_OK or QGEMM_ERR_RANGE. */
typedef int (*qgemm_fn)(const qgemm_packed *p, const int8_t *A, size_t lda, int M, int n0,
                        int n1, void *C, size_t ldc);

struct qgemm_packed {
    int K, N, Kp, Np;             /* Kp: K rounded up by the layout; Np: N rounded to 64 */
    kern_isa isa;                 /* whose layout w has */
    qgemm_out out;
    int32_t out_zp, lo, hi;
    const int8_t *w;              /* packed B (layout of isa) */
    const int32_t *bias;          /* [Np] folded bias' */
    const int32_t *mult;          /* [Np] */
    const int32_t *shift;         /* [Np] */
    const int32_t *rdbl;          /* [Np] the DOUBLE_ROUND term: 2^30 when s > 31, else 0 */
    const int32_t *vmin, *vmax;   /* [Np] the REQUIRE's bounds on v (INT32_MIN/MAX if s > 31) */
    /* [Np] int64, each 16 columns as their 8 even then 8 odd ones (a 64-bit lane per column
     * of vpmuldq's even/odd products): 2^(s-1) + rdbl (the rounding for v >= 0), 2 * rdbl
     * (less for v < 0) (+ out_zp * 2^s when zp_in_rnd), s */
    const int64_t *rnd64, *dneg64, *sh64;
    int zp_in_rnd;                /* rnd64 holds out_zp too (every s <= 54) */
    int check;                    /* some column has s <= 31: vmin/vmax bind */
    int dbl;                      /* some column has rdbl != 0 */
    qgemm_fn run;
};

/* The variant to pack for: kern_isa_active() when this build has its qgemm kernel, else
 * portable. */
kern_isa qgemm_variant(void);
/* Bytes qgemm_pack needs for K x N, the max over every variant (pure; 0 on overflow). */
size_t qgemm_packed_size(int K, int N);
/* Packs q for variant isa into mem (16-aligned, qgemm_packed_size bytes); fills *p (which
 * points into mem). Returns 1, or 0 when isa has no kernel in this build or q is outside
 * the contract above (then nothing is usable). */
int qgemm_pack(qgemm_packed *p, kern_isa isa, const qgemm_params *q, void *mem);
/* What qgemm_pack would return, without packing (the compiler's measuring run). */
int qgemm_pack_ok(kern_isa isa, const qgemm_params *q);

static inline int qgemm_run(const qgemm_packed *p, const int8_t *A, size_t lda, int M, int n0,
                            int n1, void *C, size_t ldc)
{
    return p->run(p, A, lda, M, n0, n1, C, ldc);
}

/* The variants' entry points (qgemm_pack stores one in p->run). */
int qgemm_run_portable(const qgemm_packed *p, const int8_t *A, size_t lda, int M, int n0,
                       int n1, void *C, size_t ldc);
int qgemm_run_avx2(const qgemm_packed *p, const int8_t *A, size_t lda, int M, int n0, int n1,
                   void *C, size_t ldc);
int qgemm_run_avx512vnni(const qgemm_packed *p, const int8_t *A, size_t lda, int M, int n0,
                         int n1, void *C, size_t ldc);
int qgemm_run_helium(const qgemm_packed *p, const int8_t *A, size_t lda, int M, int n0, int n1,
                     void *C, size_t ldc);

/* The shared scalar epilogue of one column (every variant's tail and the portable kernel):
 * acc is the raw sum of A * B (wrapping); stores C[n] in p->out's type. Returns 0 or
 * QGEMM_ERR_RANGE. */
static inline int qgemm_epilogue1(const qgemm_packed *p, int n, uint32_t acc, void *C)
{
    int32_t v = (int32_t)(acc + (uint32_t)p->bias[n]);
    if (p->out == QGEMM_OUT_I32) {
        ((int32_t *)C)[n] = v;
        return QGEMM_OK;
    }
    if (v < p->vmin[n] || v > p->vmax[n])
        return QGEMM_ERR_RANGE;
    int s = p->shift[n];
    int64_t round = ((int64_t)1 << (s - 1)) + (v >= 0 ? p->rdbl[n] : -p->rdbl[n]);
    int64_t t = (int64_t)v * p->mult[n] + round;
    /* floor division by 2^s without >> of a negative number (implementation-defined in C):
     * t + 2^62 >= 0 because round > 0 and |v * mult| < 2^62 */
    int64_t r = (int64_t)(((uint64_t)t + ((uint64_t)1 << 62)) >> s) - ((int64_t)1 << (62 - s));
    r += p->out_zp;
    r = r < p->lo ? p->lo : r > p->hi ? p->hi : r;
    ((int8_t *)C)[n] = (int8_t)r;
    return QGEMM_OK;
}

#endif
