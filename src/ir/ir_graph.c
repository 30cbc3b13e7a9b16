/* Models, graphs, tensors and nodes: creation, lookup by name, release. */
#include "ir_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- small helpers ---- */

char *ir_strdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

int ir_grow(void **arr, int *cap, int need, size_t esz)
{
    if (need <= *cap)
        return 0;
    int ncap = *cap ? *cap : 8;
    while (ncap < need) {
        if (ncap > (1 << 28))
            return -1;
        ncap *= 2;
    }
    void *p = realloc(*arr, (size_t)ncap * esz);
    if (!p)
        return -1;
    memset((char *)p + (size_t)*cap * esz, 0, (size_t)(ncap - *cap) * esz);
    *arr = p;
    *cap = ncap;
    return 0;
}

const char *ir_node_desc(const ir_graph *g, int node, char *buf, size_t len)
{
    const ir_node *n = &g->nodes[node];
    snprintf(buf, len, "node %d (%s '%s')", node, n->op_type ? n->op_type : "?",
             n->name ? n->name : "");
    return buf;
}

/* ---- name index: open addressing, ids + 1 stored (0 = empty) ---- */

typedef struct name_index {
    int *slots;
    size_t cap;
    /* whether a node of the graph holds a body, for fresh names (name_taken_deep): -1 not
     * known, 0 none, 1 some. Bodies are attached only by ir_node_set_graph(s), which set 1
     * (ir_index_note_body); onnx_fold_if moves bodies only into a graph whose If holds
     * bodies. Killing or compacting nodes keeps 1: a rebuild asks again. */
    signed char bodies;
} name_index;

