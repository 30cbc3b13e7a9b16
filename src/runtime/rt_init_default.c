/* tosac_rt_init with every operator (tosac_rt_ops_all): in its own file so that an
 * application using tosac_rt_init_ex with its own resolver links no unused operator. */
#include "cpu/cpu_internal.h"
#include "tosac/runtime.h"

const tosac_rt_op *tosac_rt_ops_all(const char *op_type) { return cpu_find_op(op_type); }

tosac_code tosac_rt_init(const void *program, size_t len, void *arena, size_t arena_bytes,
                         tosac_rt **out, tosac_error *err)
{
    tosac_rt_options o = {tosac_rt_ops_all, 0, NULL};
    return tosac_rt_init_ex(program, len, arena, arena_bytes, &o, out, err);
}
