/* Quantization kernels: QuantizeLinear / DequantizeLinear (per tensor or per axis),
 * DynamicQuantizeLinear parameters, and the requantization of int32 accumulators used by
 * QLinearConv / QLinearMatMul. */
#ifndef TOSAC_KERNELS_QUANT_H
#define TOSAC_KERNELS_QUANT_H

#include "kernels/kern.h"

/* x is [outer, n, inner]; scale and zp have n entries (n = 1 for per-tensor; zp may be NULL
 * meaning 0, read as zp_dt). y = saturate(round_half_even(x / scale) + zp) in qdt (u8, i8,
 * u16, i16, i32, u32, i4, u4 as unpacked bytes). */
void kern_quantize_f32(int64_t outer, int64_t n, int64_t inner, const float *x, const float *scale,
                       tosac_dtype qdt, const void *zp, void *y);
/* y = (x - zp) * scale in f32, x of qdt. */
void kern_dequantize_f32(int64_t outer, int64_t n, int64_t inner, tosac_dtype qdt, const void *x,
                         const float *scale, const void *zp, float *y);

/* Requantizes int32 accumulators: y = saturate(round_half_even(acc * mult[c]) + zp) with c
 * the channel of [outer, n, inner] (n = 1 per tensor). */
void kern_requantize(int64_t outer, int64_t n, int64_t inner, const int32_t *acc,
                     const float *mult, tosac_dtype qdt, int32_t zp, void *y);

/* Range of a quantized type (i4/u4 read from dt's bits). */
void kern_qrange(tosac_dtype qdt, int64_t *lo, int64_t *hi);

/* DynamicQuantizeLinear: uint8 scale and zero point for x's range (extended to include 0). */
void kern_dynamic_qparams(int64_t n, const float *x, float *scale, uint8_t *zp);

/* Cast between any two numeric types of dtype.h (float to int truncates; out-of-range and
 * NaN saturate instead of being undefined). */
void kern_cast(tosac_dtype from, tosac_dtype to, int64_t n, const void *x, void *y);

#endif
