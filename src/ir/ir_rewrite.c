/* Queries and rewrites that passes need: producers, consumers, constant values, use
 * replacement, node removal, tensor pruning, topological order. */
#include "ir_internal.h"

#include <stdlib.h>
#include <string.h>

/* True when a subgraph of n captures tensor (bodies reach deeper scopes through captures in
 * the graphs between, so the immediate subgraphs are enough). */
static bool node_captures(const ir_node *n, int tensor)
{
    const ir_graph *sub;
    for (int k = 0; (sub = ir_node_subgraph(n, k)); k++)
        for (int t = 0; t < sub->n_tensors; t++)
            if (sub->tensors[t].outer_id == tensor)
                return true;
    return false;
}

int ir_graph_consumers(const ir_graph *g, int tensor, int *nodes, int max)
{
    int count = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (n->dead)
            continue;
        int reads = 0;
        for (int k = 0; k < n->n_inputs; k++)
            reads += n->inputs[k] == tensor;
        reads += node_captures(n, tensor);
        for (; reads > 0; reads--, count++)
            if (nodes && count < max)
                nodes[count] = i;
    }
    return count;
}

bool ir_graph_is_output(const ir_graph *g, int tensor)
{
    for (int i = 0; i < g->n_outputs; i++)
        if (g->outputs[i] == tensor)
            return true;
    return false;
}

bool ir_graph_is_input(const ir_graph *g, int tensor)
{
    for (int i = 0; i < g->n_inputs; i++)
        if (g->inputs[i] == tensor)
            return true;
    return false;
}

/* Captures in the immediate subgraphs of g's nodes that refer to old_t now refer to new_t. */
static void replace_captures(ir_graph *g, int old_t, int new_t)
{
    for (int i = 0; i < g->n_nodes; i++) {
        ir_node *n = &g->nodes[i];
        ir_graph *sub;
        for (int k = 0; (sub = ir_node_subgraph(n, k)); k++)
            for (int t = 0; t < sub->n_tensors; t++)
                if (sub->tensors[t].outer_id == old_t)
                    sub->tensors[t].outer_id = new_t;
    }
    ir_sync_capture_names(g, new_t);
}

void ir_graph_replace_uses(ir_graph *g, int old_t, int new_t)
{
    for (int i = 0; i < g->n_nodes; i++) {
        ir_node *n = &g->nodes[i];
        if (n->dead)
            continue;
        for (int k = 0; k < n->n_inputs; k++)
            if (n->inputs[k] == old_t)
                n->inputs[k] = new_t;
    }
    for (int i = 0; i < g->n_outputs; i++)
        if (g->outputs[i] == old_t)
            g->outputs[i] = new_t;
    replace_captures(g, old_t, new_t);
}

tosac_code ir_node_set_input(ir_graph *g, int node, int slot, int tensor, tosac_error *err)
{
    if (node < 0 || node >= g->n_nodes || slot < 0 || slot >= g->nodes[node].n_inputs ||
        tensor < -1 || tensor >= g->n_tensors)
        return tosac_fail(err, TOSAC_ERR_INPUT, "set input: node %d slot %d tensor %d invalid",
                          node, slot, tensor);
    g->nodes[node].inputs[slot] = tensor;
    return TOSAC_OK;
}

void ir_node_kill(ir_graph *g, int node)
{
    if (node >= 0 && node < g->n_nodes)
        g->nodes[node].dead = true;
}

void ir_graph_compact(ir_graph *g)
{
    int w = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i].dead) {
            ir_node_fini(&g->nodes[i]);
            continue;
        }
        if (w != i)
            g->nodes[w] = g->nodes[i];
        w++;
    }
    g->n_nodes = w;
}

static void mark_captured(const ir_graph *g, bool *used)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (n->dead)
            continue;
        const ir_graph *sub;
        for (int k = 0; (sub = ir_node_subgraph(n, k)); k++)
            for (int t = 0; t < sub->n_tensors; t++)
                if (sub->tensors[t].outer_id >= 0 && sub->tensors[t].outer_id < g->n_tensors)
                    used[sub->tensors[t].outer_id] = true;
    }
}

static void remap_ids(int *ids, int n, const int *remap)
{
    for (int i = 0; i < n; i++)
        if (ids[i] >= 0)
            ids[i] = remap[ids[i]];
}

