/* Node attributes: setters (replace or append by name), getters, release, tensor copies. */
#include "ir_internal.h"

#include <stdlib.h>
#include <string.h>

void ir_attr_free(ir_attr *a)
{
    free(a->name);
    free(a->s);
    tosac_tensor_free(&a->t);
    ir_graph_free(a->g);
    free(a->floats);
    free(a->ints);
    if (a->strings)
        for (int i = 0; i < a->n; i++)
            free(a->strings[i]);
    free(a->strings);
    if (a->tensors)
        for (int i = 0; i < a->n; i++)
            tosac_tensor_free(&a->tensors[i]);
    free(a->tensors);
    if (a->graphs)
        for (int i = 0; i < a->n; i++)
            ir_graph_free(a->graphs[i]);
    free(a->graphs);
    memset(a, 0, sizeof *a);
}

tosac_code ir_tensor_copy(tosac_tensor *dst, const tosac_tensor *src, tosac_error *err)
{
    *dst = *src;
    dst->data = malloc(src->nbytes ? src->nbytes : 1);
    if (!dst->data) {
        memset(dst, 0, sizeof *dst);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    }
    if (src->nbytes)
        memcpy(dst->data, src->data, src->nbytes);
    dst->owns_data = 1;
    return TOSAC_OK;
}

