/* Einsum: the equation parsed against the inputs' shapes once, for shape inference
 * (src/ir) and the CPU operator (src/cpu/cpu_ops_linalg.c, which adds the kernel's strides). */
#ifndef TOSAC_ONNXOP_EINSUM_H
#define TOSAC_ONNXOP_EINSUM_H

#include "onnxop/onnxop.h"
#include "tosac/tensor.h"

#define ONNX_EINSUM_MAX_IN 8
/* Label ids: a-z 0..25, A-Z 26..51, ellipsis dim j (of ell_rank) 52 + j. */
#define ONNX_EINSUM_MAX_LABELS (52 + TOSAC_MAX_RANK)

typedef struct onnx_einsum {
    int n_in;
    int ell_rank;                                    /* the broadcast ellipsis rank */
    int labels[ONNX_EINSUM_MAX_IN][TOSAC_MAX_RANK];  /* the label of every input dim */
    int count[ONNX_EINSUM_MAX_LABELS];               /* uses over the inputs */
    int64_t size[ONNX_EINSUM_MAX_LABELS];            /* -1 where unused; ellipsis dims of 1
                                                      * broadcast */
    int n_out;
    int out[TOSAC_MAX_RANK];                         /* the output's labels */
    int64_t y[TOSAC_MAX_RANK];                       /* the output shape */
} onnx_einsum;

/* Parses n's "equation" (spaces ignored) against n_in inputs of the given ranks and shapes:
 * the terms must match the inputs' ranks ("..." standing for the dims its letters leave),
 * a letter has one size (ellipsis dims broadcast right-aligned), the output is explicit
 * after "->" or, implicitly, the ellipsis dims then the letters used once in ASCII order
 * (numpy's). Fails with TOSAC_ERR_INPUT naming the node (an output rank above
 * TOSAC_MAX_RANK: TOSAC_ERR_UNSUPPORTED). */
tosac_code onnx_einsum_of(const ir_node *n, int n_in, const int *ranks,
                          const int64_t *const *shapes, onnx_einsum *e, tosac_error *err);

#endif
