/* tosac_rt_ops_elementwise: the elementwise operator family (cpu_ops_elementwise.c) for a resolver. */
#include "runtime/rt_ops.h"

RT_OPS_FAMILY(elementwise)
