/* Softmax and the normalisations. Softmax subtracts the maximum before exp, as onnxruntime
 * does, and sums in the element type. */
#include "kernels/softmax.h"

#include <math.h>
#include "kernels/kern_tgmath.h"

#define SOFTMAX_BODY(T)                                                                        \
    {                                                                                          \
        const T *X = x;                                                                        \
        T *Y = y;                                                                              \
        for (int64_t o = 0; o < outer; o++)                                                    \
            for (int64_t i = 0; i < inner; i++) {                                              \
                const int64_t b = o * n * inner + i;                                           \
                T mx = -INFINITY;                                                              \
                int64_t arg = 0;                                                               \
                for (int64_t j = 0; j < n; j++)                                                \
                    if (X[b + j * inner] > mx || j == 0) {                                     \
                        mx = X[b + j * inner];                                                 \
                        arg = j;                                                               \
                    }                                                                          \
                if (kind == KERN_HARDMAX) {                                                    \
                    for (int64_t j = 0; j < n; j++)                                            \
                        Y[b + j * inner] = j == arg ? (T)1 : (T)0;                             \
                    continue;                                                                  \
                }                                                                              \
                T sum = 0;                                                                     \
                for (int64_t j = 0; j < n; j++) {                                              \
                    T e = exp(X[b + j * inner] - mx);                                          \
                    if (kind == KERN_SOFTMAX)                                                  \
                        Y[b + j * inner] = e;                                                  \
                    sum += e;                                                                  \
                }                                                                              \
                if (kind == KERN_SOFTMAX) {                                                    \
                    for (int64_t j = 0; j < n; j++)                                            \
                        Y[b + j * inner] /= sum;                                               \
                } else {                                                                       \
                    T ls = log(sum);                                                           \
                    for (int64_t j = 0; j < n; j++)                                            \
                        Y[b + j * inner] = X[b + j * inner] - mx - ls;                         \
                }                                                                              \
            }                                                                                  \
    }

void kern_softmax(kern_softmax_kind kind, tosac_dtype dt, int64_t outer, int64_t n, int64_t inner,
                  const void *x, void *y)
{
    if (dt == TOSAC_DT_F64)
        SOFTMAX_BODY(double)
    else
        SOFTMAX_BODY(float)
}

void kern_batchnorm_f32(int64_t n, int64_t c, int64_t spatial, const float *x, const float *scale,
                        const float *bias, const float *mean, const float *var, float eps,
                        float *y)
{
    for (int64_t ch = 0; ch < c; ch++) {
        /* folded to one multiply-add per element, as onnxruntime's BatchNorm kernel does */
        float inv = scale[ch] / sqrtf(var[ch] + eps);
        float add = bias[ch] - mean[ch] * inv;
        for (int64_t b = 0; b < n; b++) {
            const float *X = x + (b * c + ch) * spatial;
            float *Y = y + (b * c + ch) * spatial;
            for (int64_t i = 0; i < spatial; i++)
                Y[i] = X[i] * inv + add;
        }
    }
}

void kern_rownorm_f32(int64_t rows, int64_t cols, const float *x, const float *scale,
                      const float *bias, int per_row, int64_t channels, float eps, float *y)
{
    for (int64_t r = 0; r < rows; r++) {
        const float *X = x + r * cols;
        float *Y = y + r * cols;
        double mean = 0, var = 0;
        for (int64_t j = 0; j < cols; j++)
            mean += X[j];
        mean /= (double)cols;
        for (int64_t j = 0; j < cols; j++)
            var += (X[j] - mean) * (X[j] - mean);
        var /= (double)cols;
        float inv = (float)(1.0 / sqrt(var + eps));
        for (int64_t j = 0; j < cols; j++) {
            float s = per_row ? scale[r % channels] : scale[j];
            float b = bias ? (per_row ? bias[r % channels] : bias[j]) : 0.0f;
            Y[j] = ((float)(X[j] - mean) * inv) * s + b;
        }
    }
}

void kern_lrn_f32(int64_t n, int64_t c, int64_t spatial, int64_t size, float alpha, float beta,
                  float bias, const float *x, float *y)
{
    int64_t lo_off = (size - 1) / 2, hi_off = size / 2; /* floor and ceil of (size-1)/2 */
    for (int64_t b = 0; b < n; b++)
        for (int64_t ch = 0; ch < c; ch++)
            for (int64_t i = 0; i < spatial; i++) {
                double sq = 0;
                int64_t lo = ch - lo_off < 0 ? 0 : ch - lo_off;
                int64_t hi = ch + hi_off >= c ? c - 1 : ch + hi_off;
                for (int64_t k = lo; k <= hi; k++) {
                    double v = x[(b * c + k) * spatial + i];
                    sq += v * v;
                }
                int64_t at = (b * c + ch) * spatial + i;
                y[at] = (float)(x[at] / pow(bias + alpha / (double)size * sq, beta));
            }
}

/* Index of element i's statistics: its coordinates with the reduced dims dropped. */
static int64_t reduced_index(int rank, const int64_t *shape, const uint8_t *reduce, int64_t i)
{
    int64_t r = 0, mul = 1;
    for (int k = rank - 1; k >= 0; k--) {
        int64_t coord = i % shape[k];
        i /= shape[k];
        if (!reduce[k]) {
            r += coord * mul;
            mul *= shape[k];
        }
    }
    return r;
}

void kern_mvn_f32(int rank, const int64_t *shape, const uint8_t *reduce, const float *x, float *y,
                  double *scratch)
{
    int64_t n = 1, n_keep = 1;
    for (int k = 0; k < rank; k++) {
        n *= shape[k];
        if (!reduce[k])
            n_keep *= shape[k];
    }
    const double count = n_keep ? (double)(n / n_keep) : 1.0;
    double *sum = scratch, *sq = scratch + n_keep;
    for (int64_t j = 0; j < 2 * n_keep; j++)
        scratch[j] = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t r = reduced_index(rank, shape, reduce, i);
        sum[r] += x[i];
        sq[r] += (double)x[i] * x[i];
    }
    for (int64_t j = 0; j < n_keep; j++) {
        double mean = sum[j] / count, var = sq[j] / count - mean * mean;
        sum[j] = mean;
        sq[j] = sqrt(var > 0 ? var : 0) + 1e-9;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t r = reduced_index(rank, shape, reduce, i);
        y[i] = (float)((x[i] - sum[r]) / sq[r]);
    }
}

void kern_channel_stats_f32(int64_t n, int64_t c, int64_t spatial, const float *x, float *mean,
                            float *var)
{
    const double count = (double)(n * spatial);
    for (int64_t ch = 0; ch < c; ch++) {
        double s = 0, v = 0;
        for (int64_t b = 0; b < n; b++)
            for (int64_t i = 0; i < spatial; i++)
                s += x[(b * c + ch) * spatial + i];
        double m = count > 0 ? s / count : 0;
        for (int64_t b = 0; b < n; b++)
            for (int64_t i = 0; i < spatial; i++) {
                double d = x[(b * c + ch) * spatial + i] - m;
                v += d * d;
            }
        mean[ch] = (float)m;
        var[ch] = (float)(count > 0 ? v / count : 0);
    }
}
