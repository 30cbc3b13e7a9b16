/* Small IR-building helpers shared by the passes. */
#include "passes/pass_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fp.h"

tosac_code pass_set_input(ir_graph *g, int node, int slot, int tensor, tosac_error *err)
{
    ir_node *n = &g->nodes[node];
    if (slot >= n->n_inputs) {
        int *grown = realloc(n->inputs, ((size_t)slot + 1) * sizeof *grown);
        if (!grown)
            return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        for (int i = n->n_inputs; i <= slot; i++)
            grown[i] = -1;
        n->inputs = grown;
        n->n_inputs = slot + 1;
    }
    return ir_node_set_input(g, node, slot, tensor, err);
}

int pass_add_const(ir_graph *g, const char *base, const char *suffix, tosac_dtype dt, int rank,
                   int64_t n, const void *data, tosac_error *err)
{
    char want[300], name[320];
    snprintf(want, sizeof want, "%s%s", base, suffix);
    ir_graph_unique_name(g, want, name, sizeof name);
    return ir_graph_add_const(g, name, dt, rank, &n, data, (size_t)n * tosac_dtype_size(dt), err);
}

int pass_add_like(ir_graph *g, int like, const char *suffix, tosac_dtype dt, tosac_error *err)
{
    char want[300], name[320];
    snprintf(want, sizeof want, "%s%s", g->tensors[like].name, suffix);
    ir_graph_unique_name(g, want, name, sizeof name);
    int64_t shape[TOSAC_MAX_RANK];
    int rank = g->tensors[like].rank;
    memcpy(shape, g->tensors[like].shape, sizeof shape);
    return ir_graph_add_tensor(g, name, dt, rank, shape, err);
}

int pass_sole_reader(const ir_graph *g, int t)
{
    int who[2];
    if (t < 0 || ir_graph_is_output(g, t) || ir_graph_consumers(g, t, who, 2) != 1)
        return -1;
    return who[0];
}

