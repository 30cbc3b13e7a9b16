/* The in-memory TOSA graph: building, lookup and release. */
#include "tosa/tosa_internal.h"

#include <stdlib.h>
#include <string.h>

/* Grows *arr (elements of size sz) so that one more fits; returns false on overflow/OOM. */
static bool grow(void **arr, int *cap, int n, size_t sz)
{
    if (n < *cap)
        return true;
    if (*cap > (1 << 28))
        return false;
    int nc = *cap ? *cap * 2 : 4;
    void *p = realloc(*arr, (size_t)nc * sz);
    if (!p)
        return false;
    memset((char *)p + (size_t)*cap * sz, 0, (size_t)(nc - *cap) * sz);
    *arr = p;
    *cap = nc;
    return true;
}

tosa_graph *tosa_graph_new(int major, int minor)
{
    tosa_graph *g = calloc(1, sizeof *g);
    if (g) {
        g->ver_major = major;
        g->ver_minor = minor;
        g->ver_patch = 0;
        g->ver_draft = false;
    }
    return g;
}

static void tensor_release(tosa_tensor *t)
{
    free(t->name);
    free(t->data);
    free(t->variable_name);
}

static void op_release(tosa_operator *o)
{
    tosa_attr_release(&o->attr);
    free(o->inputs);
    free(o->outputs);
    free(o->location);
}

static void block_release(tosa_block *b)
{
    for (int i = 0; i < b->n_tensors; i++)
        tensor_release(&b->tensors[i]);
    for (int i = 0; i < b->n_ops; i++)
        op_release(&b->ops[i]);
    free(b->tensors);
    free(b->ops);
    free(b->inputs);
    free(b->outputs);
    free(b->name);
}

void tosa_graph_free(tosa_graph *g)
{
    if (!g)
        return;
    for (int r = 0; r < g->n_regions; r++) {
        tosa_region *reg = &g->regions[r];
        for (int i = 0; i < reg->n_blocks; i++)
            block_release(&reg->blocks[i]);
        free(reg->blocks);
        free(reg->name);
    }
    free(g->regions);
    free(g);
}

tosa_region *tosa_graph_add_region(tosa_graph *g, const char *name)
{
    if (!grow((void **)&g->regions, &g->cap_regions, g->n_regions, sizeof *g->regions))
        return NULL;
    char *nm = strdup(name ? name : "");
    if (!nm)
        return NULL;
    tosa_region *r = &g->regions[g->n_regions++];
    memset(r, 0, sizeof *r);
    r->name = nm;
    return r;
}

tosa_block *tosa_region_add_block(tosa_region *r, const char *name)
{
    if (!grow((void **)&r->blocks, &r->cap_blocks, r->n_blocks, sizeof *r->blocks))
        return NULL;
    char *nm = strdup(name ? name : "");
    if (!nm)
        return NULL;
    tosa_block *b = &r->blocks[r->n_blocks++];
    memset(b, 0, sizeof *b);
    b->name = nm;
    return b;
}

int tosa_block_find_tensor(const tosa_block *b, const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; i < b->n_tensors; i++)
        if (strcmp(b->tensors[i].name, name) == 0)
            return i;
    return -1;
}

int tosa_block_push_tensor(tosa_block *b, const char *name, tosac_dtype dt, int rank,
                           const int64_t *shape, const void *data, size_t data_size,
                           tosac_error *err)
{
    if (!name) {
        tosac_fail(err, TOSAC_ERR_INPUT, "block '%s': tensor without a name", b->name);
        return -1;
    }
    if (rank < 0 || rank > TOSAC_MAX_RANK) {
        tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "tensor '%s': rank %d is outside 0..%d", name,
                   rank, TOSAC_MAX_RANK);
        return -1;
    }
    if (!grow((void **)&b->tensors, &b->cap_tensors, b->n_tensors, sizeof *b->tensors)) {
        tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory adding tensor '%s'", name);
        return -1;
    }
    tosa_tensor *t = &b->tensors[b->n_tensors];
    memset(t, 0, sizeof *t);
    t->name = strdup(name);
    t->dtype = dt;
    t->rank = rank;
    for (int i = 0; i < rank; i++)
        t->shape[i] = shape[i];
    if (data) {
        /* At least one byte so that "constant with no elements" stays distinct from "no data". */
        t->data = malloc(data_size ? data_size : 1);
        if (t->data)
            memcpy(t->data, data, data_size);
        t->data_size = data_size;
    }
    if (!t->name || (data && !t->data)) {
        tensor_release(t);
        tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory adding tensor '%s'", name);
        return -1;
    }
    return b->n_tensors++;
}