static size_t hash_name(const char *s)
{
    size_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static void index_put(name_index *ix, const ir_graph *g, int id)
{
    size_t h = hash_name(g->tensors[id].name) & (ix->cap - 1);
    while (ix->slots[h])
        h = (h + 1) & (ix->cap - 1);
    ix->slots[h] = id + 1;
}

void ir_index_rebuild(ir_graph *g)
{
    name_index *ix = g->index_;
    if (!ix) {
        ix = calloc(1, sizeof *ix);
        if (!ix)
            return;
        g->index_ = ix;
    }
    size_t cap = 64;
    while (cap < (size_t)g->n_tensors * 2 + 2)
        cap *= 2;
    int *slots = calloc(cap, sizeof *slots);
    if (!slots) {
        /* Without an index lookups fall back to a linear scan. */
        free(ix->slots);
        free(ix);
        g->index_ = NULL;
        return;
    }
    free(ix->slots);
    ix->slots = slots;
    ix->cap = cap;
    ix->bodies = -1;
    for (int i = 0; i < g->n_tensors; i++)
        index_put(ix, g, i);
}

static void index_add(ir_graph *g, int id)
{
    name_index *ix = g->index_;
    if (!ix || (size_t)(id + 1) * 2 + 2 > ix->cap)
        ir_index_rebuild(g);
    else
        index_put(ix, g, id);
}

int ir_graph_find_tensor(const ir_graph *g, const char *name)
{
    if (!g || !name)
        return -1;
    const name_index *ix = g->index_;
    if (!ix) {
        for (int i = 0; i < g->n_tensors; i++)
            if (strcmp(g->tensors[i].name, name) == 0)
                return i;
        return -1;
    }
    size_t h = hash_name(name) & (ix->cap - 1);
    while (ix->slots[h]) {
        int id = ix->slots[h] - 1;
        if (strcmp(g->tensors[id].name, name) == 0)
            return id;
        h = (h + 1) & (ix->cap - 1);
    }
    return -1;
}

/* ---- models ---- */

ir_model *ir_model_new(void)
{
    ir_model *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->ir_version = 8;
    m->graph = ir_graph_new("main", NULL);
    if (!m->graph || ir_model_set_opset(m, IR_DOMAIN_ONNX, 13, NULL) != TOSAC_OK) {
        ir_model_free(m);
        return NULL;
    }
    return m;
}

void ir_model_free(ir_model *m)
{
    if (!m)
        return;
    ir_graph_free(m->graph);
    for (int i = 0; i < m->n_opsets; i++)
        free(m->opsets[i].domain);
    free(m->opsets);
    free(m->producer_name);
    free(m->producer_version);
    free(m);
}

static const char *canon_domain(const char *d)
{
    return (!d || strcmp(d, "ai.onnx") == 0) ? "" : d;
}

tosac_code ir_model_set_opset(ir_model *m, const char *domain, int64_t version, tosac_error *err)
{
    domain = canon_domain(domain);
    if (domain[0] == '\0' && m->graph)
        m->graph->onnx_opset = version;
    for (int i = 0; i < m->n_opsets; i++)
        if (strcmp(m->opsets[i].domain, domain) == 0) {
            m->opsets[i].version = version;
            return TOSAC_OK;
        }
    ir_opset *p = realloc(m->opsets, (size_t)(m->n_opsets + 1) * sizeof *p);
    if (!p)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    m->opsets = p;
    p[m->n_opsets].domain = ir_strdup(domain);
    if (!p[m->n_opsets].domain)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    p[m->n_opsets].version = version;
    m->n_opsets++;
    return TOSAC_OK;
}

int64_t ir_model_opset(const ir_model *m, const char *domain)
{
    domain = canon_domain(domain);
    for (int i = 0; i < m->n_opsets; i++)
        if (strcmp(m->opsets[i].domain, domain) == 0)
            return m->opsets[i].version;
    return 0;
}

/* ---- graphs ---- */

ir_graph *ir_graph_new(const char *name, ir_graph *parent)
{
    ir_graph *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->name = ir_strdup(name ? name : "");
    if (!g->name) {
        free(g);
        return NULL;
    }
    g->parent = parent;
    return g;
}

void ir_tensor_fini(ir_tensor *t)
{
    free(t->name);
    for (int d = 0; d < TOSAC_MAX_RANK; d++)
        free(t->dim_param[d]);
    if (t->quant) {
        free(t->quant->scale);
        free(t->quant->zero_point);
        free(t->quant);
    }
    free(t->data);
    memset(t, 0, sizeof *t);
}

void ir_node_fini(ir_node *n)
{
    free(n->name);
    free(n->inputs);
    free(n->outputs);
    for (int i = 0; i < n->n_attrs; i++)
        ir_attr_free(&n->attrs[i]);
    free(n->attrs);
    memset(n, 0, sizeof *n);
}

void ir_graph_free(ir_graph *g)
{
    if (!g)
        return;
    for (int i = 0; i < g->n_tensors; i++)
        ir_tensor_fini(&g->tensors[i]);
    for (int i = 0; i < g->n_nodes; i++)
        ir_node_fini(&g->nodes[i]);
    free(g->tensors);
    free(g->nodes);
    free(g->inputs);
    free(g->outputs);
    name_index *ix = g->index_;
    if (ix) {
        free(ix->slots);
        free(ix);
    }
    free(g->name);
    free(g);
}

/* ---- tensors ---- */

int ir_graph_add_tensor(ir_graph *g, const char *name, tosac_dtype dt, int rank,
                        const int64_t *shape, tosac_error *err)
{
    if (!name) {
        tosac_fail(err, TOSAC_ERR_INPUT, "tensor without a name");
        return -1;
    }
    if (rank < -1 || rank > TOSAC_MAX_RANK) {
        tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "tensor '%s': rank %d is outside 0..%d", name,
                   rank, TOSAC_MAX_RANK);
        return -1;
    }
    if ((unsigned)dt >= TOSAC_DT_COUNT) {
        tosac_fail(err, TOSAC_ERR_INPUT, "tensor '%s': invalid dtype %d", name, (int)dt);
        return -1;
    }
    if (ir_graph_find_tensor(g, name) >= 0) {
        tosac_fail(err, TOSAC_ERR_INPUT, "graph '%s': tensor name '%s' is used twice", g->name,
                   name);
        return -1;
    }
    /* copied before the array grows: callers pass another tensor's shape (a constant made
     * like an existing one), which the growth would free */
    int64_t dims[TOSAC_MAX_RANK];
    for (int d = 0; d < rank; d++) {
        dims[d] = shape ? shape[d] : -1;
        if (dims[d] < -1) {
            tosac_fail(err, TOSAC_ERR_INPUT, "tensor '%s': dimension %d is %lld", name, d,
                       (long long)dims[d]);
            return -1;
        }
    }
    if (ir_grow((void **)&g->tensors, &g->cap_tensors, g->n_tensors + 1, sizeof *g->tensors)) {
        tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        return -1;
    }
    ir_tensor *t = &g->tensors[g->n_tensors];
    memset(t, 0, sizeof *t);
    t->name = ir_strdup(name);
    if (!t->name) {
        tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        return -1;
    }
    t->dtype = dt;
    t->rank = rank;
    for (int d = 0; d < rank; d++)
        t->shape[d] = dims[d];
    t->outer_id = -1;
    int id = g->n_tensors++;
    index_add(g, id);
    return id;
}

