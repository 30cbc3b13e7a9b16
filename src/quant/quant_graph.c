/* Small graph helpers for the quantizer's rewrites: fresh names, constants, attribute and
 * input edits, and the final cleanup of constants the rewrite left unread. */
#include "quant/quant_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir_internal.h"

static void fresh_name(const ir_graph *g, const char *base, const char *suffix, char *buf,
                       size_t len)
{
    char want[512];
    snprintf(want, sizeof want, "%s%s", base, suffix);
    ir_graph_unique_name(g, want, buf, len);
}

int quant_add_const(ir_graph *g, const char *base, const char *suffix, tosac_dtype dt, int rank,
                    const int64_t *shape, const void *data, tosac_error *err)
{
    char name[600];
    fresh_name(g, base, suffix, name, sizeof name);
    size_t nbytes = (size_t)tosac_shape_numel(rank, shape) * tosac_dtype_size(dt);
    return ir_graph_add_const(g, name, dt, rank, shape, data, nbytes, err);
}

int quant_add_tensor(ir_graph *g, const char *base, const char *suffix, tosac_dtype dt,
                     int rank, const int64_t *shape, tosac_error *err)
{
    char name[600];
    fresh_name(g, base, suffix, name, sizeof name);
    return ir_graph_add_tensor(g, name, dt, rank, shape, err);
}

bool quant_const_f32(const ir_graph *g, int t, tosac_tensor *out)
{
    if (t < 0 || !ir_graph_const_value(g, t, out))
        return false;
    return out->dtype == TOSAC_DT_F32 && out->data;
}

tosac_code quant_node_append_input(ir_graph *g, int node, int tensor, tosac_error *err)
{
    ir_node *n = &g->nodes[node];
    int *in = realloc(n->inputs, (size_t)(n->n_inputs + 1) * sizeof *in);
    if (!in)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    in[n->n_inputs++] = tensor;
    n->inputs = in;
    return TOSAC_OK;
}

void quant_node_drop_attr(ir_graph *g, int node, const char *name)
{
    ir_node *n = &g->nodes[node];
    for (int a = 0; a < n->n_attrs; a++)
        if (strcmp(n->attrs[a].name, name) == 0) {
            ir_attr_free(&n->attrs[a]);
            memmove(&n->attrs[a], &n->attrs[a + 1], (size_t)(n->n_attrs - a - 1) * sizeof *n->attrs);
            n->n_attrs--;
            return;
        }
}

/* A Constant node whose output nobody reads any more (its value was replaced by a
 * quantized initializer) is dropped; repeat, since nothing else chains constants. */
tosac_code quant_cleanup(ir_graph *g, tosac_error *err)
{
    for (int i = 0; i < g->n_nodes; i++) {
        ir_node *n = &g->nodes[i];
        if (n->dead || !ir_node_is(n, "Constant") || n->n_outputs != 1)
            continue;
        int t = n->outputs[0];
        if (ir_graph_consumers(g, t, NULL, 0) == 0 && !ir_graph_is_output(g, t))
            ir_node_kill(g, i);
    }
    ir_graph_compact(g);
    tosac_code rc = ir_graph_prune_tensors(g, NULL, err);
    if (!rc)
        rc = ir_graph_toposort(g, err);
    return rc;
}

/* want, or want_<k> for the first k no node of g is named (onnxruntime refuses a graph with
 * two nodes of one name: a weight two body nodes read gets two DequantizeLinear nodes). */
void quant_node_name(const ir_graph *g, const char *want, char *buf, size_t len)
{
    for (int k = 0;; k++) {
        if (k == 0)
            snprintf(buf, len, "%s", want);
        else
            snprintf(buf, len, "%s_%d", want, k);
        bool taken = false;
        for (int i = 0; i < g->n_nodes && !taken; i++)
            taken = g->nodes[i].name && strcmp(g->nodes[i].name, buf) == 0;
        if (!taken || k > 1000000)
            return;
    }
}
