/* Static shape rules of linear algebra beyond MatMul/Gemm (ONNX semantics): Einsum (the
 * equation parsed by onnxop_einsum.c, as the CPU operator does) and Det. */
#include "ir_shape.h"
#include "onnxop/onnxop_einsum.h"

#include <string.h>

#define NODE (&c->g->nodes[node])

static tosac_code r_einsum(shape_ctx *c, int node)
{
    int n_in = NODE->n_inputs, ranks[ONNX_EINSUM_MAX_IN];
    const int64_t *shapes[ONNX_EINSUM_MAX_IN];
    if (n_in < 1 || n_in > ONNX_EINSUM_MAX_IN)
        return sh_bad(c, node, "Einsum takes 1 to 8 inputs");
    const ir_tensor *t = NULL;
    for (int k = 0; k < n_in; k++) {
        if (sh_need(c, node, k, &t))
            return c->err->code;
        ranks[k] = t->rank;
        shapes[k] = t->shape;
    }
    onnx_einsum e;
    if (onnx_einsum_of(NODE, n_in, ranks, shapes, &e, c->err))
        return c->err->code;
    return sh_set(c, node, 0, t->dtype, e.n_out, e.y);
}


/* [*, M, M] -> [*] */
static tosac_code r_det(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    if (x->rank < 2 || x->shape[x->rank - 1] != x->shape[x->rank - 2])
        return sh_bad(c, node, "input must be [*, M, M]");
    return sh_set(c, node, 0, x->dtype, x->rank - 2, x->shape);
}

const shape_rule_row ir_shape_rules_linalg[] = {
    {"Einsum", r_einsum}, {"Det", r_det},
    {NULL, NULL},
};
