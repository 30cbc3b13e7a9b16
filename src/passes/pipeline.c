/* The pass pipeline, in order. */
#include "passes/passes.h"

static const struct {
    const char *name;
    pass_fn fn;
} pipeline[] = {
    /* Q/DQ pairs become quantization parameters on integer tensors, so that every later
     * stage sees "Conv(x_q i8, w_q i8, b i32) -> y_q i8" instead of float islands. */
    {"fold_qdq", pass_fold_qdq},
};

tosac_code passes_run(ir_graph *g, const pass_ctx *c, tosac_error *err)
{
    for (size_t i = 0; i < sizeof pipeline / sizeof pipeline[0]; i++) {
        tosac_code rc = pipeline[i].fn(g, c, err);
        if (!rc)
            rc = ir_graph_verify(g, err);
        if (rc)
            return tosac_fail(err, rc, "pass %s failed", pipeline[i].name);
    }
    return TOSAC_OK;
}
