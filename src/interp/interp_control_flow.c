/* Operator group: control_flow. (Not written yet: an empty table.) */
#include "interp/interp_internal.h"

const interp_op_entry interp_ops_control_flow[] = {
    {TOSA_OP_UNKNOWN, NULL},
};
