/* Portable CPU kernels: shared conventions.
 *
 * A kernel is a plain function over typed (or dtype-tagged) pointers plus a small params
 * struct. Kernels never allocate: any scratch is passed in by the caller, sized by a
 * companion *_scratch() function where one is needed. Shapes and attributes are validated
 * by the caller (the executor in src/cpu/); a kernel only reports what it alone can see
 * (integer division by zero, an index out of range in the data) through its return value.
 *
 * Element storage follows tosac/dtype.h. Float kernels come in f32 (and f64 where ONNX
 * needs it); f16/bf16 are computed by the executor through f32, as onnxruntime does for
 * most operators. */
#ifndef TOSAC_KERNELS_KERN_H
#define TOSAC_KERNELS_KERN_H

#include <stdint.h>
#include <stddef.h>

#include "tosac/dtype.h"
#include "tosac/tensor.h"
#include "util/elem.h"

/* Element i of a numeric array as double / int64 (bool 0/1; f16/bf16/fp8 decoded; floats as
 * int64 truncated and saturated, NaN 0): the one element reader, util/elem.h. */
static inline double kern_get_f64(tosac_dtype dt, const void *p, int64_t i)
{
    return tosac_elem_f64(dt, p, i);
}
static inline int64_t kern_get_i64(tosac_dtype dt, const void *p, int64_t i)
{
    return tosac_elem_i64(dt, p, i);
}
/* Write v into element i, converting as a C cast would (floats rounded to nearest even
 * for f16/bf16; integers wrap like the ONNX reference's numpy astype). */
void kern_set_f64(tosac_dtype dt, void *p, int64_t i, double v);
void kern_set_i64(tosac_dtype dt, void *p, int64_t i, int64_t v);

/* Row-major element strides of a shape. */
void kern_strides(int rank, const int64_t *shape, int64_t *strides);

/* Copies an N-d view of src to a contiguous dst: element (i0..ir-1) is read at
 * src + elem * (offset + sum i_k * stride_k). Strides may be 0 (broadcast) or negative
 * (reversed slices). Transpose, Slice, Expand, Tile and Concat pieces all reduce to this. */
void kern_strided_copy(size_t elem, int rank, const int64_t *shape, const int64_t *stride,
                       int64_t offset, const void *src, void *dst);

/* NumPy broadcasting of up to 3 operands into one output shape. */
#define KERN_BCAST_MAX_IN 3
typedef struct kern_bcast {
    int rank;
    int n_in;
    int64_t shape[TOSAC_MAX_RANK];                       /* output shape */
    int64_t stride[KERN_BCAST_MAX_IN][TOSAC_MAX_RANK];   /* 0 where an operand broadcasts */
    int64_t numel;
} kern_bcast;

/* Returns 0, or -1 when the shapes do not broadcast (the caller reports it). */
int kern_bcast_init(kern_bcast *b, int n_in, const int *ranks, const int64_t *const *shapes);

/* The one broadcast row walker (the kernels and the interpreter's elementwise groups): the
 * output in order as contiguous runs over the merged innermost dimensions (size-1 dims
 * dropped, dims every operand steps through as one merged). Each run has n elements; operand
 * k's first element is off[k] and it advances by inner[k] (0: broadcast along the run, or
 * 1); out_off is the run's first output element. Usage:
 *     kern_bcast_rows r; kern_bcast_rows_init(&r, &b); while (kern_bcast_rows_next(&r)) ...
 * The walk never changes the element order, so results do not depend on the merging. */
typedef struct kern_bcast_rows {
    kern_bcast b;                       /* the merged iteration space */
    int64_t idx[TOSAC_MAX_RANK];
    int64_t n;
    int64_t off[KERN_BCAST_MAX_IN], inner[KERN_BCAST_MAX_IN];
    int64_t out_off;
    int started, done;
} kern_bcast_rows;
void kern_bcast_rows_init(kern_bcast_rows *r, const kern_bcast *b);
/* Moves to the next run; 0 when the output is done. */
int kern_bcast_rows_next(kern_bcast_rows *r);

/* The same walk calling fn on every run:
 * fn(ctx, n, off[0..n_in-1], inner_stride[0..n_in-1], out_offset). */
typedef void (*kern_bcast_run_fn)(void *ctx, int64_t n, const int64_t *off, const int64_t *inner,
                                  int64_t out_off);
void kern_bcast_each(const kern_bcast *b, kern_bcast_run_fn fn, void *ctx);

#endif