static tosac_code check_data_size(const ir_tensor *t, size_t nbytes, tosac_error *err)
{
    if (t->rank < 0)
        return tosac_fail(err, TOSAC_ERR_INPUT, "constant '%s' has no shape", t->name);
    for (int d = 0; d < t->rank; d++)
        if (t->shape[d] < 0)
            return tosac_fail(err, TOSAC_ERR_INPUT, "constant '%s' has an unknown dimension",
                              t->name);
    size_t want;
    tosac_error e2;
    tosac_error_clear(&e2);
    if (tosac_shape_check(t->dtype, t->rank, t->shape, &want, &e2))
        return tosac_fail(err, e2.code, "constant '%s': %s", t->name, e2.msg);
    if (want != nbytes)
        return tosac_fail(err, TOSAC_ERR_INPUT, "constant '%s': %zu bytes of data for %zu needed",
                          t->name, nbytes, want);
    return TOSAC_OK;
}

int ir_graph_add_const_owned(ir_graph *g, const char *name, tosac_dtype dt, int rank,
                             const int64_t *shape, void *data, size_t nbytes, tosac_error *err)
{
    int id = ir_graph_add_tensor(g, name, dt, rank, shape, err);
    if (id < 0) {
        free(data);
        return -1;
    }
    ir_tensor *t = &g->tensors[id];
    if (check_data_size(t, nbytes, err)) {
        free(data);
        /* Leave the tensor without data: the caller abandons the graph on error. */
        return -1;
    }
    if (!data) {
        data = calloc(1, 1);
        if (!data) {
            tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
            return -1;
        }
    }
    t->data = data;
    t->nbytes = nbytes;
    return id;
}

int ir_graph_add_const(ir_graph *g, const char *name, tosac_dtype dt, int rank,
                       const int64_t *shape, const void *data, size_t nbytes, tosac_error *err)
{
    void *copy = malloc(nbytes ? nbytes : 1);
    if (!copy) {
        tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        return -1;
    }
    if (nbytes)
        memcpy(copy, data, nbytes);
    return ir_graph_add_const_owned(g, name, dt, rank, shape, copy, nbytes, err);
}

static tosac_code push_id(int **arr, int *n, int *cap, int id, tosac_error *err)
{
    if (ir_grow((void **)arr, cap, *n + 1, sizeof **arr))
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    (*arr)[(*n)++] = id;
    return TOSAC_OK;
}

tosac_code ir_graph_mark_input(ir_graph *g, int tensor, tosac_error *err)
{
    if (tensor < 0 || tensor >= g->n_tensors)
        return tosac_fail(err, TOSAC_ERR_INPUT, "graph input: tensor %d out of range", tensor);
    return push_id(&g->inputs, &g->n_inputs, &g->cap_inputs, tensor, err);
}

tosac_code ir_graph_mark_output(ir_graph *g, int tensor, tosac_error *err)
{
    if (tensor < 0 || tensor >= g->n_tensors)
        return tosac_fail(err, TOSAC_ERR_INPUT, "graph output: tensor %d out of range", tensor);
    return push_id(&g->outputs, &g->n_outputs, &g->cap_outputs, tensor, err);
}

int ir_graph_add_input(ir_graph *g, const char *name, tosac_dtype dt, int rank,
                       const int64_t *shape, tosac_error *err)
{
    int id = ir_graph_add_tensor(g, name, dt, rank, shape, err);
    if (id >= 0 && ir_graph_mark_input(g, id, err))
        return -1;
    return id;
}

int ir_graph_resolve_tensor(ir_graph *g, const char *name, tosac_error *err)
{
    int id = ir_graph_find_tensor(g, name);
    if (id >= 0 || !g->parent)
        return id;
    int outer = ir_graph_resolve_tensor(g->parent, name, err);
    if (outer < 0)
        return -1;
    const ir_tensor *o = &g->parent->tensors[outer];
    int64_t shape[TOSAC_MAX_RANK];
    memcpy(shape, o->shape, sizeof shape);
    id = ir_graph_add_tensor(g, name, o->dtype, o->rank, shape, err);
    if (id >= 0)
        g->tensors[id].outer_id = outer;
    return id;
}

