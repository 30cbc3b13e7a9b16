/* TABLE lowering: lookup tables for non-linear functions in the integer domain.
 *
 * int8 input: a 256-entry int8 table, entry i for input value i - 128, result int8.
 * int16 input: a 513-entry int16 table, entry j for input value -32768 + 128 j; TABLE
 * interpolates linearly between neighbouring entries and returns int32 with 7 fractional
 * bits, so a RESCALE by 2^-7 (times 2^shift when the entries had to be scaled down to keep
 * neighbouring differences in int16, as the spec requires) brings it to the output. */
#ifndef TOSAC_LOWER_TABLE_H
#define TOSAC_LOWER_TABLE_H

#include "lower/lower.h"

/* A real function for the quantized path (arg is passed through). */
typedef double (*lower_table_fn)(double x, const void *arg);

/* The wanted output for table input value v, in output integer units before rounding and
 * before the zero point is added. */
typedef double (*lower_table_raw_fn)(int64_t v, const void *arg);

typedef struct lower_table_spec {
    lower_table_raw_fn raw;
    const void *arg;
    int64_t zp;            /* added after rounding (half to even), as QuantizeLinear does */
    int64_t lo, hi;        /* clamp of the rounded value (NaN gives lo) */
} lower_table_spec;

/* tab[i] = clamp(round(raw(i - 128)) + zp). */
void lower_table_values_i8(const lower_table_spec *s, int8_t tab[256]);
/* tab[j] = clamp(round(raw(-32768 + 128 j) - c_j) + zp) >> shift (rounded), where c_j is half
 * the error linear interpolation makes at the middle of segment j (so the worst error of the
 * interpolated curve is about halved), with the smallest
 * shift that keeps every entry and every neighbouring difference in int16. */
void lower_table_values_i16(const lower_table_spec *s, int16_t tab[513], int *shift);

/* TABLE of block tensor t (i8 -> i8, i16 -> i32) with the given entries (256 int8 or 513
 * int16 values); returns the output tensor (out when >= 0) or -1. */
int lower_table_emit(lower_ctx *c, int t, const void *tab, int out);

/* A quantized real function: y = f((x - zp_in) * s_in) quantized to (s_out, zp_out). */
typedef struct lower_qfunc {
    lower_table_fn f;
    const void *arg;
    double s_in, s_out;
    int64_t zp_in, zp_out;
} lower_qfunc;

/* f applied to quantized tensor t into out_dt (int8 input: int8 output only; int16 input:
 * int8 or int16 output): TABLE, plus the RESCALE for int16. Returns the output or -1. */
int lower_table_quantized(lower_ctx *c, int t, const lower_qfunc *q, tosac_dtype out_dt,
                          int out);

/* A whole quantized unary node: input 0 and output 0 quantized per tensor (int8 -> int8,
 * int16 -> int8/int16), y_q = quantize(f(dequantize(x_q))). TOSAC_ERR_UNSUPPORTED with a
 * reason otherwise (e.g. float tensors: the caller handles those). */
tosac_code lower_table_unary(lower_ctx *c, const ir_node *n, lower_table_fn f, const void *arg);

#endif
