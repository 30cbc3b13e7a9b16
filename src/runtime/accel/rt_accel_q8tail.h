/* The requantizing tail of an int32-accumulating operator: RESCALE i32 -> i8 (scale32, input
 * zero point 0, signed) and optionally the CLAMP i8 after it, matched and checked once and
 * turned into the per-channel q8_requant of src/ukernels/dwconv.h (used by the depthwise and
 * transpose convolution families). */
#ifndef TOSAC_RT_ACCEL_Q8TAIL_H
#define TOSAC_RT_ACCEL_Q8TAIL_H

#include "runtime/accel/rt_accel.h"
#include "ukernels/dwconv.h"

typedef struct q8_tail {
    int ops[2];       /* RESCALE, then CLAMP or -1 */
    int n_ops;
    int final;        /* the tensor the tail writes (the group's result) */
} q8_tail;

/* Matches the tail reading tensor acc (int32, its last dim C) of operator `op`: the RESCALE
 * must be acc's only reader and the next operator, with every parameter constant and inside
 * what apply_scale_32 accepts for every value (multiplier >= 0, shift 2..62; the value REQUIRE
 * is data-dependent and left to the kernel). bias ([BC], BC == C or 1, int32) goes into q.
 * Returns 1 and fills t and q (arrays from the prepared state), 0 to decline. */
int q8_tail_match(rt_accel_block *ab, int op, int acc, int C, const tosac_tensor *bias,
                  q8_tail *t, q8_requant *q);

#endif
