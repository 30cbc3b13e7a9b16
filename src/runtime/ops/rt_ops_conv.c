/* tosac_rt_ops_conv: the conv operator family (cpu_ops_conv.c) for a resolver. */
#include "runtime/rt_ops.h"

RT_OPS_FAMILY(conv)
