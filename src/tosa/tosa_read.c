/* The verifying .tosa reader: graph, regions, blocks, tensors and shapes.
 * The buffer is untrusted: every access goes through fb_read's bounds checks and every
 * value is validated before it lands in the in-memory graph. */
#include "tosa/tosa_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"

tosac_code tosa_reader_charge(tosa_reader *r, uint64_t n)
{
    if (n > r->budget)
        return tosac_fail(r->err, TOSAC_ERR_INPUT, "corrupt .tosa file: content is larger "
                          "than the file allows (shared or overlapping tables)");
    r->budget -= n;
    return TOSAC_OK;
}

static tosac_code read_name(tosa_reader *r, const fb_table *t, int id, char **out,
                            const char *what)
{
    const char *s;
    size_t n;
    bool present;
    tosac_code rc = fb_str_field(&r->b, t, id, &s, &n, &present, what);
    *out = NULL;
    if (rc || !present)
        return rc;
    if ((rc = tosa_reader_charge(r, n + 1)) != TOSAC_OK)
        return rc;
    *out = strdup(s);
    return *out ? TOSAC_OK : tosac_fail(r->err, TOSAC_ERR_INTERNAL, "out of memory");
}

static tosac_code read_version(tosa_reader *r, const fb_table *root, tosa_graph *g)
{
    fb_table v;
    bool present;
    uint64_t x[4];
    bool has[4];
    tosac_code rc = fb_table_field(&r->b, root, 0, &v, &present, "version");
    if (rc)
        return rc;
    if (!present)
        return tosac_fail(r->err, TOSAC_ERR_INPUT, "bad .tosa file: no version");
    for (int i = 0; i < 4; i++)
        if ((rc = fb_scalar(&r->b, &v, i, i < 3 ? 4 : 1, &x[i], &has[i], "version")) != TOSAC_OK)
            return rc;
    /* Schema defaults: -1 for the numbers, true for _draft. */
    g->ver_major = has[0] ? (int32_t)(uint32_t)x[0] : -1;
    g->ver_minor = has[1] ? (int32_t)(uint32_t)x[1] : -1;
    g->ver_patch = has[2] ? (int32_t)(uint32_t)x[2] : -1;
    g->ver_draft = has[3] ? x[3] != 0 : true;
    if (g->ver_major != 1 || (g->ver_minor != 0 && g->ver_minor != 1) || g->ver_patch < 0)
        return tosac_fail(r->err, TOSAC_ERR_INPUT,
                          "unsupported .tosa version %d.%d.%d (supported: 1.0.x and 1.1.x)",
                          (int)g->ver_major, (int)g->ver_minor, (int)g->ver_patch);
    if (g->ver_draft)
        return tosac_fail(r->err, TOSAC_ERR_INPUT,
                          "unsupported .tosa version %d.%d.%d draft: pre-final files number "
                          "types and operators differently", (int)g->ver_major,
                          (int)g->ver_minor, (int)g->ver_patch);
    r->minor = g->ver_minor;
    return TOSAC_OK;
}

/* Decodes a data vector of n_elem elements of dt into a fresh buffer on t. */
static tosac_code read_data(tosa_reader *r, const fb_vec *v, tosa_tensor *t, uint64_t n_elem,
                            const char *blk)
{
    uint64_t need = tosa_data_file_bytes(t->dtype, n_elem);
    char sh[160];
    if (v->n < need)
        return tosac_fail(r->err, TOSAC_ERR_INPUT,
                          "bad .tosa file: block '%s': tensor '%s' has %u data bytes, shape %s of "
                          "%s needs %llu", blk, t->name, (unsigned)v->n,
                          tosac_shape_str(t->rank, t->shape, sh, sizeof sh),
                          tosa_dtype_tosa_name(t->dtype), (unsigned long long)need);
    tosac_code rc = tosa_reader_charge(r, need);
    if (rc)
        return rc;
    size_t bytes = (size_t)n_elem * tosac_dtype_size(t->dtype);
    t->data = malloc(bytes ? bytes : 1);
    if (!t->data)
        return tosac_fail(r->err, TOSAC_ERR_INTERNAL, "out of memory reading tensor '%s'", t->name);
    t->data_size = bytes;
    tosa_data_decode(t->dtype, r->b.p + v->pos, n_elem, t->data);
    return TOSAC_OK;
}

