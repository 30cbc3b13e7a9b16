/* tosac_program_prepare / tosac_program_run: a thin wrapper over the runtime (one executor
 * for programs). The program is built as compile writes it (tosac_program_build: planned and
 * measured), initialised once in a malloc'd arena, and each run copies the inputs in and the
 * outputs out. */
#include <stdlib.h>
#include <string.h>

#include "compile/program_internal.h"
#include "tosac/compile.h"
#include "tosac/program.h"
#include "tosac/runtime.h"

struct tosac_program_exec {
    void *bytes;
    size_t len;
    void *arena;
    tosac_rt *rt;
};

void tosac_program_free_run(tosac_program *p)
{
    if (!p || !p->run_)
        return;
    free(p->run_->arena);
    free(p->run_->bytes);
    free(p->run_);
    p->run_ = NULL;
}

tosac_code tosac_program_prepare(tosac_program *p, tosac_error *err)
{
    if (p->run_)
        return TOSAC_OK;
    tosac_program_exec *ex = calloc(1, sizeof *ex);
    if (!ex)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    size_t bytes = 0;
    tosac_code rc = tosac_program_build(p, &ex->bytes, &ex->len, err);
    if (!rc)
        rc = tosac_rt_arena_size(ex->bytes, ex->len, &bytes, err);
    if (!rc && !(ex->arena = aligned_alloc(16, (bytes + 15) / 16 * 16 + 16)))
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory for an arena of %zu bytes", bytes);
    if (!rc)
        rc = tosac_rt_init(ex->bytes, ex->len, ex->arena, bytes, &ex->rt, err);
    p->run_ = ex;
    if (rc)
        tosac_program_free_run(p);
    return rc;
}

tosac_code tosac_program_run(tosac_program *p, const tosac_tensor *inputs, int n_inputs,
                             tosac_tensor *outputs, int n_outputs, tosac_error *err)
{
    for (int i = 0; i < n_outputs; i++)
        memset(&outputs[i], 0, sizeof outputs[i]);
    tosac_code rc = tosac_program_prepare(p, err);
    if (rc)
        return rc;
    tosac_rt *rt = p->run_->rt;
    if (n_inputs != tosac_rt_n_inputs(rt) || n_outputs != tosac_rt_n_outputs(rt))
        return tosac_fail(err, TOSAC_ERR_INPUT, "program takes %d inputs and gives %d outputs",
                          tosac_rt_n_inputs(rt), tosac_rt_n_outputs(rt));
    for (int i = 0; i < n_inputs; i++) {
        tosac_tensor *dst = tosac_rt_input(rt, i);
        const tosac_tensor *in = &inputs[i];
        if (in->dtype != dst->dtype ||
            !tosac_shape_equal(in->rank, in->shape, dst->rank, dst->shape)) {
            char a[128], b[128];
            return tosac_fail(err, TOSAC_ERR_INPUT, "input '%s' must be %s%s, got %s%s",
                              tosac_rt_input_name(rt, i), tosac_dtype_name(dst->dtype),
                              tosac_shape_str(dst->rank, dst->shape, a, sizeof a),
                              tosac_dtype_name(in->dtype),
                              tosac_shape_str(in->rank, in->shape, b, sizeof b));
        }
        if (dst->nbytes)
            memcpy(dst->data, in->data, dst->nbytes);
    }
    rc = tosac_rt_invoke(rt, err);
    for (int i = 0; !rc && i < n_outputs; i++) {
        const tosac_tensor *src = tosac_rt_output(rt, i);
        rc = tosac_tensor_alloc(&outputs[i], src->dtype, src->rank, src->shape, err);
        if (!rc && src->nbytes)
            memcpy(outputs[i].data, src->data, src->nbytes);
    }
    if (rc)
        for (int i = 0; i < n_outputs; i++)
            tosac_tensor_free(&outputs[i]);
    return rc;
}