void ir_index_note_body(ir_graph *g)
{
    name_index *ix = g->index_;
    if (ix)
        ix->bodies = 1;
}

/* Whether a node of g (dead ones included) holds a body; remembered in the index. */
static bool holds_bodies(const ir_graph *g)
{
    name_index *ix = g->index_;
    if (ix && ix->bodies >= 0)
        return ix->bodies;
    bool any = false;
    for (int i = 0; i < g->n_nodes && !any; i++)
        any = ir_node_subgraph(&g->nodes[i], 0) != NULL;
    if (ix)
        ix->bodies = any;
    return any;
}

/* True when name is a tensor of g or of a body nested in g's nodes. */
static bool name_taken_deep(const ir_graph *g, const char *name)
{
    if (ir_graph_find_tensor(g, name) >= 0)
        return true;
    if (!holds_bodies(g))
        return false;
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_graph *sub;
        for (int k = 0; (sub = ir_node_subgraph(&g->nodes[i], k)); k++)
            if (name_taken_deep(sub, name))
                return true;
    }
    return false;
}

/* Names used by nested bodies are avoided too: a body reads an outer tensor under the outer
 * tensor's name (captures), which must not meet a tensor of the body. */
void ir_graph_unique_name(const ir_graph *g, const char *prefix, char *buf, size_t len)
{
    snprintf(buf, len, "%s", prefix);
    for (int k = 1; name_taken_deep(g, buf); k++)
        snprintf(buf, len, "%s_%d", prefix, k);
}

void ir_sync_capture_names(ir_graph *g, int tensor)
{
    if (tensor < 0 || tensor >= g->n_tensors)
        return;
    const char *name = g->tensors[tensor].name;
    for (int i = 0; i < g->n_nodes; i++) {
        ir_graph *sub;
        for (int k = 0; (sub = ir_node_subgraph(&g->nodes[i], k)); k++)
            for (int t = 0; t < sub->n_tensors; t++) {
                ir_tensor *c = &sub->tensors[t];
                if (c->outer_id != tensor || strcmp(c->name, name) == 0 ||
                    ir_graph_find_tensor(sub, name) >= 0)
                    continue;
                char *copy = ir_strdup(name);
                if (!copy)
                    continue; /* the old name stays: outer_id, not the name, is the link */
                free(c->name);
                c->name = copy;
                ir_index_rebuild(sub);
                ir_sync_capture_names(sub, t);
            }
    }
}

tosac_code ir_graph_rename_tensor(ir_graph *g, int tensor, const char *name, tosac_error *err)
{
    if (tensor < 0 || tensor >= g->n_tensors || !name)
        return tosac_fail(err, TOSAC_ERR_INPUT, "rename: tensor %d out of range", tensor);
    int other = ir_graph_find_tensor(g, name);
    if (other == tensor)
        return TOSAC_OK;
    if (other >= 0)
        return tosac_fail(err, TOSAC_ERR_INPUT, "rename: tensor name '%s' is already used", name);
    char *copy = ir_strdup(name);
    if (!copy)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    free(g->tensors[tensor].name);
    g->tensors[tensor].name = copy;
    ir_index_rebuild(g);
    ir_sync_capture_names(g, tensor);
    return TOSAC_OK;
}

tosac_code ir_tensor_set_dim_param(ir_graph *g, int tensor, int d, const char *param,
                                   tosac_error *err)
{
    if (tensor < 0 || tensor >= g->n_tensors || d < 0 || d >= TOSAC_MAX_RANK)
        return tosac_fail(err, TOSAC_ERR_INPUT, "dim_param: tensor %d dim %d out of range",
                          tensor, d);
    char *copy = NULL;
    if (param && !(copy = ir_strdup(param)))
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    free(g->tensors[tensor].dim_param[d]);
    g->tensors[tensor].dim_param[d] = copy;
    return TOSAC_OK;
}

