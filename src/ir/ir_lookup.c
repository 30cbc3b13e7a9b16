/* Read-only IR lookups: attributes, subgraphs, producers, constant values. The CPU operators
 * call these, and the runtime links them over the read-only IR views it builds in its arena,
 * so nothing here allocates, interns or builds an index. */
#include "ir_internal.h"

#include <string.h>

int ir_graph_producer(const ir_graph *g, int tensor)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (n->dead)
            continue;
        for (int o = 0; o < n->n_outputs; o++)
            if (n->outputs[o] == tensor)
                return i;
    }
    return -1;
}

bool ir_node_is(const ir_node *n, const char *op_type)
{
    return n->domain && n->domain[0] == '\0' && n->op_type && strcmp(n->op_type, op_type) == 0;
}

const ir_attr *ir_node_attr(const ir_node *n, const char *name)
{
    for (int i = 0; i < n->n_attrs; i++)
        if (strcmp(n->attrs[i].name, name) == 0)
            return &n->attrs[i];
    return NULL;
}

int64_t ir_node_attr_int(const ir_node *n, const char *name, int64_t dflt)
{
    const ir_attr *a = ir_node_attr(n, name);
    return a && a->kind == IR_ATTR_INT ? a->i : dflt;
}

float ir_node_attr_float(const ir_node *n, const char *name, float dflt)
{
    const ir_attr *a = ir_node_attr(n, name);
    return a && a->kind == IR_ATTR_FLOAT ? a->f : dflt;
}

const char *ir_node_attr_string(const ir_node *n, const char *name, const char *dflt)
{
    const ir_attr *a = ir_node_attr(n, name);
    return a && a->kind == IR_ATTR_STRING ? a->s : dflt;
}

const int64_t *ir_node_attr_ints(const ir_node *n, const char *name, int *count)
{
    const ir_attr *a = ir_node_attr(n, name);
    if (!a || a->kind != IR_ATTR_INTS) {
        if (count)
            *count = 0;
        return NULL;
    }
    if (count)
        *count = a->n;
    return a->ints;
}

ir_graph *ir_node_subgraph(const ir_node *n, int k)
{
    for (int a = 0; a < n->n_attrs; a++) {
        const ir_attr *at = &n->attrs[a];
        if (at->kind == IR_ATTR_GRAPH && at->g) {
            if (k == 0)
                return at->g;
            k--;
        } else if (at->kind == IR_ATTR_GRAPHS) {
            if (k < at->n)
                return at->graphs[k];
            k -= at->n;
        }
    }
    return NULL;
}

static void set_view(tosac_tensor *out, tosac_dtype dt, int rank, const int64_t *shape,
                     const void *data, size_t nbytes)
{
    memset(out, 0, sizeof *out);
    out->dtype = dt;
    out->rank = rank;
    for (int d = 0; d < rank; d++)
        out->shape[d] = shape[d];
    out->data = (void *)data;
    out->nbytes = nbytes;
}

bool ir_graph_const_value(const ir_graph *g, int tensor, tosac_tensor *out)
{
    return ir_graph_const_value_from(g, tensor, -2, out);
}

bool ir_graph_const_value_from(const ir_graph *g, int tensor, int producer, tosac_tensor *out)
{
    if (tensor < 0 || tensor >= g->n_tensors)
        return false;
    const ir_tensor *t = &g->tensors[tensor];
    if (t->outer_id >= 0 && g->parent)
        return ir_graph_const_value(g->parent, t->outer_id, out);
    if (t->data) {
        set_view(out, t->dtype, t->rank, t->shape, t->data, t->nbytes);
        return true;
    }
    int p = producer == -2 ? ir_graph_producer(g, tensor) : producer;
    if (p < 0 || !ir_node_is(&g->nodes[p], "Constant") || g->nodes[p].n_attrs != 1)
        return false;
    const ir_attr *a = &g->nodes[p].attrs[0];
    int64_t n = a->n;
    if (strcmp(a->name, "value") == 0 && a->kind == IR_ATTR_TENSOR) {
        set_view(out, a->t.dtype, a->t.rank, a->t.shape, a->t.data, a->t.nbytes);
        return true;
    }
    if (strcmp(a->name, "value_float") == 0 && a->kind == IR_ATTR_FLOAT) {
        set_view(out, TOSAC_DT_F32, 0, NULL, &a->f, sizeof a->f);
        return true;
    }
    if (strcmp(a->name, "value_int") == 0 && a->kind == IR_ATTR_INT) {
        set_view(out, TOSAC_DT_I64, 0, NULL, &a->i, sizeof a->i);
        return true;
    }
    if (strcmp(a->name, "value_floats") == 0 && a->kind == IR_ATTR_FLOATS) {
        set_view(out, TOSAC_DT_F32, 1, &n, a->floats, (size_t)n * sizeof(float));
        return true;
    }
    if (strcmp(a->name, "value_ints") == 0 && a->kind == IR_ATTR_INTS) {
        set_view(out, TOSAC_DT_I64, 1, &n, a->ints, (size_t)n * sizeof(int64_t));
        return true;
    }
    return false;
}
