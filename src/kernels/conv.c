/* Direct convolution. The loop nest keeps one weight in a register and sweeps a row of
 * output pixels, so the inner loop is a contiguous multiply-add when the stride is 1. Every
 * output accumulates its (c, k) terms in natural order; the bias is added last. */
#include "kernels/conv.h"

#include <string.h>

/* Spatial dims padded to 3 with leading 1s so one loop nest serves 1-D, 2-D and 3-D. */
typedef struct sp3 {
    int64_t in[3], k[3], out[3], s[3], d[3], pad[3];
} sp3;

static void to_sp3(const kern_conv_params *p, sp3 *g)
{
    int lead = 3 - p->nsp;
    for (int i = 0; i < 3; i++) {
        int j = i - lead;
        g->in[i] = j < 0 ? 1 : p->in[j];
        g->k[i] = j < 0 ? 1 : p->k[j];
        g->out[i] = j < 0 ? 1 : p->out[j];
        g->s[i] = j < 0 ? 1 : p->stride[j];
        g->d[i] = j < 0 ? 1 : p->dil[j];
        g->pad[i] = j < 0 ? 0 : p->pad[j];
    }
}

/* First and one-past-last output index o with 0 <= o*s - pad + kk*d < in. */
static void valid_range(int64_t out, int64_t in, int64_t s, int64_t pad, int64_t off,
                        int64_t *lo, int64_t *hi)
{
    /* need o*s >= pad - off and o*s <= in - 1 + pad - off */
    int64_t a = pad - off, b = in - 1 + pad - off;
    int64_t l = a <= 0 ? 0 : (a + s - 1) / s;
    int64_t h = b < 0 ? 0 : b / s + 1;
    if (h > out)
        h = out;
    if (l > h)
        l = h;
    *lo = l;
    *hi = h;
}

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
                                valid_range(g.out[0], g.in[0], g.s[0], g.pad[0], k0 * g.d[0],  \
                                            &l0, &h0);                                         \
                                valid_range(g.out[1], g.in[1], g.s[1], g.pad[1], k1 * g.d[1],  \
                                            &l1, &h1);                                         \
                                valid_range(g.out[2], g.in[2], g.s[2], g.pad[2], k2 * g.d[2],  \
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

void kern_conv_f32(const kern_conv_params *p, const float *x, const float *w, const float *bias,
                   float *y)
CONV_BODY(float)

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
