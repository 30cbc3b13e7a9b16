/* Building TOSA graphs (lowering, tests): growth by realloc under the libc allocator, so
 * tosa_graph_free (graph.c) releases what is built here. Not linked by the runtime. */
#include "tosa/tosa_internal.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

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
        g->alloc = *tosac_libc_allocator();
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

tosac_code tosa_region_take_blocks(tosa_region *dst, tosa_region *src, tosac_error *err)
{
    for (int i = 0; i < src->n_blocks; i++) {
        if (!grow((void **)&dst->blocks, &dst->cap_blocks, dst->n_blocks, sizeof *dst->blocks))
            return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory moving TOSA blocks");
        dst->blocks[dst->n_blocks++] = src->blocks[i];
        memset(&src->blocks[i], 0, sizeof src->blocks[i]);
    }
    src->n_blocks = 0;
    return TOSAC_OK;
}

/* tosa_block_add_tensor without the (linear) duplicate-name check */
int tosa_block_add_new_tensor(tosa_block *b, const char *name, tosac_dtype dt, int rank,
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
    return tosa_block_add_new_tensor(b, name, dt, rank, shape, data, data_size, err);
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

static char *dup_str(const char *s, bool *oom)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        *oom = true;
    return d;
}

tosac_code tosa_attr_copy(tosa_attr *dst, const tosa_attr *src, tosac_error *err)
{
    bool oom = false;
    *dst = *src;
    dst->then_graph = dup_str(src->then_graph, &oom);
    dst->else_graph = dup_str(src->else_graph, &oom);
    dst->cond_graph = dup_str(src->cond_graph, &oom);
    dst->body_graph = dup_str(src->body_graph, &oom);
    dst->custom_operator_name = dup_str(src->custom_operator_name, &oom);
    dst->custom_domain_name = dup_str(src->custom_domain_name, &oom);
    dst->custom_impl_attrs = NULL;
    if (src->custom_impl_attrs) {
        /* Keep "present but empty" distinct from absent: allocate at least one byte. */
        dst->custom_impl_attrs = malloc(src->n_custom_impl_attrs ? src->n_custom_impl_attrs : 1);
        if (dst->custom_impl_attrs)
            memcpy(dst->custom_impl_attrs, src->custom_impl_attrs, src->n_custom_impl_attrs);
        else
            oom = true;
    }
    if (oom) {
        tosa_attr_release(dst);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory copying attributes");
    }
    return TOSAC_OK;
}

void tosa_attr_release(tosa_attr *a)
{
    free(a->then_graph);
    free(a->else_graph);
    free(a->cond_graph);
    free(a->body_graph);
    free(a->custom_operator_name);
    free(a->custom_domain_name);
    free(a->custom_impl_attrs);
    a->then_graph = a->else_graph = a->cond_graph = a->body_graph = NULL;
    a->custom_operator_name = a->custom_domain_name = NULL;
    a->custom_impl_attrs = NULL;
    a->n_custom_impl_attrs = 0;
}
