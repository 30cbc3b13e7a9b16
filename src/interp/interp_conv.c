/* Operator group: conv. (Not written yet: an empty table.) */
#include "interp/interp_internal.h"

const interp_op_entry interp_ops_conv[] = {
    {TOSA_OP_UNKNOWN, NULL},
};
