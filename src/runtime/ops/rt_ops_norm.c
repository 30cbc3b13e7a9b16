/* tosac_rt_ops_norm: the norm operator family (cpu_ops_norm.c) for a resolver. */
#include "runtime/rt_ops.h"

RT_OPS_FAMILY(norm)