static tosac_code read_tensor(tosa_reader *r, const fb_table *tt, int index, tosa_block *b)
{
    char what[160], *name = NULL;
    snprintf(what, sizeof what, "block '%.40s' tensor %d", b->name, index);
    const fb_buf *fb = &r->b;
    tosac_code rc = read_name(r, tt, 0, &name, what);
    if (rc)
        return rc;
    if (!name)
        return tosac_fail(r->err, TOSAC_ERR_INPUT, "bad .tosa file: %s has no name", what);
    snprintf(what, sizeof what, "block '%.40s' tensor '%.40s'", b->name, name);

    fb_vec shape, data;
    bool has_shape, has_data, present;
    uint64_t type, flag_var, flag_unranked, ext_off, ext_size;
    if ((rc = fb_vec_field(fb, tt, 1, 4, &shape, &has_shape, what)) ||
        (rc = fb_scalar(fb, tt, 2, 4, &type, &present, what)) ||
        (rc = fb_vec_field(fb, tt, 3, 1, &data, &has_data, what)) ||
        (rc = fb_scalar(fb, tt, 4, 1, &flag_var, &present, what)) ||
        (rc = fb_scalar(fb, tt, 5, 1, &flag_unranked, &present, what)) ||
        (rc = fb_scalar(fb, tt, 7, 8, &ext_off, &present, what)) ||
        (rc = fb_scalar(fb, tt, 8, 8, &ext_size, &present, what)))
        goto out;
    int dt = tosa_dtype_from_file((uint32_t)type, r->minor);
    if (dt <= 0 || type > UINT32_MAX) {
        rc = tosac_fail(r->err, TOSAC_ERR_INPUT, "bad .tosa file: %s has DType %llu, not a "
                        "TOSA 1.%d element type", what, (unsigned long long)type, r->minor);
        goto out;
    }
    if (shape.n > TOSAC_MAX_RANK) {
        rc = tosac_fail(r->err, TOSAC_ERR_INPUT, "bad .tosa file: %s has rank %u, more than %d",
                        what, (unsigned)shape.n, TOSAC_MAX_RANK);
        goto out;
    }
    if (ext_off > 1) {
        rc = tosac_fail(r->err, TOSAC_ERR_INPUT,
                        "unsupported .tosa file: %s: data stored outside the flatbuffer (offset %llu) is not supported",
                        what, (unsigned long long)ext_off);
        goto out;
    }
    int64_t dims[TOSAC_MAX_RANK];
    for (uint32_t i = 0; i < shape.n; i++) {
        dims[i] = (int32_t)fb_le32(fb->p + shape.pos + 4 * i);
        if (dims[i] < 0) {
            rc = tosac_fail(r->err, TOSAC_ERR_INPUT, "bad .tosa file: %s has negative "
                            "dimension %lld", what, (long long)dims[i]);
            goto out;
        }
    }
    size_t nbytes;
    if ((rc = tosac_shape_check((tosac_dtype)dt, (int)shape.n, dims, &nbytes, r->err)) != TOSAC_OK)
        goto out;
    int ti = tosa_block_push_tensor(b, name, (tosac_dtype)dt, (int)shape.n, dims, NULL, 0, r->err);
    if (ti < 0) {
        rc = r->err->code;
        goto out;
    }
    tosa_tensor *t = &b->tensors[ti];
    t->variable = flag_var != 0;
    t->is_unranked = flag_unranked != 0;
    if ((rc = read_name(r, tt, 6, &t->variable_name, what)) != TOSAC_OK)
        goto out;
    if (has_data)
        rc = read_data(r, &data, t, (uint64_t)tosac_shape_numel(t->rank, t->shape), b->name);
out:
    free(name);
    return rc;
}

/* A 1.0 TosaShape entry becomes a SHAPE tensor of shape [rank] marked in_shapes_table. */
static tosac_code read_shape_entry(tosa_reader *r, const fb_table *st, int index, tosa_block *b)
{
    char what[160], *name = NULL;
    snprintf(what, sizeof what, "block '%.40s' shape %d", b->name, index);
    tosac_code rc = read_name(r, st, 0, &name, what);
    if (rc)
        return rc;
    if (!name)
        return tosac_fail(r->err, TOSAC_ERR_INPUT, "bad .tosa file: %s has no name", what);
    snprintf(what, sizeof what, "block '%.40s' shape '%.40s'", b->name, name);
    uint64_t rank;
    bool present, has_data;
    fb_vec data;
    if ((rc = fb_scalar(&r->b, st, 1, 4, &rank, &present, what)) ||
        (rc = fb_vec_field(&r->b, st, 2, 1, &data, &has_data, what)))
        goto out;
    int64_t dim = (int64_t)rank;
    if ((rc = tosac_shape_check(TOSAC_DT_SHAPE, 1, &dim, NULL, r->err)) != TOSAC_OK)
        goto out;
    int ti = tosa_block_push_tensor(b, name, TOSAC_DT_SHAPE, 1, &dim, NULL, 0, r->err);
    if (ti < 0) {
        rc = r->err->code;
        goto out;
    }
    b->tensors[ti].in_shapes_table = true;
    if (has_data)
        rc = read_data(r, &data, &b->tensors[ti], rank, b->name);
out:
    free(name);
    return rc;
}

