/* The verifying .tosa reader: graph, regions, blocks, tensors and shapes.
 * The buffer is untrusted: every access goes through fb_read's bounds checks and every
 * value is validated before it lands in the in-memory graph. */
#include "tosa/tosa_read.h"

#include <stdalign.h>
#include <stdint.h>
#include <string.h>

#include "util/alloc.h"
#include "util/hash.h"

tosac_code tosa_reader_charge(tosa_reader *r, uint64_t n)
{
    if (n > r->budget)
        return tosac_fail(r->err, TOSAC_ERR_INPUT, "corrupt .tosa file: content is larger "
                          "than the file allows (shared or overlapping tables)");
    r->budget -= n;
    return TOSAC_OK;
}

void *tosa_reader_alloc(tosa_reader *r, size_t bytes, size_t align)
{
    void *p = tosac_alloc(&r->g->alloc, bytes, align);
    if (!p)
        tosac_fail(r->err, TOSAC_ERR_INTERNAL, "out of memory reading the .tosa file (the "
                   "allocator refused %llu bytes)", (unsigned long long)bytes);
    return p;
}

char *tosa_reader_str(tosa_reader *r, const char *s, size_t n)
{
    if (tosa_reader_charge(r, n + 1) != TOSAC_OK)
        return NULL;
    const uint8_t *q = (const uint8_t *)s;
    if ((r->flags & TOSA_READ_BORROW) && q >= r->b.p && q + n < r->b.p + r->b.len)
        return (char *)s; /* fb_read checked the NUL terminator inside the buffer */
    char *d = tosa_reader_alloc(r, n + 1, 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
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
    *out = tosa_reader_str(r, s, n);
    return *out ? TOSAC_OK : r->err->code;
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
                          g->ver_major, g->ver_minor, g->ver_patch);
    if (g->ver_draft)
        return tosac_fail(r->err, TOSAC_ERR_INPUT,
                          "unsupported .tosa version %d.%d.%d draft: pre-final files number "
                          "types and operators differently", g->ver_major, g->ver_minor,
                          g->ver_patch);
    r->minor = g->ver_minor;
    return TOSAC_OK;
}

static bool host_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char c;
    memcpy(&c, &one, 1);
    return c == 1;
}

/* True if the file bytes at src are already the in-memory form of n elements of dt. */
static bool same_as_file(tosac_dtype dt, const uint8_t *src, uint64_t n)
{
    if (dt == TOSAC_DT_I4 || dt == TOSAC_DT_FP4E2M1 || dt == TOSAC_DT_I48 || !host_little_endian())
        return false;
    if (dt == TOSAC_DT_BOOL) /* in memory a bool is 0 or 1; the file may say any non-zero */
        for (uint64_t i = 0; i < n; i++)
            if (src[i] > 1)
                return false;
    size_t w = tosac_dtype_size(dt);
    return w && (uintptr_t)src % w == 0;
}

/* Decodes a data vector of n_elem elements of dt into a fresh buffer on t (or, reading
 * with TOSA_READ_BORROW, points t at the file bytes when they are already its form). */
static tosac_code read_data(tosa_reader *r, const fb_vec *v, tosa_tensor *t, uint64_t n_elem,
                            const char *blk)
{
    uint64_t need = tosa_data_file_bytes(t->dtype, n_elem);
    char sh[160];
    if (v->n < need)
        return tosac_fail(r->err, TOSAC_ERR_INPUT,
                          "bad .tosa file: block '%s': tensor '%s' has %u data bytes, shape %s of "
                          "%s needs %llu", blk, t->name, v->n,
                          tosac_shape_str(t->rank, t->shape, sh, sizeof sh),
                          tosa_dtype_tosa_name(t->dtype), (unsigned long long)need);
    tosac_code rc = tosa_reader_charge(r, need);
    if (rc)
        return rc;
    size_t bytes = (size_t)n_elem * tosac_dtype_size(t->dtype);
    const uint8_t *src = r->b.p + v->pos;
    t->data_size = bytes;
    if ((r->flags & TOSA_READ_BORROW) && same_as_file(t->dtype, src, n_elem)) {
        t->data = (void *)src; /* the graph never writes constant data */
        return TOSAC_OK;
    }
    /* at least one byte: "constant with no elements" stays distinct from "no data" */
    t->data = tosac_alloc(&r->g->alloc, bytes ? bytes : 1, 16);
    if (!t->data)
        return tosac_fail(r->err, TOSAC_ERR_INTERNAL, "out of memory reading the .tosa file: "
                          "tensor '%s' needs %llu bytes", t->name, (unsigned long long)bytes);
    tosa_data_decode(t->dtype, src, n_elem, t->data);
    return TOSAC_OK;
}

