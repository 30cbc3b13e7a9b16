/* tosac_rt_ops_pool: the pool operator family (cpu_ops_pool.c) for a resolver. */
#include "runtime/rt_ops.h"

RT_OPS_FAMILY(pool)