int tosa_block_add_tensor(tosa_block *b, const char *name, tosac_dtype dt, int rank,
                          const int64_t *shape, const void *data, size_t data_size,
                          tosac_error *err)
{
    if (name && tosa_block_find_tensor(b, name) >= 0) {
        tosac_fail(err, TOSAC_ERR_INPUT, "block '%s': duplicate tensor name '%s'", b->name, name);
        return -1;
    }
    return tosa_block_push_tensor(b, name, dt, rank, shape, data, data_size, err);
}

static int *dup_indices(const int *src, int n, bool *oom)
{
    if (n <= 0)
        return NULL;
    int *d = malloc((size_t)n * sizeof *d);
    if (!d) {
        *oom = true;
        return NULL;
    }
    memcpy(d, src, (size_t)n * sizeof *d);
    return d;
}

static tosac_code check_indices(const tosa_block *b, const int *idx, int n, const char *what,
                                tosac_error *err)
{
    if (n < 0 || (n > 0 && !idx))
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "block '%s': bad %s list", b->name, what);
    for (int i = 0; i < n; i++)
        if (idx[i] < 0 || idx[i] >= b->n_tensors)
            return tosac_fail(err, TOSAC_ERR_INTERNAL, "block '%s': %s %d is tensor index %d, "
                              "outside 0..%d", b->name, what, i, idx[i], b->n_tensors - 1);
    return TOSAC_OK;
}

int tosa_block_add_op(tosa_block *b, tosa_op op, const tosa_attr *attr, const int *inputs,
                      int n_inputs, const int *outputs, int n_outputs, tosac_error *err)
{
    if ((unsigned)op >= TOSA_OP_COUNT || op == TOSA_OP_UNKNOWN) {
        tosac_fail(err, TOSAC_ERR_INTERNAL, "block '%s': bad operator number %d", b->name, (int)op);
        return -1;
    }
    if (check_indices(b, inputs, n_inputs, "input", err) ||
        check_indices(b, outputs, n_outputs, "output", err))
        return -1;
    if (!grow((void **)&b->ops, &b->cap_ops, b->n_ops, sizeof *b->ops)) {
        tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory adding an operator");
        return -1;
    }
    tosa_operator *o = &b->ops[b->n_ops];
    memset(o, 0, sizeof *o);
    o->op = op;
    if (attr && tosa_attr_copy(&o->attr, attr, err))
        return -1;
    bool oom = false;
    o->inputs = dup_indices(inputs, n_inputs, &oom);
    o->outputs = dup_indices(outputs, n_outputs, &oom);
    o->n_inputs = n_inputs;
    o->n_outputs = n_outputs;
    if (oom) {
        op_release(o);
        tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory adding an operator");
        return -1;
    }
    return b->n_ops++;
}

tosac_code tosa_block_set_io(tosa_block *b, const int *inputs, int n_inputs, const int *outputs,
                             int n_outputs, tosac_error *err)
{
    tosac_code rc;
    if ((rc = check_indices(b, inputs, n_inputs, "block input", err)) ||
        (rc = check_indices(b, outputs, n_outputs, "block output", err)))
        return rc;
    bool oom = false;
    int *in = dup_indices(inputs, n_inputs, &oom), *out = dup_indices(outputs, n_outputs, &oom);
    if (oom) {
        free(in);
        free(out);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory setting block inputs/outputs");
    }
    free(b->inputs);
    free(b->outputs);
    b->inputs = in;
    b->n_inputs = n_inputs;
    b->outputs = out;
    b->n_outputs = n_outputs;
    return TOSAC_OK;
}

const tosa_block *tosa_graph_main_block(const tosa_graph *g)
{
    if (!g || g->n_regions < 1 || g->regions[0].n_blocks < 1)
        return NULL;
    const tosa_region *r = &g->regions[0];
    for (int i = 0; i < r->n_blocks; i++)
        if (strcmp(r->blocks[i].name, "main") == 0)
            return &r->blocks[i];
    return &r->blocks[0];
}

const tosa_block *tosa_graph_find_block(const tosa_graph *g, const char *name)
{
    if (!g || !name)
        return NULL;
    for (int r = 0; r < g->n_regions; r++)
        if (strcmp(g->regions[r].name, name) == 0 && g->regions[r].n_blocks > 0)
            return &g->regions[r].blocks[0];
    for (int r = 0; r < g->n_regions; r++)
        for (int i = 0; i < g->regions[r].n_blocks; i++)
            if (strcmp(g->regions[r].blocks[i].name, name) == 0)
                return &g->regions[r].blocks[i];
    return NULL;
}
