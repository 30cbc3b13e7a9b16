/* Operator lookup: the group tables, in the order the specification groups operators. */
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
    if (!built) { /* idempotent, so a race at first use is harmless */
        for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
            for (const interp_op_entry *e = groups[g]; e->fn; e++)
                if ((unsigned)e->op < TOSA_OP_COUNT)
                    table[e->op] = e->fn;
        built = 1;
    }
    return (unsigned)op < TOSA_OP_COUNT ? table[op] : NULL;
}
