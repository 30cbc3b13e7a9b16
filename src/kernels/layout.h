/* Data movement kernels that are not plain strided copies (see kern_strided_copy for
 * Transpose, Slice, Expand, Tile, Concat, Split): Pad, Gather*, Scatter*, Where, Trilu.
 * They move elements of any type by size; indices are int64 already normalised by the
 * caller unless stated otherwise. */
#ifndef TOSAC_KERNELS_LAYOUT_H
#define TOSAC_KERNELS_LAYOUT_H

#include "kernels/kern.h"

typedef enum kern_pad_mode { KERN_PAD_CONSTANT, KERN_PAD_REFLECT, KERN_PAD_EDGE, KERN_PAD_WRAP } kern_pad_mode;

/* y has shape in[k] + before[k] + after[k] (pads may be negative: cropping). value points at
 * one element used for CONSTANT. REFLECT needs in[k] >= 2 where it pads (checked by caller). */
void kern_pad(size_t elem, int rank, const int64_t *in_shape, const int64_t *before,
              const int64_t *after, kern_pad_mode mode, const void *value, const void *x, void *y);

/* Gather along axis: x is [outer, n, inner], idx has n_idx entries (may be negative: wrapped
 * by +n). y is [outer, n_idx, inner]. Returns -1 if an index is out of [-n, n). */
int kern_gather(size_t elem, int64_t outer, int64_t n, int64_t inner, const int64_t *idx,
                int64_t n_idx, const void *x, void *y);

/* GatherElements / ScatterElements along axis over rank-r tensors: idx has shape ishape;
 * x (data) has shape xshape. Returns -1 on an out-of-range index.
 * Scatter: y must already hold a copy of data; reduction 0 none, 1 add, 2 mul, 3 max, 4 min. */
int kern_gather_elements(size_t elem, int rank, const int64_t *xshape, const int64_t *ishape,
                         int axis, const int64_t *idx, const void *x, void *y);
int kern_scatter_elements(tosac_dtype dt, int rank, const int64_t *yshape, const int64_t *ishape,
                          int axis, const int64_t *idx, const void *upd, int reduction, void *y);

/* GatherND: x rank r, idx [..., q] with the last dim m = index depth, batch_dims b.
 * slice = elements of x after the first b+m dims. Returns -1 on a bad index. */
int kern_gather_nd(size_t elem, int rank, const int64_t *xshape, int64_t n_batch, int64_t n_per_batch,
                   int m, int batch_dims, const int64_t *idx, const void *x, void *y);
/* ScatterND: y holds a copy of data; idx [n_upd, m]; each update is a slice. */
int kern_scatter_nd(tosac_dtype dt, int rank, const int64_t *yshape, int64_t n_upd, int m,
                    const int64_t *idx, const void *upd, int reduction, void *y);

/* Where: y = cond ? a : b with broadcasting (3 operands: cond, a, b). */
void kern_where(size_t elem, const kern_bcast *b, const uint8_t *cond, const void *a,
                const void *bv, void *y);

/* Trilu on the last two dims [batch, rows, cols]: keep j - i >= k (upper) or <= k (lower). */
void kern_trilu(size_t elem, int64_t batch, int64_t rows, int64_t cols, int64_t k, int upper,
                const void *x, void *y);

/* ReverseSequence over x viewed as [d0, d1, inner] where the batch axis is 0 or 1 and the
 * time axis the other one: the first lens[b] time steps of batch b are reversed, the rest
 * copied. Returns -1 (nothing written) if a length is outside [0, time steps]. */
int kern_reverse_sequence(size_t elem, int64_t d0, int64_t d1, int64_t inner, int batch_axis,
                          const int64_t *lens, const void *x, void *y);

#endif
