/* Softmax family and normalisations: Softmax, LogSoftmax, Hardmax, BatchNormalization
 * (inference), InstanceNormalization, LayerNormalization, LRN. */
#ifndef TOSAC_KERNELS_SOFTMAX_H
#define TOSAC_KERNELS_SOFTMAX_H

#include "kernels/kern.h"

typedef enum kern_softmax_kind { KERN_SOFTMAX, KERN_LOGSOFTMAX, KERN_HARDMAX } kern_softmax_kind;

/* Along the middle axis of x viewed as [outer, n, inner]. f32 and f64. */
void kern_softmax(kern_softmax_kind kind, tosac_dtype dt, int64_t outer, int64_t n, int64_t inner,
                  const void *x, void *y);

/* y = (x - mean[c]) / sqrt(var[c] + eps) * scale[c] + bias[c] over [n, c, spatial]. */
void kern_batchnorm_f32(int64_t n, int64_t c, int64_t spatial, const float *x, const float *scale,
                        const float *bias, const float *mean, const float *var, float eps,
                        float *y);

/* Normalises each row of [rows, cols]: (x - mean) / sqrt(var + eps), then times scale[j or
 * channel] plus bias. InstanceNorm: rows = n*c, per-row scale index (row % c), per_row=1;
 * LayerNorm: scale/bias indexed by column (broadcast done by the caller into a full row of
 * cols), per_row=0. bias may be NULL. */
void kern_rownorm_f32(int64_t rows, int64_t cols, const float *x, const float *scale,
                      const float *bias, int per_row, int64_t channels, float eps, float *y);

/* LRN across channels of [n, c, spatial]. */
void kern_lrn_f32(int64_t n, int64_t c, int64_t spatial, int64_t size, float alpha, float beta,
                  float bias, const float *x, float *y);

/* MeanVarianceNormalization: (x - mean) / (sqrt(E[x^2] - mean^2) + 1e-9) with the statistics
 * taken over the dims where reduce[k] is set (the ONNX function's definition). scratch holds
 * 2 * (element count of the reduced shape) doubles. */
void kern_mvn_f32(int rank, const int64_t *shape, const uint8_t *reduce, const float *x, float *y,
                  double *scratch);

/* Per-channel population mean and variance of x [n, c, spatial] (BatchNormalization
 * training mode). */
void kern_channel_stats_f32(int64_t n, int64_t c, int64_t spatial, const float *x, float *mean,
                            float *var);

#endif
