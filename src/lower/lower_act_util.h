/* Emit helpers for the activation, table, softmax, quantization and normalization rules.
 *
 * Each returns the output tensor (a new intermediate shaped like the inputs' broadcast, or
 * `out` when out >= 0), or -1 with c->err set. An input of -1 gives -1 without emitting, so a
 * chain of calls needs a single check at its end. */
#ifndef TOSAC_LOWER_ACT_UTIL_H
#define TOSAC_LOWER_ACT_UTIL_H

#include "lower/lower.h"

/* "<op>: <reason>" as TOSAC_ERR_UNSUPPORTED. */
tosac_code la_unsupported(lower_ctx *c, const ir_node *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The code to return after a helper gave -1. */
tosac_code la_code(const lower_ctx *c);

/* A constant of the given rank with every dimension 1 holding v as dt (f32, f16, bf16, or
 * an integer type v fits). */
int la_const(lower_ctx *c, const char *prefix, tosac_dtype dt, int rank, double v);
/* Same rank as t, same dtype: the scalar v broadcastable against t. */
int la_like(lower_ctx *c, int t, double v);

/* Elementwise operators (dtype of the first operand unless out_dt is given). MUL gets shift
 * 0; MAXIMUM/MINIMUM/CLAMP/REDUCE_MAX nan_mode PROPAGATE. */
int la_unary(lower_ctx *c, tosa_op op, int a, int out);
int la_binary(lower_ctx *c, tosa_op op, int a, int b, int out);
int la_compare(lower_ctx *c, tosa_op op, int a, int b);   /* -> bool */
int la_select(lower_ctx *c, int cond, int a, int b, int out);
int la_cast(lower_ctx *c, int a, tosac_dtype dt, int out);
/* i32 x i32 MUL whose product is shifted right by `shift` with rounding. */
int la_mul_shift(lower_ctx *c, int a, int b, int shift, int out);
/* CLAMP to [lo, hi] (integers for i8/i16, floats otherwise). */
int la_clamp(lower_ctx *c, int a, double lo, double hi, int out);
/* REDUCE_* over one axis (the axis keeps size 1). */
int la_reduce(lower_ctx *c, tosa_op op, int a, int axis, int out);
/* RESCALE by one scale. */
int la_rescale(lower_ctx *c, int t, double scale, int64_t in_zp, int64_t out_zp,
               tosac_dtype dt, int out);

/* Per-tensor int8/int16 quantization of an IR tensor, checked (UNSUPPORTED otherwise). */
tosac_code la_check_quant(lower_ctx *c, const ir_node *n, const ir_tensor *t);
/* The integer range of a quantized dtype. */
void la_qrange(tosac_dtype dt, int64_t *lo, int64_t *hi);
/* Float value of a constant scalar input slot (any float or integer dtype). */
bool la_const_scalar(const lower_ctx *c, const ir_node *n, int slot, double *v);

#endif
