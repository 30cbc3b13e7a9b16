/* Emit helpers for the activation, table, softmax, quantization and normalization rules, on
 * top of lower_extra.h.
 *
 * Each returns the output tensor (a new intermediate shaped like the inputs' broadcast, or
 * `out` when out >= 0), or -1 with c->err set. An input of -1 gives -1 without emitting, so a
 * chain of calls needs a single check at its end. */
#ifndef TOSAC_LOWER_ACT_UTIL_H
#define TOSAC_LOWER_ACT_UTIL_H

#include "lower/lower_extra.h"

/* Same rank as t, same dtype: the scalar v broadcastable against t. */
int la_like(lower_ctx *c, int t, double v);

/* lx_unary / lx_binary with the first operand's dtype (comparisons: bool); CLAMP and
 * REDUCE_MAX get nan_mode PROPAGATE. */
int la_unary(lower_ctx *c, tosa_op op, int a, int out);
int la_binary(lower_ctx *c, tosa_op op, int a, int b, int out);
int la_compare(lower_ctx *c, tosa_op op, int a, int b);   /* -> bool */
/* CLAMP to [lo, hi] (integers for i8/i16, floats otherwise). */
int la_clamp(lower_ctx *c, int a, double lo, double hi, int out);
/* REDUCE_* over one axis (the axis keeps size 1). */
int la_reduce(lower_ctx *c, tosa_op op, int a, int axis, int out);

/* The integer range of a quantized dtype. */
void la_qrange(tosac_dtype dt, int64_t *lo, int64_t *hi);
/* Float value of a constant scalar input slot (any float or integer dtype). */
bool la_const_scalar(const lower_ctx *c, const ir_node *n, int slot, double *v);

#endif
