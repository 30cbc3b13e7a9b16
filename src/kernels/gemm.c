/* Matrix products. f32 is the blocked product of sgemm.c plus the alpha/beta epilogue.
 * The f64 and integer loops run (i, k, j): they stream rows of B with a scalar of A in a
 * register, each y[i,j] accumulating its k terms in order. */
#include "kernels/gemm.h"

#include <string.h>

#include "kernels/sgemm.h"

#define GEMM_BODY(T)                                                                           \
    {                                                                                          \
        const int64_t M = p->m, N = p->n, K = p->k;                                            \
        for (int64_t i = 0; i < M; i++) {                                                      \
            T *yr = y + i * N;                                                                 \
            memset(yr, 0, (size_t)N * sizeof(T));                                              \
            for (int64_t kk = 0; kk < K; kk++) {                                               \
                T av = p->trans_a ? a[kk * M + i] : a[i * K + kk];                             \
                if (p->trans_b) {                                                              \
                    for (int64_t j = 0; j < N; j++)                                            \
                        yr[j] += av * b[j * K + kk];                                           \
                } else {                                                                       \
                    const T *br = b + kk * N;                                                  \
                    for (int64_t j = 0; j < N; j++)                                            \
                        yr[j] += av * br[j];                                                   \
                }                                                                              \
            }                                                                                  \
            const T alpha = (T)p->alpha, beta = (T)p->beta;                                    \
            if (alpha != (T)1)                                                                 \
                for (int64_t j = 0; j < N; j++)                                                \
                    yr[j] *= alpha;                                                            \
            if (c && beta != (T)0)                                                             \
                for (int64_t j = 0; j < N; j++)                                                \
                    yr[j] += beta * c[i * p->c_rs + j * p->c_cs];                              \
        }                                                                                      \
    }

size_t kern_gemm_f32_scratch(const kern_gemm_params *p)
{
    return kern_sgemm_scratch(p->m, p->n, p->k);
}

/* The sgemm of p's product (A and B read through their strides). */
static kern_sgemm sgemm_of(const kern_gemm_params *p, const float *a, const float *b, float *y)
{
    const int64_t M = p->m, N = p->n, K = p->k;
    kern_sgemm s = {.m = M, .n = N, .k = K, .a = a, .b = b, .c = y, .ldc = N};
    s.a_rs = p->trans_a ? 1 : K;
    s.a_cs = p->trans_a ? M : 1;
    s.b_rs = p->trans_b ? 1 : N;
    s.b_cs = p->trans_b ? K : 1;
    s.b_packed = p->b_packed;
    s.b_packed_tag = p->b_packed_tag;
    return s;
}

size_t kern_gemm_f32_packed_b_size(const kern_gemm_params *p)
{
    return kern_sgemm_packed_b_size(p->m, p->n, p->k);
}

int kern_gemm_f32_pack_b(const kern_gemm_params *p, const float *b, float *dst)
{
    kern_sgemm s = sgemm_of(p, NULL, b, NULL);
    return kern_sgemm_pack_b(&s, dst);
}

int kern_gemm_f32_pack_b_tag(void) { return kern_sgemm_pack_b_tag(); }

void kern_gemm_f32(const kern_gemm_params *p, const float *a, const float *b, const float *c,
                   float *y, float *scratch)
{
    const int64_t M = p->m, N = p->n;
    kern_sgemm s = sgemm_of(p, a, b, y);
    kern_sgemm_run(&s, scratch);
    const float alpha = (float)p->alpha, beta = (float)p->beta;
    for (int64_t i = 0; i < M && (alpha != 1.0f || (c && beta != 0.0f)); i++) {
        float *yr = y + i * N;
        if (alpha != 1.0f)
            for (int64_t j = 0; j < N; j++)
                yr[j] *= alpha;
        if (c && beta != 0.0f) {
            const float *cr = c + i * p->c_rs;
            if (p->c_cs == 1 && beta == 1.0f)
                for (int64_t j = 0; j < N; j++)
                    yr[j] += cr[j];
            else
                for (int64_t j = 0; j < N; j++)
                    yr[j] += beta * cr[j * p->c_cs];
        }
    }
}

void kern_gemm_f64(const kern_gemm_params *p, const double *a, const double *b, const double *c,
                   double *y)
GEMM_BODY(double)

void kern_matmul_i32(int64_t m, int64_t n, int64_t k, const int32_t *a, const int32_t *b,
                     int32_t *y)
{
    for (int64_t i = 0; i < m; i++) {
        int32_t *yr = y + i * n;
        memset(yr, 0, (size_t)n * sizeof(int32_t));
        for (int64_t kk = 0; kk < k; kk++) {
            int32_t av = a[i * k + kk];
            const int32_t *br = b + kk * n;
            for (int64_t j = 0; j < n; j++)
                yr[j] = (int32_t)((uint32_t)yr[j] + (uint32_t)av * (uint32_t)br[j]);
        }
    }
}

void kern_matmul_int(tosac_dtype dt, int64_t m, int64_t n, int64_t k, const void *a, const void *b,
                     void *y)
{
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            uint64_t acc = 0;
            for (int64_t kk = 0; kk < k; kk++)
                acc += (uint64_t)kern_get_i64(dt, a, i * k + kk) *
                       (uint64_t)kern_get_i64(dt, b, kk * n + j);
            kern_set_i64(dt, y, i * n + j, (int64_t)acc);
        }
}
