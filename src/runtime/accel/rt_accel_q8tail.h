/* What the int8 convolution families (depthwise, transpose) share: their operands' static
 * checks, the requantizing tail after them (RESCALE i32 -> i8, scale32, input zero point 0,
 * signed, and optionally the CLAMP i8 after it) matched and checked once and turned into the
 * per-channel q8_requant of src/ukernels/dwconv.h, and installing the fused group. */
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

/* The operands of an int8 convolution: input and weight i8, output i32, all rank 4, 5 inputs,
 * acc_type i32, weight, bias and zero points constant (zero points i8 of shape [1]). */
typedef struct q8_conv {
    const tosac_tensor *in, *w, *bias, *out;
    int8_t izp, wzp;
} q8_conv;
int q8_conv_operands(rt_accel_block *ab, const tosa_operator *o, q8_conv *c);

/* The number of tasks rows are split into: 1 without a pool, else a few per thread. */
int q8_n_tasks(const rt_accel_block *ab, int64_t rows);

/* Runs task over n_tasks (rt_accel_parallel) with bad[thread] (n_threads flags) cleared
 * first; fails the operator when a task set one (a value broke the RESCALE REQUIRE, as the
 * reference would report). */
tosac_code q8_run(interp_ctx *c, const rt_accel_shared *sh, int n_tasks, tosac_rt_task task,
                  void *ctx, int *bad);

/* Installs fn for the group op + tail (reading op's input 0, staged in op's output); *dst is
 * where fn writes the result. Returns 1 when installed. */
int q8_install(rt_accel_block *ab, int op, const q8_tail *t, interp_op_fn fn, void *data,
               void **dst);

#endif
