/* Resize / Upsample: not written yet. */
#include "cpu/cpu_internal.h"

const cpu_op_entry cpu_ops_resize[] = {
    {NULL, NULL, 0},
};
