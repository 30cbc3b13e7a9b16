/* The lookup behind interp_find_op over a given list of group tables. */
#include "interp/interp_registry.h"

interp_op_fn interp_find_op_in(const interp_op_entry *const *groups, size_t n_groups,
                               interp_op_fn *table, int *built, tosa_op op)
{
    if (!*built) { /* idempotent, so a race at first use is harmless */
        for (size_t g = 0; g < n_groups; g++)
            for (const interp_op_entry *e = groups[g]; e->fn; e++)
                if ((unsigned)e->op < TOSA_OP_COUNT)
                    table[e->op] = e->fn;
        *built = 1;
    }
    return (unsigned)op < TOSA_OP_COUNT ? table[op] : NULL;
}
