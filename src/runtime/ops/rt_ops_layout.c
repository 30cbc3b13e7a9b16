/* tosac_rt_ops_layout: the layout operator family (cpu_ops_layout.c) for a resolver. */
#include "runtime/rt_ops.h"

RT_OPS_FAMILY(layout)
