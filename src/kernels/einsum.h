/* Einsum over a parsed equation: every distinct label (letters, and one per ellipsis dim) has
 * a size; each operand reads label l at an element stride (0 where it lacks the label or
 * broadcasts it; a label repeated in one operand, a diagonal, adds its strides). The output
 * labels come first: for each output element the product of the operands is summed over all
 * values of the remaining (contracted) labels, in double (int64 for integers). */
#ifndef TOSAC_KERNELS_EINSUM_H
#define TOSAC_KERNELS_EINSUM_H

#include "kernels/kern.h"

#define KERN_EINSUM_MAX_IN 8
#define KERN_EINSUM_MAX_LABELS (52 + TOSAC_MAX_RANK)

typedef struct kern_einsum_params {
    int n_in, n_labels, n_out_labels;
    int64_t size[KERN_EINSUM_MAX_LABELS];
    int64_t in_stride[KERN_EINSUM_MAX_IN][KERN_EINSUM_MAX_LABELS];
} kern_einsum_params;

/* in[k] and out have element type dt (F32, F64, I32, I64, ...); out is C-order over the
 * output labels in order. */
void kern_einsum(const kern_einsum_params *p, tosac_dtype dt, const void *const *in, void *out);

#endif
