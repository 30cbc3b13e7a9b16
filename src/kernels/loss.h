/* Loss kernels: NegativeLogLikelihoodLoss (SoftmaxCrossEntropyLoss is LogSoftmax + this). */
#ifndef TOSAC_KERNELS_LOSS_H
#define TOSAC_KERNELS_LOSS_H

#include "kernels/kern.h"

typedef enum kern_reduction { KERN_REDUCE_NONE, KERN_REDUCE_SUM, KERN_REDUCE_MEAN } kern_reduction;

/* x is [n, c, d] (d = product of the extra dims), target [n, d] class indices, weight [c] or
 * NULL. loss = -x[n, target, d] * weight[target], 0 where target == ignore_index (when
 * has_ignore). y is [n, d] for NONE, one value otherwise (MEAN divides by the total weight of
 * the counted targets). Returns -1 if a target is outside [0, c) and not ignored. */
int kern_nll_loss(tosac_dtype dt, int64_t n, int64_t c, int64_t d, const void *x,
                  const int64_t *target, const void *weight, int has_ignore, int64_t ignore_index,
                  kern_reduction red, void *y);

#endif
