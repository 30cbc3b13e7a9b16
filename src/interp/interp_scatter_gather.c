/* Operator group: scatter_gather. (Not written yet: an empty table.) */
#include "interp/interp_internal.h"

const interp_op_entry interp_ops_scatter_gather[] = {
    {TOSA_OP_UNKNOWN, NULL},
};