static int name_cmp(const tosa_block *b, int x, int y)
{
    return strcmp(b->tensors[x].name, b->tensors[y].name);
}

/* Heapsort of tensor indices by name (no qsort: it has no context argument). */
static void sift_down(const tosa_block *b, int *a, int root, int n)
{
    for (;;) {
        int child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && name_cmp(b, a[child], a[child + 1]) < 0)
            child++;
        if (name_cmp(b, a[root], a[child]) >= 0)
            return;
        int t = a[root];
        a[root] = a[child];
        a[child] = t;
        root = child;
    }
}

static void sort_by_name(const tosa_block *b, int *a, int n)
{
    for (int i = n / 2 - 1; i >= 0; i--)
        sift_down(b, a, i, n);
    for (int end = n - 1; end > 0; end--) {
        int t = a[0];
        a[0] = a[end];
        a[end] = t;
        sift_down(b, a, 0, end);
    }
}

static tosac_code build_index(tosa_reader *r, tosa_block *b, tosa_name_index *ix)
{
    ix->block = b;
    ix->n = b->n_tensors;
    ix->order = malloc((size_t)(b->n_tensors ? b->n_tensors : 1) * sizeof(int));
    if (!ix->order)
        return tosac_fail(r->err, TOSAC_ERR_INTERNAL, "out of memory");
    for (int i = 0; i < b->n_tensors; i++)
        ix->order[i] = i;
    sort_by_name(b, ix->order, ix->n);
    for (int i = 1; i < ix->n; i++)
        if (strcmp(b->tensors[ix->order[i]].name, b->tensors[ix->order[i - 1]].name) == 0)
            return tosac_fail(r->err, TOSAC_ERR_INPUT, "bad .tosa file: block '%s': duplicate "
                              "tensor name '%s'", b->name, b->tensors[ix->order[i]].name);
    return TOSAC_OK;
}

int tosa_name_lookup(const tosa_name_index *ix, const char *name)
{
    int lo = 0, hi = ix->n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int c = strcmp(name, ix->block->tensors[ix->order[mid]].name);
        if (c == 0)
            return ix->order[mid];
        if (c < 0)
            hi = mid - 1;
        else
            lo = mid + 1;
    }
    return -1;
}

tosac_code tosa_read_names(tosa_reader *r, const fb_table *t, int id, tosa_block *b,
                           const tosa_name_index *ix, int **out, int *n_out, const char *kind,
                           const char *what)
{
    fb_vec v;
    bool present;
    tosac_code rc = fb_vec_field(&r->b, t, id, 4, &v, &present, what);
    if (rc || v.n == 0)
        return rc;
    if ((rc = tosa_reader_charge(r, (uint64_t)v.n * 4)) != TOSAC_OK)
        return rc;
    r->cur_kind = kind;
    *out = malloc((size_t)v.n * sizeof(int));
    if (!*out)
        return tosac_fail(r->err, TOSAC_ERR_INTERNAL, "out of memory");
    *n_out = (int)v.n;
    for (uint32_t i = 0; i < v.n; i++) {
        const char *s;
        size_t n;
        if ((rc = fb_vec_str(&r->b, &v, i, &s, &n, what)) != TOSAC_OK)
            return rc;
        int ti = tosa_name_lookup(ix, s);
        if (ti < 0 && b)
            ti = tosa_reader_operand(r, b, ix, s);
        else if (ti < 0)
            tosac_fail(r->err, TOSAC_ERR_INPUT, "bad .tosa file: %s: '%s' is not a tensor of "
                       "block '%s'", what, s, ix->block->name);
        if (ti < 0)
            return r->err->code;
        (*out)[i] = ti;
    }
    return TOSAC_OK;
}