tosac_code ir_graph_prune_tensors(ir_graph *g, int *remap_out, tosac_error *err)
{
    int nt = g->n_tensors;
    bool *used = calloc((size_t)(nt ? nt : 1), sizeof *used);
    int *remap = remap_out ? remap_out : malloc((size_t)(nt ? nt : 1) * sizeof *remap);
    if (!used || !remap) {
        free(used);
        if (!remap_out)
            free(remap);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (n->dead)
            continue;
        for (int k = 0; k < n->n_inputs; k++)
            if (n->inputs[k] >= 0 && n->inputs[k] < nt)
                used[n->inputs[k]] = true;
        for (int k = 0; k < n->n_outputs; k++)
            if (n->outputs[k] >= 0 && n->outputs[k] < nt)
                used[n->outputs[k]] = true;
    }
    for (int i = 0; i < g->n_inputs; i++)
        used[g->inputs[i]] = true;
    for (int i = 0; i < g->n_outputs; i++)
        used[g->outputs[i]] = true;
    mark_captured(g, used);
    int w = 0;
    for (int i = 0; i < nt; i++) {
        if (!used[i]) {
            ir_tensor_fini(&g->tensors[i]);
            remap[i] = -1;
            continue;
        }
        remap[i] = w;
        if (w != i)
            g->tensors[w] = g->tensors[i];
        w++;
    }
    g->n_tensors = w;
    for (int i = 0; i < g->n_nodes; i++) {
        ir_node *n = &g->nodes[i];
        remap_ids(n->inputs, n->n_inputs, remap);
        remap_ids(n->outputs, n->n_outputs, remap);
        ir_graph *sub;
        for (int k = 0; (sub = ir_node_subgraph(n, k)); k++)
            for (int t = 0; t < sub->n_tensors; t++)
                if (sub->tensors[t].outer_id >= 0 && sub->tensors[t].outer_id < nt)
                    sub->tensors[t].outer_id = remap[sub->tensors[t].outer_id];
    }
    remap_ids(g->inputs, g->n_inputs, remap);
    remap_ids(g->outputs, g->n_outputs, remap);
    ir_index_rebuild(g);
    free(used);
    if (!remap_out)
        free(remap);
    return TOSAC_OK;
}

/* ---- topological order: iterative DFS over producers, cycle = back edge ---- */

/* Dependency k of node n: its inputs, then the outer tensors its subgraphs capture.
 * Returns -2 when k is past the end. */
static int dep(const ir_node *n, int k)
{
    if (k < n->n_inputs)
        return n->inputs[k];
    k -= n->n_inputs;
    const ir_graph *sub;
    for (int s = 0; (sub = ir_node_subgraph(n, s)); s++) {
        if (k < sub->n_tensors)
            return sub->tensors[k].outer_id;
        k -= sub->n_tensors;
    }
    return -2;
}

tosac_code ir_graph_topo_order(const ir_graph *g, int *order, int *n_order, tosac_error *err)
{
    int nn = g->n_nodes, nt = g->n_tensors;
    int *producer = malloc((size_t)(nt ? nt : 1) * sizeof *producer);
    unsigned char *color = calloc((size_t)(nn ? nn : 1), 1);
    int *stack = malloc((size_t)(nn ? nn : 1) * sizeof *stack);
    int *next = calloc((size_t)(nn ? nn : 1), sizeof *next);
    tosac_code rc = TOSAC_OK;
    if (!producer || !color || !stack || !next) {
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        goto out;
    }
    for (int t = 0; t < nt; t++)
        producer[t] = -1;
    for (int i = 0; i < nn; i++) {
        const ir_node *n = &g->nodes[i];
        if (n->dead)
            continue;
        for (int o = 0; o < n->n_outputs; o++)
            if (n->outputs[o] >= 0 && n->outputs[o] < nt && producer[n->outputs[o]] < 0)
                producer[n->outputs[o]] = i;
    }
    int count = 0;
    for (int root = 0; root < nn; root++) {
        if (g->nodes[root].dead || color[root])
            continue;
        int sp = 0;
        stack[sp++] = root;
        color[root] = 1;
        next[root] = 0;
        while (sp > 0) {
            int i = stack[sp - 1];
            int t = dep(&g->nodes[i], next[i]++);
            if (t == -2) {
                color[i] = 2;
                order[count++] = i;
                sp--;
                continue;
            }
            if (t < 0 || t >= nt || producer[t] < 0)
                continue;
            int p = producer[t];
            if (color[p] == 1) {
                char buf[160];
                rc = tosac_fail(err, TOSAC_ERR_INPUT,
                                "graph '%s': cycle through %s (tensor '%s')", g->name,
                                ir_node_desc(g, p, buf, sizeof buf), g->tensors[t].name);
                goto out;
            }
            if (color[p] == 0) {
                color[p] = 1;
                next[p] = 0;
                stack[sp++] = p;
            }
        }
    }
    *n_order = count;
out:
    free(producer);
    free(color);
    free(stack);
    free(next);
    return rc;
}

tosac_code ir_graph_toposort(ir_graph *g, tosac_error *err)
{
    int nn = g->n_nodes;
    int *order = malloc((size_t)(nn ? nn : 1) * sizeof *order);
    ir_node *sorted = malloc((size_t)(nn ? nn : 1) * sizeof *sorted);
    if (!order || !sorted) {
        free(order);
        free(sorted);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    }
    int n_order = 0;
    tosac_code rc = ir_graph_topo_order(g, order, &n_order, err);
    if (rc == TOSAC_OK) {
        for (int i = 0; i < n_order; i++)
            sorted[i] = g->nodes[order[i]];
        for (int i = 0; i < nn; i++)
            if (g->nodes[i].dead)
                ir_node_fini(&g->nodes[i]);
        if (n_order) /* a graph without nodes may have no node array: memcpy(NULL) is UB */
            memcpy(g->nodes, sorted, (size_t)n_order * sizeof *sorted);
        g->n_nodes = n_order;
    }
    free(order);
    free(sorted);
    return rc;
}
