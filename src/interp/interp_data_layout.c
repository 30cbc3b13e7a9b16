/* Operator group: data_layout. (Not written yet: an empty table.) */
#include "interp/interp_internal.h"

const interp_op_entry interp_ops_data_layout[] = {
    {TOSA_OP_UNKNOWN, NULL},
};
