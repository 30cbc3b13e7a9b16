/* The interpreter on the host (compiler side, not in the runtime library): the libc
 * allocator and outputs copied out for the caller. */
#include <string.h>

#include "interp/interp_state.h"
#include "tosac/interp.h"
#include "util/alloc.h"

tosac_code interp_prepare(const tosa_graph *g, interp_state **out, tosac_error *err)
{
    interp_options o = {tosac_libc_allocator(), NULL, NULL};
    return interp_prepare_ex(g, &o, out, err);
}

tosac_code tosa_interp_run(const tosa_graph *g, const tosac_tensor *inputs, int n_inputs,
                           tosac_tensor *outputs, int n_outputs, tosac_error *err)
{
    for (int i = 0; i < n_outputs; i++)
        memset(&outputs[i], 0, sizeof outputs[i]);
    interp_state *st;
    tosac_code rc = interp_prepare(g, &st, err);
    if (rc)
        return rc;
    const tosa_block *main = st->main->block;
    if (n_outputs != main->n_outputs)
        rc = tosac_fail(err, TOSAC_ERR_INPUT, "the graph has %d outputs, %d expected",
                        main->n_outputs, n_outputs);
    if (!rc)
        rc = interp_execute(st, inputs, n_inputs, err);
    for (int i = 0; i < n_outputs && !rc; i++) {
        const tosac_tensor *src = interp_main_output(st, i);
        rc = tosac_tensor_alloc(&outputs[i], src->dtype, src->rank, src->shape, err);
        if (!rc)
            interp_copy_tensor(&outputs[i], src);
    }
    if (rc)
        for (int i = 0; i < n_outputs; i++)
            tosac_tensor_free(&outputs[i]);
    interp_state_free(st);
    return rc;
}
