/* NumPy .npy files (format 1.0/2.0/3.0 read, 1.0 written; little-endian, C order).
 * Supported: bool, uint8, int8, uint16, int16, uint32, int32, uint64, int64, float16,
 * float32, float64. Every header field is checked; a bad file is TOSAC_ERR_INPUT. */
#ifndef TOSAC_NPY_H
#define TOSAC_NPY_H

#include "tosac/tensor.h"

tosac_code tosac_npy_read(const char *path, tosac_tensor *out, tosac_error *err);
tosac_code tosac_npy_parse(const void *buf, size_t len, tosac_tensor *out, tosac_error *err);

/* Written atomically: a temporary file renamed into place, nothing left on failure.
 * I48 tensors are written as int64, SHAPE as int64, BF16/FP8 and I4 are not writable. */
tosac_code tosac_npy_write(const char *path, const tosac_tensor *t, tosac_error *err);

#endif