/* A cleared attribute slot named name on node (existing one of that name is released). */
static ir_attr *slot(ir_graph *g, int node, const char *name, ir_attr_kind kind,
                     tosac_error *err)
{
    if (node < 0 || node >= g->n_nodes || !name) {
        tosac_fail(err, TOSAC_ERR_INPUT, "attribute: node %d out of range", node);
        return NULL;
    }
    ir_node *n = &g->nodes[node];
    ir_attr *a = NULL;
    for (int i = 0; i < n->n_attrs; i++)
        if (strcmp(n->attrs[i].name, name) == 0) {
            a = &n->attrs[i];
            ir_attr_free(a);
            break;
        }
    if (!a) {
        ir_attr *p = realloc(n->attrs, (size_t)(n->n_attrs + 1) * sizeof *p);
        if (!p) {
            tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
            return NULL;
        }
        n->attrs = p;
        a = &p[n->n_attrs++];
        memset(a, 0, sizeof *a);
    }
    a->name = ir_strdup(name);
    if (!a->name) {
        /* Drop the half-made slot so the node stays consistent. */
        *a = n->attrs[--n->n_attrs];
        tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    a->kind = kind;
    return a;
}

static tosac_code oom(ir_graph *g, int node, tosac_error *err)
{
    /* The slot's name exists; its payload is empty, which is a valid empty list. */
    (void)g;
    (void)node;
    return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
}

tosac_code ir_node_set_float(ir_graph *g, int node, const char *name, float v, tosac_error *err)
{
    ir_attr *a = slot(g, node, name, IR_ATTR_FLOAT, err);
    if (!a)
        return err ? err->code : TOSAC_ERR_INTERNAL;
    a->f = v;
    return TOSAC_OK;
}

tosac_code ir_node_set_int(ir_graph *g, int node, const char *name, int64_t v, tosac_error *err)
{
    ir_attr *a = slot(g, node, name, IR_ATTR_INT, err);
    if (!a)
        return err ? err->code : TOSAC_ERR_INTERNAL;
    a->i = v;
    return TOSAC_OK;
}

tosac_code ir_node_set_string(ir_graph *g, int node, const char *name, const char *v,
                              tosac_error *err)
{
    ir_attr *a = slot(g, node, name, IR_ATTR_STRING, err);
    if (!a)
        return err ? err->code : TOSAC_ERR_INTERNAL;
    a->s = ir_strdup(v ? v : "");
    return a->s ? TOSAC_OK : oom(g, node, err);
}

tosac_code ir_node_set_floats(ir_graph *g, int node, const char *name, const float *v, int n,
                              tosac_error *err)
{
    ir_attr *a = slot(g, node, name, IR_ATTR_FLOATS, err);
    if (!a)
        return err ? err->code : TOSAC_ERR_INTERNAL;
    a->floats = malloc((size_t)(n > 0 ? n : 1) * sizeof *a->floats);
    if (!a->floats)
        return oom(g, node, err);
    if (n > 0)
        memcpy(a->floats, v, (size_t)n * sizeof *v);
    a->n = n > 0 ? n : 0;
    return TOSAC_OK;
}

tosac_code ir_node_set_ints(ir_graph *g, int node, const char *name, const int64_t *v, int n,
                            tosac_error *err)
{
    ir_attr *a = slot(g, node, name, IR_ATTR_INTS, err);
    if (!a)
        return err ? err->code : TOSAC_ERR_INTERNAL;
    a->ints = malloc((size_t)(n > 0 ? n : 1) * sizeof *a->ints);
    if (!a->ints)
        return oom(g, node, err);
    if (n > 0)
        memcpy(a->ints, v, (size_t)n * sizeof *v);
    a->n = n > 0 ? n : 0;
    return TOSAC_OK;
}

tosac_code ir_node_set_strings(ir_graph *g, int node, const char *name, const char *const *v,
                               int n, tosac_error *err)
{
    ir_attr *a = slot(g, node, name, IR_ATTR_STRINGS, err);
    if (!a)
        return err ? err->code : TOSAC_ERR_INTERNAL;
    a->strings = calloc((size_t)(n > 0 ? n : 1), sizeof *a->strings);
    if (!a->strings)
        return oom(g, node, err);
    for (int i = 0; i < n; i++) {
        a->strings[i] = ir_strdup(v[i] ? v[i] : "");
        if (!a->strings[i])
            return oom(g, node, err);
        a->n = i + 1;
    }
    return TOSAC_OK;
}

tosac_code ir_node_set_tensor(ir_graph *g, int node, const char *name, const tosac_tensor *t,
                              tosac_error *err)
{
    ir_attr *a = slot(g, node, name, IR_ATTR_TENSOR, err);
    if (!a)
        return err ? err->code : TOSAC_ERR_INTERNAL;
    return ir_tensor_copy(&a->t, t, err);
}

tosac_code ir_node_take_tensor(ir_graph *g, int node, const char *name, tosac_tensor *t,
                               tosac_error *err)
{
    ir_attr *a = slot(g, node, name, IR_ATTR_TENSOR, err);
    if (!a) {
        tosac_tensor_free(t);
        return err ? err->code : TOSAC_ERR_INTERNAL;
    }
    if (!t->owns_data) /* a view: the attribute needs its own copy */
        return ir_tensor_copy(&a->t, t, err);
    a->t = *t;
    memset(t, 0, sizeof *t);
    return TOSAC_OK;
}

tosac_code ir_node_set_tensors(ir_graph *g, int node, const char *name, tosac_tensor *ts, int n,
                               tosac_error *err)
{
    ir_attr *a = slot(g, node, name, IR_ATTR_TENSORS, err);
    if (!a) {
        for (int i = 0; i < n; i++)
            tosac_tensor_free(&ts[i]);
        return err ? err->code : TOSAC_ERR_INTERNAL;
    }
    a->tensors = calloc((size_t)(n > 0 ? n : 1), sizeof *a->tensors);
    if (!a->tensors) {
        for (int i = 0; i < n; i++)
            tosac_tensor_free(&ts[i]);
        return oom(g, node, err);
    }
    for (int i = 0; i < n; i++)
        a->tensors[i] = ts[i];
    a->n = n > 0 ? n : 0;
    return TOSAC_OK;
}

tosac_code ir_node_set_graph(ir_graph *g, int node, const char *name, ir_graph *sub,
                             tosac_error *err)
{
    ir_attr *a = slot(g, node, name, IR_ATTR_GRAPH, err);
    if (!a) {
        ir_graph_free(sub);
        return err ? err->code : TOSAC_ERR_INTERNAL;
    }
    a->g = sub;
    if (sub)
        sub->parent = g;
    ir_index_note_body(g);
    return TOSAC_OK;
}

tosac_code ir_node_set_graphs(ir_graph *g, int node, const char *name, ir_graph **subs, int n,
                              tosac_error *err)
{
    ir_attr *a = slot(g, node, name, IR_ATTR_GRAPHS, err);
    if (a)
        a->graphs = calloc((size_t)(n > 0 ? n : 1), sizeof *a->graphs);
    if (!a || !a->graphs) {
        for (int i = 0; i < n; i++)
            ir_graph_free(subs[i]);
        return a ? oom(g, node, err) : (err ? err->code : TOSAC_ERR_INTERNAL);
    }
    for (int i = 0; i < n; i++) {
        a->graphs[i] = subs[i];
        subs[i]->parent = g;
    }
    ir_index_note_body(g);
    a->n = n > 0 ? n : 0;
    return TOSAC_OK;
}

