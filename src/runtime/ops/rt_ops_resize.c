/* tosac_rt_ops_resize: the resize operator family (cpu_ops_resize.c) for a resolver. */
#include "runtime/rt_ops.h"

RT_OPS_FAMILY(resize)
