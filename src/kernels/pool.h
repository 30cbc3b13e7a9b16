/* Pooling kernels (MaxPool, AveragePool, LpPool; the global forms are a window over the whole
 * input), NC(D)(H)W, 1 to 3 spatial dimensions. */
#ifndef TOSAC_KERNELS_POOL_H
#define TOSAC_KERNELS_POOL_H

#include "kernels/kern.h"

#define KERN_POOL_MAX_SP 3

typedef enum kern_pool_kind { KERN_POOL_MAX, KERN_POOL_AVG, KERN_POOL_LP } kern_pool_kind;

typedef struct kern_pool_params {
    kern_pool_kind kind;
    int nsp;
    int64_t nc;                            /* batch x channels */
    int64_t in[KERN_POOL_MAX_SP], out[KERN_POOL_MAX_SP], k[KERN_POOL_MAX_SP];
    int64_t stride[KERN_POOL_MAX_SP], dil[KERN_POOL_MAX_SP];
    int64_t pad_begin[KERN_POOL_MAX_SP], pad_end[KERN_POOL_MAX_SP];
    int count_include_pad;                 /* AVG: divide by window taps inside in+pads */
    double p;                              /* LP: the norm's order */
    int storage_order;                     /* MAX indices: 1 = column major */
} kern_pool_params;

/* indices (MAX only, may be NULL) receive the flat input index of each maximum, counting
 * batch and channel, as onnxruntime does. An empty window gives -inf (MAX) / NaN (AVG). */
void kern_pool_f32(const kern_pool_params *p, const float *x, float *y, int64_t *indices);
void kern_pool_f64(const kern_pool_params *p, const double *x, double *y, int64_t *indices);
/* MaxPool over 8-bit integers (ONNX allows int8/uint8). */
void kern_maxpool_int(const kern_pool_params *p, tosac_dtype dt, const void *x, void *y);

/* MaxUnpool: y (n_y elements, zeroed here) gets x[i] at flat index idx[i] (as MaxPool's
 * Indices output gives them). Returns -1 on an index outside [0, n_y). */
int kern_max_unpool(size_t elem, int64_t n_x, const void *x, const int64_t *idx, int64_t n_y,
                    void *y);

#endif
