/* Variadic Sum and Mean, which TOSA lacks (ADD takes two operands), become chains of Add:
 *   Sum(a, b, c)  -> Add(Add(a, b), c)
 *   Mean(a, b, c) -> Mul(Add(Add(a, b), c), 1/3)
 * A single-operand Sum/Mean is its operand (an Identity). Float only: integer Mean would
 * need ONNX's rounding. Intermediate shapes are the broadcast of the operands so far. */
#include <stdio.h>
#include <string.h>

#include "passes/pass_util.h"
#include "passes/passes.h"

/* Broadcast (ONNX multidirectional) shape of tensors a and b into t's shape. */
static void broadcast_shape(const ir_tensor *a, const ir_tensor *b, int *rank, int64_t *shape)
{
    int r = a->rank > b->rank ? a->rank : b->rank;
    for (int d = 0; d < r; d++) {
        int da = d - (r - a->rank), db = d - (r - b->rank);
        int64_t x = da >= 0 ? a->shape[da] : 1, y = db >= 0 ? b->shape[db] : 1;
        shape[d] = x == 1 ? y : x;
    }
    *rank = r;
}

static tosac_code decompose(ir_graph *g, int ni, bool mean, tosac_error *err)
{
    ir_node *n = &g->nodes[ni];
    int k = n->n_inputs, out = n->outputs[0];
    if (k < 1 || n->n_outputs != 1 || out < 0 || !tosac_dtype_is_float(g->tensors[out].dtype) ||
        (mean && g->tensors[out].dtype != TOSAC_DT_F32))
        return TOSAC_OK;
    for (int i = 0; i < k; i++)
        if (n->inputs[i] < 0)
            return TOSAC_OK;
    int ins[64];
    if (k > 64)
        return TOSAC_OK;
    memcpy(ins, n->inputs, sizeof(int) * (size_t)k);
    ir_node_kill(g, ni);
    int acc = ins[0];
    for (int i = 1; i < k; i++) {
        int dst = out;
        if (i < k - 1 || mean) {
            int rank;
            int64_t shape[TOSAC_MAX_RANK];
            broadcast_shape(&g->tensors[acc], &g->tensors[ins[i]], &rank, shape);
            char want[300], name[320];
            snprintf(want, sizeof want, "%s_sum%d", g->tensors[out].name, i);
            ir_graph_unique_name(g, want, name, sizeof name);
            dst = ir_graph_add_tensor(g, name, g->tensors[out].dtype, rank, shape, err);
            if (dst < 0)
                return err->code;
        }
        int in[2] = {acc, ins[i]};
        if (ir_graph_add_node(g, "Add", NULL, "", in, 2, &dst, 1, err) < 0)
            return err->code;
        acc = dst;
    }
    if (mean) {
        float inv = 1.0f / (float)k;
        int c = pass_add_const(g, g->tensors[out].name, "_inv_count", TOSAC_DT_F32, 0, 1, &inv, err);
        int in[2] = {acc, c};
        if (c < 0 || ir_graph_add_node(g, "Mul", NULL, "", in, 2, &out, 1, err) < 0)
            return err->code;
    } else if (k == 1) {
        if (ir_graph_add_node(g, "Identity", NULL, "", &acc, 1, &out, 1, err) < 0)
            return err->code;
    }
    return TOSAC_OK;
}

tosac_code pass_decompose_sum(ir_graph *g, const pass_ctx *c, tosac_error *err)
{
    (void)c;
    int n = g->n_nodes;
    for (int i = 0; i < n; i++) {
        const ir_node *nd = &g->nodes[i];
        bool sum = ir_node_is(nd, "Sum"), mean = ir_node_is(nd, "Mean");
        if (nd->dead || (!sum && !mean))
            continue;
        tosac_code rc = decompose(g, i, mean, err);
        if (rc)
            return rc;
    }
    ir_graph_compact(g);
    return ir_graph_toposort(g, err);
}
