/* The one element reader: element i of a dtype-tagged array as int64 or double, defined for
 * every input (runtime library: no allocation, no stdio). tosac_tensor_int_at/_f64_at
 * (tosac/tensor.h), the kernels' kern_get_* (kernels/kern.h) and the interpreter's
 * interp_get_int/_float (interp_internal.h) all read through it.
 *
 * Integers (BOOL, U8, I4 (one per byte), I8, U16, I16, U32, I32, I48 and SHAPE (as int64),
 * I64) are read exactly; U64 as int64 wraps like a two's complement reinterpretation (numpy's
 * astype), as a double it is the unsigned value. Floats (F16, BF16, F32, F64, FP8 E4M3/E5M2)
 * are decoded; as int64 they are truncated toward zero and saturate: NaN -> 0, values at or
 * beyond +-2^63 (infinities included) -> INT64_MAX / INT64_MIN. Other dtypes (packed FP6/FP4,
 * MXINT8, UNKNOWN) read as 0. */
#ifndef TOSAC_UTIL_ELEM_H
#define TOSAC_UTIL_ELEM_H

#include <stdbool.h>
#include <stdint.h>

#include "tosac/dtype.h"

/* The dtypes read exactly as integers / decoded as floats (the others read as 0). */
bool tosac_elem_reads_int(tosac_dtype dt);
bool tosac_elem_reads_float(tosac_dtype dt);

int64_t tosac_elem_i64(tosac_dtype dt, const void *p, int64_t i);
double tosac_elem_f64(tosac_dtype dt, const void *p, int64_t i);

/* v truncated toward zero, saturated to int64 (NaN -> 0): C's cast without its undefined
 * behaviour for NaN and out-of-range values. */
int64_t tosac_f64_to_i64_sat(double v);

#endif
