/* Operator group: data_node. (Not written yet: an empty table.) */
#include "interp/interp_internal.h"

const interp_op_entry interp_ops_data_node[] = {
    {TOSA_OP_UNKNOWN, NULL},
};
