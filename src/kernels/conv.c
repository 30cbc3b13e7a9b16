/* Direct convolutions: int32 (exact, so order does not matter) and the transposed float
 * convolution. The loop nest keeps one weight in a register and sweeps a row of output
 * pixels, so the inner loop is a contiguous multiply-add when the stride is 1. The float
 * forward convolution is conv_gemm.c / conv_depthwise.c. */
#include "kernels/conv.h"
#include "kernels/conv_sp3.h"

#include <string.h>

#define CONV_BODY(T)                                                                           \
    {                                                                                          \
        sp3 g;                                                                                 \
        to_sp3(p, &g);                                                                         \
        const int64_t cg = p->c / p->group, mg = p->m / p->group;                              \
        const int64_t in_sz = g.in[0] * g.in[1] * g.in[2];                                     \
        const int64_t out_sz = g.out[0] * g.out[1] * g.out[2];                                 \
        const int64_t k_sz = g.k[0] * g.k[1] * g.k[2];                                         \
        for (int64_t n = 0; n < p->n; n++)                                                     \
            for (int64_t m = 0; m < p->m; m++) {                                               \
                int64_t grp = m / mg;                                                          \
                T *Y = y + (n * p->m + m) * out_sz;                                            \
                memset(Y, 0, (size_t)out_sz * sizeof(T));                                      \
                for (int64_t cc = 0; cc < cg; cc++) {                                          \
                    const T *X = x + (n * p->c + grp * cg + cc) * in_sz;                       \
                    const T *W = w + (m * cg + cc) * k_sz;                                     \
                    for (int64_t k0 = 0; k0 < g.k[0]; k0++)                                    \
                        for (int64_t k1 = 0; k1 < g.k[1]; k1++)                                \
                            for (int64_t k2 = 0; k2 < g.k[2]; k2++) {                          \
                                T wv = W[(k0 * g.k[1] + k1) * g.k[2] + k2];                    \
                                int64_t l0, h0, l1, h1, l2, h2;                                \
                                sp3_valid_range(g.out[0], g.in[0], g.s[0], g.pad[0], k0 * g.d[0],  \
                                            &l0, &h0);                                         \
                                sp3_valid_range(g.out[1], g.in[1], g.s[1], g.pad[1], k1 * g.d[1],  \
                                            &l1, &h1);                                         \
                                sp3_valid_range(g.out[2], g.in[2], g.s[2], g.pad[2], k2 * g.d[2],  \
                                            &l2, &h2);                                         \
                                for (int64_t o0 = l0; o0 < h0; o0++) {                         \
                                    int64_t i0 = o0 * g.s[0] - g.pad[0] + k0 * g.d[0];         \
                                    for (int64_t o1 = l1; o1 < h1; o1++) {                     \
                                        int64_t i1 = o1 * g.s[1] - g.pad[1] + k1 * g.d[1];     \
                                        const T *xr = X + (i0 * g.in[1] + i1) * g.in[2] -      \
                                                      g.pad[2] + k2 * g.d[2];                  \
                                        T *yr = Y + (o0 * g.out[1] + o1) * g.out[2];           \
                                        if (g.s[2] == 1)                                       \
                                            for (int64_t o2 = l2; o2 < h2; o2++)               \
                                                yr[o2] += wv * xr[o2];                         \
                                        else                                                   \
                                            for (int64_t o2 = l2; o2 < h2; o2++)               \
                                                yr[o2] += wv * xr[o2 * g.s[2]];                \
                                    }                                                          \
                                }                                                              \
                            }                                                                  \
                }                                                                              \
                if (bias)                                                                      \
                    for (int64_t i = 0; i < out_sz; i++)                                       \
                        Y[i] += bias[m];                                                       \
            }                                                                                  \
    }

void kern_conv_i32(const kern_conv_params *p, const int32_t *x, const int32_t *w,
                   const int32_t *bias, int32_t *y)
CONV_BODY(int32_t)

void kern_conv_transpose_f32(const kern_conv_params *p, const float *x, const float *w,
                             const float *bias, float *y)
{
    sp3 g;
    to_sp3(p, &g);
    const int64_t cg = p->c / p->group, mg = p->m / p->group;
    const int64_t in_sz = g.in[0] * g.in[1] * g.in[2];
    const int64_t out_sz = g.out[0] * g.out[1] * g.out[2];
    const int64_t k_sz = g.k[0] * g.k[1] * g.k[2];
    memset(y, 0, (size_t)(p->n * p->m * out_sz) * sizeof(float));
    for (int64_t n = 0; n < p->n; n++)
        for (int64_t c = 0; c < p->c; c++) {
            int64_t grp = c / cg;
            const float *X = x + (n * p->c + c) * in_sz;
            for (int64_t mm = 0; mm < mg; mm++) {
                int64_t m = grp * mg + mm;
                float *Y = y + (n * p->m + m) * out_sz;
                const float *W = w + (c * mg + mm) * k_sz;
                for (int64_t i0 = 0; i0 < g.in[0]; i0++)
                    for (int64_t i1 = 0; i1 < g.in[1]; i1++)
                        for (int64_t i2 = 0; i2 < g.in[2]; i2++) {
                            float xv = X[(i0 * g.in[1] + i1) * g.in[2] + i2];
                            for (int64_t k0 = 0; k0 < g.k[0]; k0++) {
                                int64_t o0 = i0 * g.s[0] - g.pad[0] + k0 * g.d[0];
                                if (o0 < 0 || o0 >= g.out[0])
                                    continue;
                                for (int64_t k1 = 0; k1 < g.k[1]; k1++) {
                                    int64_t o1 = i1 * g.s[1] - g.pad[1] + k1 * g.d[1];
                                    if (o1 < 0 || o1 >= g.out[1])
                                        continue;
                                    for (int64_t k2 = 0; k2 < g.k[2]; k2++) {
                                        int64_t o2 = i2 * g.s[2] - g.pad[2] + k2 * g.d[2];
                                        if (o2 < 0 || o2 >= g.out[2])
                                            continue;
                                        Y[(o0 * g.out[1] + o1) * g.out[2] + o2] +=
                                            xv * W[(k0 * g.k[1] + k1) * g.k[2] + k2];
                                    }
                                }
                            }
                        }
            }
        }
    if (bias)
        for (int64_t n = 0; n < p->n; n++)
            for (int64_t m = 0; m < p->m; m++)
                for (int64_t i = 0; i < out_sz; i++)
                    y[(n * p->m + m) * out_sz + i] += bias[m];
}
