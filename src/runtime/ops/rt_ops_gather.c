/* tosac_rt_ops_gather: the gather operator family (cpu_ops_gather.c) for a resolver. */
#include "runtime/rt_ops.h"

RT_OPS_FAMILY(gather)
