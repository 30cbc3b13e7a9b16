/* Matching host tensors read from .npy files to a graph's declared element types, for the
 * callers that bind files to graph inputs (tosac run, the conformance runner). NumPy has no
 * int48, int4, bfloat16 or fp8 and no shape type, so those arrive in a wider or sibling
 * type; signed/unsigned data of the same width is the same bits (TOSA RESCALE stores
 * unsigned data in signed tensors). Implemented in src/interp_host/interp_io.c (it
 * allocates: compiler side). */
#ifndef TOSAC_INTERP_IO_H
#define TOSAC_INTERP_IO_H

#include "tosac/tensor.h"

/* Converts or retags t in place to dtype want. Accepted: the same dtype; int64 for I48
 * (values in int48 range) and SHAPE; int8 for I4 (values in -8..7); an integer type of the
 * same width (bits kept); float32 for BF16 / FP8 (rounded to nearest even). Otherwise
 * TOSAC_ERR_INPUT naming `what` and both types. */
tosac_code interp_adapt_tensor(tosac_tensor *t, tosac_dtype want, const char *what,
                               tosac_error *err);

/* The dtype an output of type dt is written to .npy as (I4 -> I8, BF16/FP8 -> F32; others
 * as they are, tosac_npy_write widens I48/SHAPE itself), and the conversion into a fresh
 * tensor `out` (a plain copy when the type stays). */
tosac_dtype interp_npy_dtype(tosac_dtype dt);
tosac_code interp_to_npy_tensor(const tosac_tensor *t, tosac_tensor *out, tosac_error *err);

#endif
