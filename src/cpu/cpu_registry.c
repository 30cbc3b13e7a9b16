/* The op binding table: ONNX op_type -> implementation, gathered from the family tables. */
#include "cpu/cpu_internal.h"

#include <string.h>

static const cpu_op_entry *const families[] = {
    cpu_ops_elementwise, cpu_ops_unary, cpu_ops_conv, cpu_ops_pool, cpu_ops_reduce,
    cpu_ops_norm, cpu_ops_shape, cpu_ops_layout, cpu_ops_gather, cpu_ops_quant,
    cpu_ops_control, cpu_ops_resize, cpu_ops_rnn, cpu_ops_loss, cpu_ops_signal,
    cpu_ops_linalg, cpu_ops_scan, cpu_ops_detect, cpu_ops_text,
};

const cpu_op_entry *cpu_find_op(const char *op_type)
{
    if (!op_type)
        return NULL;
    for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
        for (const cpu_op_entry *e = families[f]; e->op_type; e++)
            if (strcmp(e->op_type, op_type) == 0)
                return e;
    return NULL;
}
