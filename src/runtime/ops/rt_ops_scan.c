/* tosac_rt_ops_scan: the scan operator family (cpu_ops_scan.c) for a resolver. */
#include "runtime/rt_ops.h"

RT_OPS_FAMILY(scan)
