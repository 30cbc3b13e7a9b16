/* Operator group: reduction. (Not written yet: an empty table.) */
#include "interp/interp_internal.h"

const interp_op_entry interp_ops_reduction[] = {
    {TOSA_OP_UNKNOWN, NULL},
};
