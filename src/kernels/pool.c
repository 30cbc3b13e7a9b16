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

/* Global average / max pooling (one window covering each whole plane, no padding): a
 * straight pass per plane. The average sums in double with four interleaved partial sums
 * (independent chains instead of one long dependency); the max keeps the first value and
 * then any strictly greater one, as the general loop does. */
static int pool_global_f32(const kern_pool_params *p, const float *x, float *y)
{
    int64_t sz = 1;
    for (int i = 0; i < p->nsp; i++) {
        if (p->out[i] != 1 || p->k[i] != p->in[i] || p->pad_begin[i] || p->pad_end[i])
            return 0;
        sz *= p->in[i];
    }
    if (sz <= 0 || (p->kind != KERN_POOL_AVG && p->kind != KERN_POOL_MAX))
        return 0;
    for (int64_t nc = 0; nc < p->nc; nc++) {
        const float *v = x + nc * sz;
        if (p->kind == KERN_POOL_MAX) {
            float m = v[0];
            for (int64_t i = 1; i < sz; i++)
                m = v[i] > m ? v[i] : m;
            y[nc] = m;
            continue;
        }
        double s[4] = {0, 0, 0, 0};
        int64_t i = 0;
        for (; i + 4 <= sz; i += 4)
            for (int l = 0; l < 4; l++)
                s[l] += v[i + l];
        for (; i < sz; i++)
            s[0] += v[i];
        y[nc] = (float)(((s[0] + s[1]) + (s[2] + s[3])) / (double)sz);
    }
    return 1;
}

/* Taps k in [0, kn) with 0 <= start + k * dil < in: the range [*lo, *hi). */
static void tap_range(int64_t start, int64_t dil, int64_t kn, int64_t in, int64_t *lo,
                      int64_t *hi)
{
    int64_t l = start >= 0 ? 0 : (-start + dil - 1) / dil;
    int64_t h = in - 1 - start < 0 ? 0 : (in - 1 - start) / dil + 1;
    if (h > kn)
        h = kn;
    if (l > h)
        l = h;
    *lo = l;
    *hi = h;
}

/* Taps k in [0, kn) with start + k * dil < in + pad_end (the padded count of AVG). */
static int64_t padded_taps(int64_t start, int64_t dil, int64_t kn, int64_t in, int64_t pad_end)
{
    int64_t lim = in + pad_end - start; /* need k * dil < lim */
    if (lim <= 0)
        return 0;
    int64_t c = (lim + dil - 1) / dil;
    return c < kn ? c : kn;
}

/* 2-D max / average pooling without indices: each window's in-range rows and columns are
 * worked out once, so the tap loops have no bounds checks. The same taps in the same order
 * as the general loop; the max compares in float (exact, like the double compare). */
static int pool_2d_f32(const kern_pool_params *p, const float *x, float *y)
{
    if (p->nsp != 2 || (p->kind != KERN_POOL_AVG && p->kind != KERN_POOL_MAX))
        return 0;
    const int64_t ih = p->in[0], iw = p->in[1], oh = p->out[0], ow = p->out[1];
    const int64_t dy = p->dil[0], dx = p->dil[1];
    for (int64_t nc = 0; nc < p->nc; nc++) {
        const float *X = x + nc * ih * iw;
        float *Y = y + nc * oh * ow;
        for (int64_t oy = 0; oy < oh; oy++) {
            const int64_t y0 = oy * p->stride[0] - p->pad_begin[0];
            int64_t ky0, ky1;
            tap_range(y0, dy, p->k[0], ih, &ky0, &ky1);
            const int64_t prow = padded_taps(y0, dy, p->k[0], ih, p->pad_end[0]);
            for (int64_t ox = 0; ox < ow; ox++) {
                const int64_t x0 = ox * p->stride[1] - p->pad_begin[1];
                int64_t kx0, kx1;
                tap_range(x0, dx, p->k[1], iw, &kx0, &kx1);
                float *out = Y + oy * ow + ox;
                /* element indices, not pointers: x0 may be negative (left padding) */
                if (p->kind == KERN_POOL_MAX) {
                    if (ky0 == ky1 || kx0 == kx1) { /* empty window */
                        *out = -INFINITY;
                        continue;
                    }
                    float m = X[(y0 + ky0 * dy) * iw + x0 + kx0 * dx];
                    for (int64_t ky = ky0; ky < ky1; ky++) {
                        const int64_t r = (y0 + ky * dy) * iw + x0;
                        for (int64_t kx = kx0; kx < kx1; kx++)
                            m = X[r + kx * dx] > m ? X[r + kx * dx] : m;
                    }
                    *out = m;
                    continue;
                }
                double acc = 0;
                for (int64_t ky = ky0; ky < ky1; ky++) {
                    const int64_t r = (y0 + ky * dy) * iw + x0;
                    for (int64_t kx = kx0; kx < kx1; kx++)
                        acc += X[r + kx * dx];
                }
                int64_t cnt = p->count_include_pad
                                  ? prow * padded_taps(x0, dx, p->k[1], iw, p->pad_end[1])
                                  : (ky1 - ky0) * (kx1 - kx0);
                *out = (float)(acc / (double)cnt);
            }
        }
    }
    return 1;
}

/* Float averages accumulate in double and round once: onnxruntime's float sum over a
 * window of at most a few hundred taps agrees to well within one ulp of the result. */
static void pool_any_f32(const kern_pool_params *p, const float *x, float *y, int64_t *indices)
POOL_BODY(float, x[base + xi])

void kern_pool_f32(const kern_pool_params *p, const float *x, float *y, int64_t *indices)
{
    if (!indices && (pool_global_f32(p, x, y) || pool_2d_f32(p, x, y)))
        return;
    pool_any_f32(p, x, y, indices);
}

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
