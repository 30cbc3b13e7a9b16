/* What the a16w8 MATMUL family takes from the a16w8 convolution family (rt_accel_conv16.c). */
#ifndef TOSAC_RT_ACCEL_CONV16_H
#define TOSAC_RT_ACCEL_CONV16_H

#include "runtime/accel/rt_accel.h"
#include "ukernels/conv16.h"

/* The tail fused after an i48 producer op (its one output): the RESCALE i48 -> i8/i16
 * (apply_scale_16, 1 or OC channels) that is its sole reader and next operator, and a CLAMP
 * after that when there is one. Fills p->rs, p->lo, p->hi and ops[0..n) (the RESCALE, then
 * the CLAMP or -1); returns n (1 or 2), or 0 when no such tail can be fused. */
int rt_accel_tail16(rt_accel_block *ab, int op, int64_t OC, ukr_conv16 *p, int ops[2]);

#endif
