/* tosac_rt_ops_unary: the unary operator family (cpu_ops_unary.c) for a resolver. */
#include "runtime/rt_ops.h"

RT_OPS_FAMILY(unary)
