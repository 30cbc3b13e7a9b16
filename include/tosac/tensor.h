/* A host tensor: dtype, static shape, contiguous C-order data in the in-memory
 * representation of dtype.h. Used for npy I/O, interpreter inputs/outputs and runtime I/O.
 * Plain data by design: a value the caller fills or reads directly (dtype, shape, data). */
#ifndef TOSAC_TENSOR_H
#define TOSAC_TENSOR_H

#include "tosac/limits.h"
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "tosac/dtype.h"
#include "tosac/error.h"

#define TOSAC_MAX_RANK 8

typedef struct tosac_tensor {
    tosac_dtype dtype;
    int rank;
    int64_t shape[TOSAC_MAX_RANK];
    void *data;
    size_t nbytes;
    int owns_data; /* tosac_tensor_free releases data only when set */
} tosac_tensor;

/* Element count; 1 for rank 0. Assumes a validated shape. */
int64_t tosac_shape_numel(int rank, const int64_t *shape);
int64_t tosac_tensor_numel(const tosac_tensor *t);

/* Element count and byte size of a shape with overflow and limit checks
 * (every dim >= 0, total bytes <= TOSAC_MAX_TENSOR_BYTES). */
#define TOSAC_MAX_TENSOR_BYTES_64 ((uint64_t)TOSAC_LIMIT_TENSOR_BYTES)
/* 16 GiB, or half the address space where size_t is 32-bit (Cortex-M). */
#define TOSAC_MAX_TENSOR_BYTES                                                                 \
    (SIZE_MAX / 2 < TOSAC_MAX_TENSOR_BYTES_64 ? (uint64_t)(SIZE_MAX / 2) : TOSAC_MAX_TENSOR_BYTES_64)
tosac_code tosac_shape_check(tosac_dtype dt, int rank, const int64_t *shape,
                             size_t *nbytes_out, tosac_error *err);

/* t becomes a description of (dt, rank, shape) with no data: zeroed, then dtype, rank, shape
 * and nbytes set after tosac_shape_check (allocation-free; the runtime uses it too). */
tosac_code tosac_tensor_describe(tosac_tensor *t, tosac_dtype dt, int rank, const int64_t *shape,
                                 tosac_error *err);
/* Allocate zeroed data for (dt, rank, shape); t is overwritten. */
tosac_code tosac_tensor_alloc(tosac_tensor *t, tosac_dtype dt, int rank, const int64_t *shape,
                              tosac_error *err);
void tosac_tensor_free(tosac_tensor *t);

/* Same rank and dims. */
bool tosac_shape_equal(int rank_a, const int64_t *a, int rank_b, const int64_t *b);

/* Element i of any numeric tensor: integers (I4..U64, BOOL, I48, SHAPE) exactly as int64
 * (U64 wraps), floats (F16, BF16, F32, F64, FP8) truncated toward zero and saturated (NaN
 * gives 0, +-inf and values beyond int64 give INT64_MAX / INT64_MIN); the value as a double
 * for every numeric dtype (U64 unsigned). Other dtypes give 0. For reading constants and
 * results, not for hot loops. */
int64_t tosac_tensor_int_at(const tosac_tensor *t, int64_t i);
double tosac_tensor_f64_at(const tosac_tensor *t, int64_t i);

/* "[1,3,224,224]" into buf. */
const char *tosac_shape_str(int rank, const int64_t *shape, char *buf, size_t len);

#endif
