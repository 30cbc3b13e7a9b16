/* tosac_rt_ops_quant: the quant operator family (cpu_ops_quant.c) for a resolver. */
#include "runtime/rt_ops.h"

RT_OPS_FAMILY(quant)