tosac_code ir_tensor_set_data(ir_graph *g, int tensor, const void *data, size_t nbytes,
                              tosac_error *err)
{
    if (tensor < 0 || tensor >= g->n_tensors)
        return tosac_fail(err, TOSAC_ERR_INPUT, "set data: tensor %d out of range", tensor);
    ir_tensor *t = &g->tensors[tensor];
    if (check_data_size(t, nbytes, err))
        return err ? err->code : TOSAC_ERR_INPUT;
    void *copy = malloc(nbytes ? nbytes : 1);
    if (!copy)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    if (nbytes)
        memcpy(copy, data, nbytes);
    free(t->data);
    t->data = copy;
    t->nbytes = nbytes;
    return TOSAC_OK;
}

tosac_code ir_tensor_set_quant(ir_graph *g, int tensor, const float *scale,
                               const int64_t *zero_point, int n, int axis,
                               tosac_dtype zp_dtype, tosac_error *err)
{
    if (tensor < 0 || tensor >= g->n_tensors)
        return tosac_fail(err, TOSAC_ERR_INPUT, "set quant: tensor %d out of range", tensor);
    if (n < 1 || (axis < 0 && n != 1) || axis < -1)
        return tosac_fail(err, TOSAC_ERR_INPUT,
                          "tensor '%s': %d quantization scales with axis %d",
                          g->tensors[tensor].name, n, axis);
    ir_quant *q = calloc(1, sizeof *q);
    if (q) {
        q->scale = malloc((size_t)n * sizeof *q->scale);
        q->zero_point = calloc((size_t)n, sizeof *q->zero_point);
    }
    if (!q || !q->scale || !q->zero_point) {
        if (q) {
            free(q->scale);
            free(q->zero_point);
        }
        free(q);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    }
    memcpy(q->scale, scale, (size_t)n * sizeof *scale);
    if (zero_point)
        memcpy(q->zero_point, zero_point, (size_t)n * sizeof *zero_point);
    q->n = n;
    q->axis = axis;
    q->zp_dtype = zp_dtype;
    ir_tensor_clear_quant(g, tensor);
    g->tensors[tensor].quant = q;
    return TOSAC_OK;
}

void ir_tensor_clear_quant(ir_graph *g, int tensor)
{
    if (tensor < 0 || tensor >= g->n_tensors || !g->tensors[tensor].quant)
        return;
    ir_quant *q = g->tensors[tensor].quant;
    free(q->scale);
    free(q->zero_point);
    free(q);
    g->tensors[tensor].quant = NULL;
}

/* ---- nodes ---- */

int ir_graph_add_node(ir_graph *g, const char *op_type, const char *domain, const char *name,
                      const int *inputs, int n_inputs, const int *outputs, int n_outputs,
                      tosac_error *err)
{
    if (!op_type || !*op_type) {
        tosac_fail(err, TOSAC_ERR_INPUT, "graph '%s': node '%s' has no op_type", g->name,
                   name ? name : "");
        return -1;
    }
    if (n_inputs < 0 || n_outputs < 0) {
        tosac_fail(err, TOSAC_ERR_INPUT, "node '%s': negative input/output count",
                   name ? name : "");
        return -1;
    }
    if (ir_grow((void **)&g->nodes, &g->cap_nodes, g->n_nodes + 1, sizeof *g->nodes)) {
        tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        return -1;
    }
    ir_node *n = &g->nodes[g->n_nodes];
    memset(n, 0, sizeof *n);
    n->op_type = ir_intern(op_type);
    n->domain = ir_intern(domain ? canon_domain(domain) : "");
    n->name = ir_strdup(name ? name : "");
    n->inputs = malloc((size_t)(n_inputs ? n_inputs : 1) * sizeof(int));
    n->outputs = malloc((size_t)(n_outputs ? n_outputs : 1) * sizeof(int));
    if (!n->op_type || !n->domain || !n->name || !n->inputs || !n->outputs) {
        ir_node_fini(n);
        tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        return -1;
    }
    if (n_inputs)
        memcpy(n->inputs, inputs, (size_t)n_inputs * sizeof(int));
    if (n_outputs)
        memcpy(n->outputs, outputs, (size_t)n_outputs * sizeof(int));
    n->n_inputs = n_inputs;
    n->n_outputs = n_outputs;
    return g->n_nodes++;
}

int ir_graph_count_nodes_deep(const ir_graph *g)
{
    int count = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (n->dead)
            continue;
        count++;
        const ir_graph *sub;
        for (int k = 0; (sub = ir_node_subgraph(n, k)); k++)
            count += ir_graph_count_nodes_deep(sub);
    }
    return count;
}
