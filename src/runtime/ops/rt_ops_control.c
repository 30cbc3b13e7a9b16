/* tosac_rt_ops_control: the control operator family (cpu_ops_control.c) for a resolver. */
#include "runtime/rt_ops.h"

RT_OPS_FAMILY(control)