tosa_tensor *tosa_reader_new_tensor(tosa_reader *r, tosa_block *b, char *name, tosac_dtype dt,
                                    int rank, const int64_t *shape)
{
    if (b->n_tensors >= b->cap_tensors) { /* the counts made before reading were wrong */
        tosac_fail(r->err, TOSAC_ERR_INTERNAL, "block '%s': more tensors than counted", b->name);
        return NULL;
    }
    tosa_tensor *t = &b->tensors[b->n_tensors++];
    memset(t, 0, sizeof *t);
    t->name = name;
    t->dtype = dt;
    t->rank = rank;
    for (int i = 0; i < rank; i++)
        t->shape[i] = shape[i];
    return t;
}

static tosac_code read_tensor(tosa_reader *r, const fb_table *tt, int index, tosa_block *b)
{
    char what[160], *name = NULL;
    tosa_what(what, sizeof what, "block '%.40s' tensor %d", b->name, index);
    const fb_buf *fb = &r->b;
    tosac_code rc = read_name(r, tt, 0, &name, what);
    if (rc)
        return rc;
    if (!name)
        return tosac_fail(r->err, TOSAC_ERR_INPUT, "bad .tosa file: %s has no name", what);
    tosa_what(what, sizeof what, "block '%.40s' tensor '%.40s'", b->name, name);

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
                        what, shape.n, TOSAC_MAX_RANK);
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
    tosa_tensor *t = tosa_reader_new_tensor(r, b, name, (tosac_dtype)dt, (int)shape.n, dims);
    if (!t) {
        rc = r->err->code;
        goto out;
    }
    name = NULL; /* the tensor owns it */
    t->variable = flag_var != 0;
    t->is_unranked = flag_unranked != 0;
    if ((rc = read_name(r, tt, 6, &t->variable_name, what)) != TOSAC_OK)
        goto out;
    if (has_data)
        rc = read_data(r, &data, t, (uint64_t)tosac_shape_numel(t->rank, t->shape), b->name);
out:
    tosa_graph_release(r->g, name);
    return rc;
}

