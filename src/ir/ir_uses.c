/* ir_uses: producers and consumers of every tensor in one pass, so that partitioning asks
 * them per node in constant time (ir_graph_producer / ir_graph_consumers scan the nodes, which
 * made it quadratic in the graph size). The answers are those of the scans: the first live
 * producer; per live node in index order, one entry per input slot reading t and one more
 * when its immediate bodies capture t. */
#include "ir_internal.h"

#include <stdlib.h>
#include <string.h>

/* Calls fn(u, node, t) once per read of t by live node i, in the order described above;
 * stamp (n_tensors entries, -1 initially) keeps a node's captures to one per tensor. */
static void each_read(const ir_graph *g, ir_uses *u, int *stamp,
                      void (*fn)(ir_uses *, int, int))
{
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (n->dead)
            continue;
        for (int k = 0; k < n->n_inputs; k++)
            if (n->inputs[k] >= 0 && n->inputs[k] < u->n_tensors)
                fn(u, i, n->inputs[k]);
        const ir_graph *sub;
        for (int k = 0; (sub = ir_node_subgraph(n, k)); k++)
            for (int t = 0; t < sub->n_tensors; t++) {
                int o = sub->tensors[t].outer_id;
                if (o >= 0 && o < u->n_tensors && stamp[o] != i) {
                    stamp[o] = i;
                    u->captured[o] = 1;
                    fn(u, i, o);
                }
            }
    }
}

static void count_read(ir_uses *u, int node, int t)
{
    (void)node;
    u->start[t + 1]++;
}

static void store_read(ir_uses *u, int node, int t)
{
    u->readers[u->start[t]++] = node;
}

tosac_code ir_uses_build(const ir_graph *g, ir_uses *u, tosac_error *err)
{
    memset(u, 0, sizeof *u);
    int nt = g->n_tensors;
    u->n_tensors = nt;
    u->producer = malloc(((size_t)nt + 1) * sizeof *u->producer);
    u->start = calloc((size_t)nt + 2, sizeof *u->start);
    u->captured = calloc((size_t)nt + 1, 1);
    int *stamp = malloc(((size_t)nt + 1) * sizeof *stamp);
    if (!u->producer || !u->start || !u->captured || !stamp) {
        free(stamp);
        ir_uses_free(u);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory indexing the graph's uses");
    }
    for (int t = 0; t < nt; t++)
        u->producer[t] = stamp[t] = -1;
    for (int i = g->n_nodes - 1; i >= 0; i--)
        for (int o = 0; !g->nodes[i].dead && o < g->nodes[i].n_outputs; o++)
            if (g->nodes[i].outputs[o] >= 0 && g->nodes[i].outputs[o] < nt)
                u->producer[g->nodes[i].outputs[o]] = i;
    each_read(g, u, stamp, count_read);
    for (int t = 0; t < nt; t++)
        u->start[t + 1] += u->start[t];
    u->readers = malloc(((size_t)u->start[nt] + 1) * sizeof *u->readers);
    if (!u->readers) {
        free(stamp);
        ir_uses_free(u);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory indexing the graph's uses");
    }
    for (int t = 0; t < nt; t++)
        stamp[t] = -1;
    each_read(g, u, stamp, store_read); /* advances start[t] to the next tensor's start */
    for (int t = nt; t > 0; t--)
        u->start[t] = u->start[t - 1];
    u->start[0] = 0;
    free(stamp);
    return TOSAC_OK;
}

void ir_uses_free(ir_uses *u)
{
    free(u->producer);
    free(u->start);
    free(u->readers);
    free(u->captured);
    memset(u, 0, sizeof *u);
}

int ir_uses_producer(const ir_uses *u, int tensor)
{
    return tensor >= 0 && tensor < u->n_tensors ? u->producer[tensor] : -1;
}

int ir_uses_consumers(const ir_uses *u, int tensor, int *nodes, int max)
{
    if (tensor < 0 || tensor >= u->n_tensors)
        return 0;
    int n = u->start[tensor + 1] - u->start[tensor];
    for (int i = 0; nodes && i < n && i < max; i++)
        nodes[i] = u->readers[u->start[tensor] + i];
    return n;
}
