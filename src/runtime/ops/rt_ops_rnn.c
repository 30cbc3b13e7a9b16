/* tosac_rt_ops_rnn: the rnn operator family (cpu_ops_rnn.c) for a resolver. */
#include "runtime/rt_ops.h"

RT_OPS_FAMILY(rnn)
