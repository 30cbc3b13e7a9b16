/* Pooling: for each output position, walk the dilated window and keep the taps that land
 * inside the input. */
#include "kernels/pool.h"

#include <math.h>
#include <string.h>

typedef struct win3 {
    int64_t in[3], out[3], k[3], s[3], d[3], pb[3], pe[3];
} win3;

static void to_win3(const kern_pool_params *p, win3 *w)
{
    int lead = 3 - p->nsp;
    for (int i = 0; i < 3; i++) {
        int j = i - lead;
        w->in[i] = j < 0 ? 1 : p->in[j];
        w->out[i] = j < 0 ? 1 : p->out[j];
        w->k[i] = j < 0 ? 1 : p->k[j];
        w->s[i] = j < 0 ? 1 : p->stride[j];
        w->d[i] = j < 0 ? 1 : p->dil[j];
        w->pb[i] = j < 0 ? 0 : p->pad_begin[j];
        w->pe[i] = j < 0 ? 0 : p->pad_end[j];
    }
}

#define POOL_BODY(T, GET)                                                                      \
    {                                                                                          \
        win3 w;                                                                                \
        to_win3(p, &w);                                                                        \
        const int64_t in_sz = w.in[0] * w.in[1] * w.in[2];                                     \
        const int64_t out_sz = w.out[0] * w.out[1] * w.out[2];                                 \
        for (int64_t nc = 0; nc < p->nc; nc++) {                                               \
            const int64_t base = nc * in_sz;                                                   \
            int64_t oi = nc * out_sz;                                                          \
            for (int64_t o0 = 0; o0 < w.out[0]; o0++)                                          \
                for (int64_t o1 = 0; o1 < w.out[1]; o1++)                                      \
                    for (int64_t o2 = 0; o2 < w.out[2]; o2++, oi++) {                          \
                        double acc = p->kind == KERN_POOL_MAX ? -INFINITY : 0;                 \
                        int64_t best = -1, count = 0, padded = 0;                              \
                        for (int64_t k0 = 0; k0 < w.k[0]; k0++) {                              \
                            int64_t i0 = o0 * w.s[0] - w.pb[0] + k0 * w.d[0];                  \
                            int in0 = i0 >= 0 && i0 < w.in[0];                                 \
                            int pad0 = i0 < w.in[0] + w.pe[0];                                 \
                            for (int64_t k1 = 0; k1 < w.k[1]; k1++) {                          \
                                int64_t i1 = o1 * w.s[1] - w.pb[1] + k1 * w.d[1];              \
                                int in1 = in0 && i1 >= 0 && i1 < w.in[1];                      \
                                int pad1 = pad0 && i1 < w.in[1] + w.pe[1];                     \
                                for (int64_t k2 = 0; k2 < w.k[2]; k2++) {                      \
                                    int64_t i2 = o2 * w.s[2] - w.pb[2] + k2 * w.d[2];          \
                                    if (pad1 && i2 < w.in[2] + w.pe[2])                        \
                                        padded++;                                              \
                                    if (!(in1 && i2 >= 0 && i2 < w.in[2]))                     \
                                        continue;                                              \
                                    int64_t xi = (i0 * w.in[1] + i1) * w.in[2] + i2;           \
                                    double v = GET;                                            \
                                    count++;                                                   \
                                    if (p->kind == KERN_POOL_MAX) {                            \
                                        if (v > acc || best < 0) {                             \
                                            acc = v;                                           \
                                            best = p->storage_order                            \
                                                       ? (i2 * w.in[1] + i1) * w.in[0] + i0    \
                                                       : xi;                                   \
                                        }                                                      \
                                    } else if (p->kind == KERN_POOL_AVG) {                     \
                                        acc += v;                                              \
                                    } else {                                                   \
                                        acc += pow(fabs(v), p->p);                             \
                                    }                                                          \
                                }                                                              \
                            }                                                                  \
                        }                                                                      \
                        if (p->kind == KERN_POOL_AVG)                                          \
                            acc = acc / (double)(p->count_include_pad ? padded : count);       \
                        else if (p->kind == KERN_POOL_LP)                                      \
                            acc = pow(acc, 1.0 / p->p);                                        \
                        y[oi] = (T)acc;                                                        \
                        if (indices)                                                           \
                            indices[oi] = best < 0 ? -1 : base + best;                         \
                    }                                                                          \
        }                                                                                      \
    }

/* Float averages accumulate in double and round once: onnxruntime's float sum over a
 * window of at most a few hundred taps agrees to well within one ulp of the result. */
void kern_pool_f32(const kern_pool_params *p, const float *x, float *y, int64_t *indices)
POOL_BODY(float, x[base + xi])

void kern_pool_f64(const kern_pool_params *p, const double *x, double *y, int64_t *indices)
POOL_BODY(double, x[base + xi])

void kern_maxpool_int(const kern_pool_params *p, tosac_dtype dt, const void *x, void *y)
{
    kern_pool_params q = *p;
    q.kind = KERN_POOL_MAX;
    win3 w;
    to_win3(&q, &w);
    const int64_t in_sz = w.in[0] * w.in[1] * w.in[2];
    const int64_t out_sz = w.out[0] * w.out[1] * w.out[2];
    for (int64_t nc = 0; nc < q.nc; nc++)
        for (int64_t o = 0; o < out_sz; o++) {
            int64_t o2 = o % w.out[2], o1 = o / w.out[2] % w.out[1], o0 = o / w.out[2] / w.out[1];
            int64_t best = INT64_MIN;
            for (int64_t k0 = 0; k0 < w.k[0]; k0++)
                for (int64_t k1 = 0; k1 < w.k[1]; k1++)
                    for (int64_t k2 = 0; k2 < w.k[2]; k2++) {
                        int64_t i0 = o0 * w.s[0] - w.pb[0] + k0 * w.d[0];
                        int64_t i1 = o1 * w.s[1] - w.pb[1] + k1 * w.d[1];
                        int64_t i2 = o2 * w.s[2] - w.pb[2] + k2 * w.d[2];
                        if (i0 < 0 || i0 >= w.in[0] || i1 < 0 || i1 >= w.in[1] || i2 < 0 ||
                            i2 >= w.in[2])
                            continue;
                        int64_t v = kern_get_i64(dt, x, nc * in_sz + (i0 * w.in[1] + i1) * w.in[2] + i2);
                        if (v > best)
                            best = v;
                    }
            kern_set_i64(dt, y, nc * out_sz + o, best);
        }
}

int kern_max_unpool(size_t elem, int64_t n_x, const void *x, const int64_t *idx, int64_t n_y,
                    void *y)
{
    for (int64_t i = 0; i < n_x; i++)
        if (idx[i] < 0 || idx[i] >= n_y)
            return -1;
    memset(y, 0, elem * (size_t)n_y);
    for (int64_t i = 0; i < n_x; i++)
        memcpy((char *)y + (size_t)idx[i] * elem, (const char *)x + (size_t)i * elem, elem);
    return 0;
}
