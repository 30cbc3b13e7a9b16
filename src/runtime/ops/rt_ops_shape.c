/* tosac_rt_ops_shape: the shape operator family (cpu_ops_shape.c) for a resolver. */
#include "runtime/rt_ops.h"

RT_OPS_FAMILY(shape)
