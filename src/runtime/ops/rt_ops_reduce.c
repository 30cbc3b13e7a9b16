/* tosac_rt_ops_reduce: the reduce operator family (cpu_ops_reduce.c) for a resolver. */
#include "runtime/rt_ops.h"

RT_OPS_FAMILY(reduce)
