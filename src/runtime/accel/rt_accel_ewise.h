/* What the other families take from the ewise family (rt_accel_ewise.c). */
#ifndef TOSAC_RT_ACCEL_EWISE_H
#define TOSAC_RT_ACCEL_EWISE_H

#include "runtime/accel/rt_accel_group.h"
#include "ukernels/ewise.h"

/* The RESCALE operator op's parameters when the ewise kernels compute exactly what the
 * reference does and every static ERROR_IF / REQUIRE of the reference holds (constant
 * multiplier, shift and zero points; signed in and out); else false. Allocates the channel
 * arrays from the runtime's state. */
bool rt_accel_rescale_params(rt_accel_block *ab, int op, ukr_rescale *p);

#endif