static tosac_code read_block(tosa_reader *r, const fb_table *bt, tosa_region *reg,
                             int reg_index, int index)
{
    char what[160], *name = NULL;
    snprintf(what, sizeof what, "region '%.40s' block %d", reg->name, index);
    tosac_code rc = read_name(r, bt, 0, &name, what);
    if (rc)
        return rc;
    tosa_block *b = tosa_region_add_block(reg, name ? name : "");
    free(name);
    if (!b)
        return tosac_fail(r->err, TOSAC_ERR_INTERNAL, "out of memory");
    r->cur_region = reg_index;
    r->cur_block = index;
    snprintf(what, sizeof what, "block '%.40s'", b->name);

    fb_vec ops, tensors, shapes;
    bool present;
    if ((rc = fb_vec_field(&r->b, bt, 1, 4, &ops, &present, what)) ||
        (rc = fb_vec_field(&r->b, bt, 2, 4, &tensors, &present, what)) ||
        (rc = fb_vec_field(&r->b, bt, 5, 4, &shapes, &present, what)))
        return rc;
    for (uint32_t i = 0; i < tensors.n; i++) {
        fb_table tt;
        if ((rc = fb_vec_table(&r->b, &tensors, i, &tt, what)) ||
            (rc = read_tensor(r, &tt, (int)i, b)))
            return rc;
    }
    for (uint32_t i = 0; i < shapes.n; i++) {
        fb_table st;
        if ((rc = fb_vec_table(&r->b, &shapes, i, &st, what)) ||
            (rc = read_shape_entry(r, &st, (int)i, b)))
            return rc;
    }
    tosa_name_index ix = {0};
    if ((rc = build_index(r, b, &ix)) != TOSAC_OK)
        goto out;
    for (uint32_t i = 0; i < ops.n; i++) {
        fb_table ot;
        if ((rc = fb_vec_table(&r->b, &ops, i, &ot, what)) ||
            (rc = tosa_read_operator(r, &ot, (int)i, b, &ix)))
            goto out;
    }
    /* Block inputs and outputs must be the block's own tensors. */
    snprintf(what, sizeof what, "block '%.40s' inputs", b->name);
    if ((rc = tosa_read_names(r, bt, 3, NULL, &ix, &b->inputs, &b->n_inputs, "input", what)))
        goto out;
    snprintf(what, sizeof what, "block '%.40s' outputs", b->name);
    rc = tosa_read_names(r, bt, 4, NULL, &ix, &b->outputs, &b->n_outputs, "output", what);
out:
    free(ix.order);
    return rc;
}

static tosac_code read_graph(tosa_reader *r, tosa_graph *g)
{
    fb_table root;
    tosac_code rc = fb_root(&r->b, "TOSA", &root);
    if (rc || (rc = read_version(r, &root, g)))
        return rc;
    fb_vec regions;
    bool present;
    if ((rc = fb_vec_field(&r->b, &root, 1, 4, &regions, &present, "regions")) != TOSAC_OK)
        return rc;
    for (uint32_t i = 0; i < regions.n; i++) {
        fb_table rt;
        char what[64], *name = NULL;
        snprintf(what, sizeof what, "region %u", (unsigned)i);
        if ((rc = fb_vec_table(&r->b, &regions, i, &rt, what)) ||
            (rc = read_name(r, &rt, 0, &name, what)))
            return rc;
        tosa_region *reg = tosa_graph_add_region(g, name ? name : "");
        free(name);
        if (!reg)
            return tosac_fail(r->err, TOSAC_ERR_INTERNAL, "out of memory");
        fb_vec blocks;
        if ((rc = fb_vec_field(&r->b, &rt, 1, 4, &blocks, &present, what)) != TOSAC_OK)
            return rc;
        for (uint32_t j = 0; j < blocks.n; j++) {
            fb_table bt;
            if ((rc = fb_vec_table(&r->b, &blocks, j, &bt, what)) ||
                (rc = read_block(r, &bt, reg, (int)i, (int)j)))
                return rc;
        }
    }
    if ((rc = tosa_check_control_flow(g, "bad .tosa file", r->err)) != TOSAC_OK)
        return rc;
    return tosa_resolve_outer_refs(r, g);
}

tosac_code tosa_graph_read(const void *buf, size_t len, tosa_graph **out, tosac_error *err)
{
    tosac_error local;
    *out = NULL;
    if (!err) {
        tosac_error_clear(&local);
        err = &local;
    }
    if (!buf && len)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "tosa_graph_read: NULL buffer");
    tosa_reader r;
    memset(&r, 0, sizeof r);
    r.b = (fb_buf){buf, len, err};
    r.err = err;
    r.budget = 4 * (uint64_t)len + 4096;
    tosa_graph *g = tosa_graph_new(1, 0);
    if (!g)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    tosac_code rc = read_graph(&r, g);
    free(r.outer);
    if (rc) {
        tosa_graph_free(g);
        return rc;
    }
    *out = g;
    return TOSAC_OK;
}

tosac_code tosa_graph_read_file(const char *path, tosa_graph **out, tosac_error *err)
{
    void *data;
    size_t len;
    *out = NULL;
    tosac_code rc = tosac_read_file(path, &data, &len, err);
    if (rc)
        return rc;
    rc = tosa_graph_read(data, len, out, err);
    free(data);
    if (rc && err && err->code == rc && strncmp(err->msg, path, strlen(path)) != 0) {
        /* Prefix the file name so a user sees which file is bad. */
        size_t pl = strlen(path), cap = sizeof err->msg;
        if (pl + 3 < cap) {
            memmove(err->msg + pl + 2, err->msg, cap - pl - 3);
            memcpy(err->msg, path, pl);
            err->msg[pl] = ':';
            err->msg[pl + 1] = ' ';
            err->msg[cap - 1] = '\0';
        }
    }
    return rc;
}
