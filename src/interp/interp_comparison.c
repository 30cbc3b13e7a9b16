/* Operator group: comparison. (Not written yet: an empty table.) */
#include "interp/interp_internal.h"

const interp_op_entry interp_ops_comparison[] = {
    {TOSA_OP_UNKNOWN, NULL},
};
