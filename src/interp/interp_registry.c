/* Operator lookup: the group tables, in the order the specification groups operators. An
 * image that links only some groups defines interp_find_op itself over those
 * (interp_find_op_in; the Cortex-M55 port generates it, ports/cortex-m55/tosa_ops.c.in), so
 * this object and the other groups' are not linked. */
#include "interp/interp_registry.h"

static const interp_op_entry *const groups[] = {
    interp_ops_tensor,     interp_ops_conv,           interp_ops_activation,
    interp_ops_elementwise, interp_ops_comparison,    interp_ops_reduction,
    interp_ops_data_layout, interp_ops_scatter_gather, interp_ops_image,
    interp_ops_type_conversion, interp_ops_data_node, interp_ops_control_flow,
    interp_ops_variable,
};

interp_op_fn interp_find_op(tosa_op op)
{
    static interp_op_fn table[TOSA_OP_COUNT];
    static int built;
    return interp_find_op_in(groups, sizeof groups / sizeof groups[0], table, &built, op);
}
