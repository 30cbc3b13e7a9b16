/* MatMul, MatMulInteger, QLinearMatMul: numpy matmul shapes (1-D operands promoted and the
 * added dim removed again, batch dims broadcast), for shape inference and the CPU operators. */
#ifndef TOSAC_ONNXOP_MATMUL_H
#define TOSAC_ONNXOP_MATMUL_H

#include "onnxop/onnxop.h"
#include "tosac/tensor.h"

typedef struct onnx_matmul_dims {
    int64_t m, k, n;                 /* each output matrix is [m, n], inner size k */
    int nb;                          /* batch dims (broadcast, left-aligned to the output) */
    int64_t batch[TOSAC_MAX_RANK];
    int64_t a_batch[TOSAC_MAX_RANK], b_batch[TOSAC_MAX_RANK]; /* each operand's (1: broadcast) */
    int yrank;
    int64_t y[TOSAC_MAX_RANK];       /* the output shape */
} onnx_matmul_dims;

/* The product's dims of a [ar] x b [br]; fails with TOSAC_ERR_INPUT naming the node. */
tosac_code onnx_matmul_dims_of(const ir_node *n, int ar, const int64_t *as, int br,
                               const int64_t *bs, onnx_matmul_dims *d, tosac_error *err);

#endif
