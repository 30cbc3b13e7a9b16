/* Operator group: type_conversion. (Not written yet: an empty table.) */
#include "interp/interp_internal.h"

const interp_op_entry interp_ops_type_conversion[] = {
    {TOSA_OP_UNKNOWN, NULL},
};