/* A 1.0 TosaShape entry becomes a SHAPE tensor of shape [rank] marked in_shapes_table. */
static tosac_code read_shape_entry(tosa_reader *r, const fb_table *st, int index, tosa_block *b)
{
    char what[160], *name = NULL;
    tosa_what(what, sizeof what, "block '%.40s' shape %d", b->name, index);
    tosac_code rc = read_name(r, st, 0, &name, what);
    if (rc)
        return rc;
    if (!name)
        return tosac_fail(r->err, TOSAC_ERR_INPUT, "bad .tosa file: %s has no name", what);
    tosa_what(what, sizeof what, "block '%.40s' shape '%.40s'", b->name, name);
    uint64_t rank;
    bool present, has_data;
    fb_vec data;
    if ((rc = fb_scalar(&r->b, st, 1, 4, &rank, &present, what)) ||
        (rc = fb_vec_field(&r->b, st, 2, 1, &data, &has_data, what)))
        goto out;
    int64_t dim = (int64_t)rank;
    if ((rc = tosac_shape_check(TOSAC_DT_SHAPE, 1, &dim, NULL, r->err)) != TOSAC_OK)
        goto out;
    tosa_tensor *t = tosa_reader_new_tensor(r, b, name, TOSAC_DT_SHAPE, 1, &dim);
    if (!t) {
        rc = r->err->code;
        goto out;
    }
    name = NULL;
    t->in_shapes_table = true;
    if (has_data)
        rc = read_data(r, &data, t, rank, b->name);
out:
    tosa_graph_release(r->g, name);
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

/* The hashed index (linear; the sort and the binary searches were n log n string compares,
 * a tenth of compiling a 10,000-node model). False, and nothing kept, when out of memory or
 * when two tensors share a name: the sorted index then names that one as always. */
static bool hash_index(tosa_reader *r, const tosa_block *b, tosa_name_index *ix)
{
    size_t cap = 16;
    while (cap < (size_t)b->n_tensors * 2)
        cap *= 2;
    int *slots = tosac_alloc_zero(r->index_alloc, cap * sizeof *slots, alignof(int));
    if (!slots)
        return false;
    for (int i = 0; i < b->n_tensors; i++) {
        const char *nm = b->tensors[i].name;
        size_t h = tosac_hash_str(nm) & (cap - 1);
        for (; slots[h]; h = (h + 1) & (cap - 1))
            if (strcmp(b->tensors[slots[h] - 1].name, nm) == 0) {
                tosac_release(r->index_alloc, slots);
                return false;
            }
        slots[h] = i + 1;
    }
    ix->slots = slots;
    ix->cap = cap;
    ix->slots_alloc = r->index_alloc;
    return true;
}

static tosac_code build_index(tosa_reader *r, tosa_block *b, tosa_name_index *ix)
{
    ix->block = b;
    ix->n = b->n_tensors;
    ix->order = tosa_reader_alloc(r, (size_t)(b->n_tensors ? b->n_tensors : 1) * sizeof(int),
                                  alignof(int));
    if (!ix->order)
        return r->err->code;
    if (r->index_alloc && hash_index(r, b, ix))
        return TOSAC_OK;
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
    if (ix->slots) {
        const tosa_tensor *t = ix->block->tensors;
        for (size_t h = tosac_hash_str(name) & (ix->cap - 1); ix->slots[h];
             h = (h + 1) & (ix->cap - 1))
            if (strcmp(t[ix->slots[h] - 1].name, name) == 0)
                return ix->slots[h] - 1;
        return -1;
    }
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
    (void)kind;
    *out = tosa_reader_alloc(r, (size_t)v.n * sizeof(int), alignof(int));
    if (!*out)
        return r->err->code;
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

/* The tensor array of block b, sized for its declared tensors and the outer references its
 * operators can create (counted with the name index, so the array moves once at most). */
static tosac_code alloc_tensors(tosa_reader *r, tosa_block *b, int n)
{
    tosa_tensor *t = tosa_reader_alloc(r, (size_t)(n ? n : 1) * sizeof *t, 0);
    if (!t)
        return r->err->code;
    if (b->n_tensors)
        memcpy(t, b->tensors, (size_t)b->n_tensors * sizeof *t);
    tosa_graph_release(r->g, b->tensors);
    b->tensors = t;
    b->cap_tensors = n;
    return TOSAC_OK;
}

static tosac_code read_block(tosa_reader *r, const fb_table *bt, tosa_block *b,
                             const tosa_region *reg, int index)
{
    char what[160], *name = NULL;
    tosa_what(what, sizeof what, "region '%.40s' block %d", reg->name, index);
    tosac_code rc = read_name(r, bt, 0, &name, what);
    if (rc)
        return rc;
    b->name = name ? name : tosa_reader_str(r, "", 0);
    if (!b->name)
        return r->err->code;
    tosa_what(what, sizeof what, "block '%.40s'", b->name);

    fb_vec ops, tensors, shapes;
    bool present;
    if ((rc = fb_vec_field(&r->b, bt, 1, 4, &ops, &present, what)) ||
        (rc = fb_vec_field(&r->b, bt, 2, 4, &tensors, &present, what)) ||
        (rc = fb_vec_field(&r->b, bt, 5, 4, &shapes, &present, what)))
        return rc;
    if ((uint64_t)tensors.n + shapes.n > INT32_MAX / 2)
        return tosac_fail(r->err, TOSAC_ERR_INPUT, "bad .tosa file: %s has %u tensors and %u "
                          "shapes", what, tensors.n, shapes.n);
    if ((rc = alloc_tensors(r, b, (int)(tensors.n + shapes.n))) != TOSAC_OK)
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
    int n_outer = tosa_count_outer_candidates(r, &ops, &ix);
    if (n_outer > 0 && (rc = alloc_tensors(r, b, b->n_tensors + n_outer)) != TOSAC_OK)
        goto out;
    if (ops.n && !(b->ops = tosa_reader_alloc(r, (size_t)ops.n * sizeof *b->ops, 0))) {
        rc = r->err->code;
        goto out;
    }
    b->cap_ops = (int)ops.n;
    for (uint32_t i = 0; i < ops.n; i++) {
        fb_table ot;
        if ((rc = fb_vec_table(&r->b, &ops, i, &ot, what)) ||
            (rc = tosa_read_operator(r, &ot, (int)i, b, &ix)))
            goto out;
    }
    /* Block inputs and outputs must be the block's own tensors. */
    tosa_what(what, sizeof what, "block '%.40s' inputs", b->name);
    if ((rc = tosa_read_names(r, bt, 3, NULL, &ix, &b->inputs, &b->n_inputs, "input", what)))
        goto out;
    tosa_what(what, sizeof what, "block '%.40s' outputs", b->name);
    rc = tosa_read_names(r, bt, 4, NULL, &ix, &b->outputs, &b->n_outputs, "output", what);
out:
    tosa_graph_release(r->g, ix.order);
    if (ix.slots)
        tosac_release(ix.slots_alloc, ix.slots);
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
    if (regions.n && !(g->regions = tosa_reader_alloc(r, (size_t)regions.n * sizeof *g->regions, 0)))
        return r->err->code;
    g->cap_regions = (int)regions.n;
    for (uint32_t i = 0; i < regions.n; i++) {
        fb_table rt;
        char what[64], *name = NULL;
        tosa_what(what, sizeof what, "region %u", i);
        tosa_region *reg = &g->regions[g->n_regions++];
        memset(reg, 0, sizeof *reg);
        if ((rc = fb_vec_table(&r->b, &regions, i, &rt, what)) ||
            (rc = read_name(r, &rt, 0, &name, what)))
            return rc;
        reg->name = name ? name : tosa_reader_str(r, "", 0);
        if (!reg->name)
            return r->err->code;
        fb_vec blocks;
        if ((rc = fb_vec_field(&r->b, &rt, 1, 4, &blocks, &present, what)) != TOSAC_OK)
            return rc;
        if (blocks.n && !(reg->blocks = tosa_reader_alloc(r, (size_t)blocks.n * sizeof *reg->blocks, 0)))
            return r->err->code;
        reg->cap_blocks = (int)blocks.n;
        for (uint32_t j = 0; j < blocks.n; j++) {
            fb_table bt;
            tosa_block *b = &reg->blocks[reg->n_blocks++];
            memset(b, 0, sizeof *b);
            if ((rc = fb_vec_table(&r->b, &blocks, j, &bt, what)) ||
                (rc = read_block(r, &bt, b, reg, (int)j)))
                return rc;
        }
    }
    if ((rc = tosa_check_control_flow(g, "bad .tosa file", r->err)) != TOSAC_OK)
        return rc;
    return tosa_resolve_outer_refs(r, g);
}

tosac_code tosa_graph_read_ex(const void *buf, size_t len, const tosac_allocator *a,
                              unsigned flags, tosa_graph **out, tosac_error *err)
{
    return tosa_graph_read_indexed(buf, len, a, NULL, flags, out, err);
}

tosac_code tosa_graph_read_indexed(const void *buf, size_t len, const tosac_allocator *a,
                                   const tosac_allocator *index_alloc, unsigned flags,
                                   tosa_graph **out, tosac_error *err)
{
    tosac_error local;
    *out = NULL;
    if (!err) {
        tosac_error_clear(&local);
        err = &local;
    }
    if ((!buf && len) || !a || !a->alloc)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "tosa_graph_read_ex: NULL buffer or allocator");
    tosa_graph *g = tosac_alloc_zero(a, sizeof *g, 0);
    if (!g)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory reading the .tosa file (the "
                          "allocator refused %llu bytes)", (unsigned long long)sizeof *g);
    g->alloc = *a;
    if (flags & TOSA_READ_BORROW) {
        g->borrowed = buf;
        g->n_borrowed = len;
    }
    tosa_reader r;
    memset(&r, 0, sizeof r);
    r.b = (fb_buf){buf, len, err};
    r.err = err;
    r.g = g;
    r.flags = flags;
    r.index_alloc = index_alloc;
    r.budget = 4 * (uint64_t)len + 4096;
    tosac_code rc = read_graph(&r, g);
    if (rc) {
        tosa_graph_free(g);
        return rc;
    }
    *out = g;
    return TOSAC_OK;
}
