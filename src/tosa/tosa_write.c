/* The deterministic .tosa writer (FLATBUFFER_LAYOUT.md): version from the graph, every
 * operator's attribute table written (empty tables too) with explicit enum fields, data
 * vectors 8-aligned, tensors marked in_shapes_table written to block.shapes. */
#include <stdlib.h>
#include <string.h>

#include "tosa/fb_build.h"
#include "tosa/tosa_internal.h"
#include "util/fileio.h"

typedef struct writer {
    fb_builder fb;
    const tosa_graph *g;
    tosac_error *err;
} writer;

#define SCALAR(sz, v) ((fb_field){FB_SCALAR, (sz), (uint64_t)(v)})
#define OFFSET ((fb_field){FB_OFFSET, 4, 0})
#define ABSENT ((fb_field){FB_ABSENT, 0, 0})

static size_t put_string(writer *w, size_t slot, const char *s)
{
    size_t p = fb_build_string(&w->fb, s);
    fb_build_patch(&w->fb, slot, p);
    return p;
}

/* A vector of names of tensors idx[0..n) of block b. */
static void put_names(writer *w, size_t slot, const tosa_block *b, const int *idx, int n)
{
    size_t v = fb_build_vector(&w->fb, (uint32_t)n, 4, 4);
    fb_build_patch(&w->fb, slot, v);
    for (int i = 0; i < n; i++)
        put_string(w, v + 4 + 4 * (size_t)i, b->tensors[idx[i]].name);
}

static void put_bytes(writer *w, size_t slot, const uint8_t *p, size_t n, size_t align)
{
    size_t v = fb_build_vector(&w->fb, (uint32_t)n, 1, align);
    fb_build_patch(&w->fb, slot, v);
    if (!w->fb.oom && n)
        memcpy(w->fb.buf + v + 4, p, n);
}

static tosac_code put_attr(writer *w, size_t slot, const tosa_operator *o, int index)
{
    int n;
    const tosa_attr_field *f = tosa_attr_fields(o->op, &n);
    fb_field fields[8];
    size_t slots[8];
    const char *base = (const char *)&o->attr;
    for (int i = 0; i < n; i++) {
        const tosa_attr_field *af = &f[i];
        switch (af->kind) {
        case TOSA_AK_VEC:
        case TOSA_AK_RAW8: {
            int cnt = *(const int *)(base + af->n_off);
            if (cnt < 0 || cnt > af->cap)
                return tosac_fail(w->err, TOSAC_ERR_INPUT, "operator %d (%s): attribute '%s' "
                                  "has %d values, at most %d allowed", index,
                                  tosa_op_name(o->op), af->name, cnt, af->cap);
            fields[i] = OFFSET;
            break;
        }
        case TOSA_AK_STR:
            fields[i] = *(char *const *)(base + af->off) ? OFFSET : ABSENT;
            break;
        case TOSA_AK_BYTES:
            fields[i] = *(uint8_t *const *)(base + af->off) ? OFFSET : ABSENT;
            break;
        case TOSA_AK_BOOL:
            fields[i] = SCALAR(1, tosa_attr_get_int(&o->attr, af) != 0);
            break;
        case TOSA_AK_DTYPE: {
            int64_t v = tosa_dtype_to_file((tosac_dtype)tosa_attr_get_int(&o->attr, af),
                                           w->g->ver_minor);
            if (v < 0)
                return tosac_fail(w->err, TOSAC_ERR_UNSUPPORTED, "operator %d (%s): %s %s has "
                                  "no TOSA 1.%d DType", index, tosa_op_name(o->op), af->name,
                                  tosac_dtype_name(o->attr.acc_type), w->g->ver_minor);
            fields[i] = SCALAR(4, v);
            break;
        }
        default: {
            int64_t v = tosa_attr_get_int(&o->attr, af);
            if (!tosa_attr_enum_ok(af->kind, (uint64_t)v))
                return tosac_fail(w->err, TOSAC_ERR_INPUT, "operator %d (%s): attribute '%s' "
                                  "has out-of-range value %lld", index, tosa_op_name(o->op),
                                  af->name, (long long)v);
            fields[i] = SCALAR(4, (uint32_t)v);
            break;
        }
        }
    }
    size_t t = fb_build_table(&w->fb, fields, n, slots);
    fb_build_patch(&w->fb, slot, t);
    for (int i = 0; i < n; i++) {
        const tosa_attr_field *af = &f[i];
        if (fields[i].kind != FB_OFFSET)
            continue;
        if (af->kind == TOSA_AK_VEC) {
            int cnt = *(const int *)(base + af->n_off);
            size_t v = fb_build_vector(&w->fb, (uint32_t)cnt, 4, 4);
            fb_build_patch(&w->fb, slots[i], v);
            for (int k = 0; k < cnt && !w->fb.oom; k++)
                fb_build_put32(&w->fb, v + 4 + 4 * (size_t)k,
                               (uint32_t)((const int32_t *)(base + af->off))[k]);
        } else if (af->kind == TOSA_AK_RAW8) {
            put_bytes(w, slots[i], (const uint8_t *)(base + af->off),
                      (size_t)*(const int *)(base + af->n_off), 8);
        } else if (af->kind == TOSA_AK_STR) {
            put_string(w, slots[i], *(char *const *)(base + af->off));
        } else {
            put_bytes(w, slots[i], *(uint8_t *const *)(base + af->off),
                      *(const size_t *)(base + af->n_off), 4);
        }
    }
    return TOSAC_OK;
}

static tosac_code check_indices(writer *w, const tosa_block *b, const int *idx, int n,
                                const char *what)
{
    if (n < 0 || (n > 0 && !idx))
        return tosac_fail(w->err, TOSAC_ERR_INPUT, "block '%s': bad %s list", b->name, what);
    for (int i = 0; i < n; i++)
        if (idx[i] < 0 || idx[i] >= b->n_tensors)
            return tosac_fail(w->err, TOSAC_ERR_INPUT, "block '%s': %s refers to tensor %d of "
                              "%d", b->name, what, idx[i], b->n_tensors);
    return TOSAC_OK;
}

static tosac_code put_operator(writer *w, size_t slot, const tosa_block *b, int index)
{
    const tosa_operator *o = &b->ops[index];
    tosa_op last = w->g->ver_minor >= 1 ? TOSA_OP_COUNT - 1 : TOSA_OP_LAST_1_0;
    if (o->op <= TOSA_OP_UNKNOWN || o->op > last)
        return tosac_fail(w->err, TOSAC_ERR_UNSUPPORTED, "block '%s' operator %d: %s is not a "
                          "TOSA 1.%d operator", b->name, index,
                          tosa_op_name(o->op) ? tosa_op_name(o->op) : "?", w->g->ver_minor);
    tosac_code rc;
    if ((rc = check_indices(w, b, o->inputs, o->n_inputs, "an operator input")) ||
        (rc = check_indices(w, b, o->outputs, o->n_outputs, "an operator output")))
        return rc;
    fb_field f[6] = {SCALAR(4, o->op), SCALAR(1, o->op), OFFSET, OFFSET, OFFSET,
                     o->location ? OFFSET : ABSENT};
    size_t slots[6];
    size_t t = fb_build_table(&w->fb, f, 6, slots);
    fb_build_patch(&w->fb, slot, t);
    if ((rc = put_attr(w, slots[2], o, index)) != TOSAC_OK)
        return rc;
    put_names(w, slots[3], b, o->inputs, o->n_inputs);
    put_names(w, slots[4], b, o->outputs, o->n_outputs);
    if (o->location) {
        fb_field lf[1] = {OFFSET};
        size_t ls;
        size_t lt = fb_build_table(&w->fb, lf, 1, &ls);
        fb_build_patch(&w->fb, slots[5], lt);
        put_string(w, ls, o->location);
    }
    return TOSAC_OK;
}

/* Encodes t's data into a fresh byte vector referenced from slot. Its first byte is
 * 16-aligned in the buffer (more than the schema's force_align 8, which padding allows):
 * a runtime reading a 16-aligned file in place then uses the constants without a copy. */
static tosac_code put_data(writer *w, size_t slot, const tosa_block *b, const tosa_tensor *t)
{
    size_t nbytes;
    tosac_code rc = tosac_shape_check(t->dtype, t->rank, t->shape, &nbytes, w->err);
    if (rc)
        return rc;
    if (nbytes != t->data_size)
        return tosac_fail(w->err, TOSAC_ERR_INPUT, "block '%s' tensor '%s': %zu data bytes, its "
                          "shape needs %zu", b->name, t->name, t->data_size, nbytes);
    uint64_t n = (uint64_t)tosac_shape_numel(t->rank, t->shape);
    uint64_t fbytes = tosa_data_file_bytes(t->dtype, n);
    if (fbytes > UINT32_MAX)
        return tosac_fail(w->err, TOSAC_ERR_UNSUPPORTED, "tensor '%s': data over 4 GB", t->name);
    /* tosa_data_encode writes every byte, or fails and the buffer is dropped */
    size_t v = fb_build_vector_unset(&w->fb, (uint32_t)fbytes, 1, TOSA_DATA_ALIGN);
    fb_build_patch(&w->fb, slot, v);
    if (w->fb.oom)
        return TOSAC_OK;
    return tosa_data_encode(t->dtype, t->data, n, w->fb.buf + v + 4, t->name, w->err);
}

static tosac_code put_tensor(writer *w, size_t slot, const tosa_block *b, const tosa_tensor *t)
{
    int64_t type = tosa_dtype_to_file(t->dtype, w->g->ver_minor);
    if (type <= 0)
        return tosac_fail(w->err, TOSAC_ERR_UNSUPPORTED, "block '%s' tensor '%s': type %s has no "
                          "TOSA 1.%d DType", b->name, t->name, tosac_dtype_name(t->dtype),
                          w->g->ver_minor);
    if (t->rank < 0 || t->rank > TOSAC_MAX_RANK)
        return tosac_fail(w->err, TOSAC_ERR_INPUT, "tensor '%s': rank %d", t->name, t->rank);
    for (int i = 0; i < t->rank; i++)
        if (t->shape[i] < 0 || t->shape[i] > INT32_MAX)
            return tosac_fail(w->err, TOSAC_ERR_INPUT, "tensor '%s': dimension %lld does not "
                              "fit the file's int32", t->name, (long long)t->shape[i]);
    fb_field f[7] = {OFFSET, OFFSET, SCALAR(4, type), t->data ? OFFSET : ABSENT,
                     SCALAR(1, t->variable), SCALAR(1, t->is_unranked),
                     t->variable_name ? OFFSET : ABSENT};
    size_t slots[7];
    size_t tt = fb_build_table(&w->fb, f, 7, slots);
    fb_build_patch(&w->fb, slot, tt);
    put_string(w, slots[0], t->name);
    size_t v = fb_build_vector(&w->fb, (uint32_t)t->rank, 4, 4);
    fb_build_patch(&w->fb, slots[1], v);
    for (int i = 0; i < t->rank; i++)
        fb_build_put32(&w->fb, v + 4 + 4 * (size_t)i, (uint32_t)t->shape[i]);
    if (t->data) {
        tosac_code rc = put_data(w, slots[3], b, t);
        if (rc)
            return rc;
    }
    if (t->variable_name)
        put_string(w, slots[6], t->variable_name);
    return TOSAC_OK;
}

/* A 1.0 TosaShape entry: name, rank (= number of values), int64 data. */
static tosac_code put_shape(writer *w, size_t slot, const tosa_block *b, const tosa_tensor *t)
{
    if (t->dtype != TOSAC_DT_SHAPE || t->rank != 1 || t->shape[0] < 0 || t->shape[0] > UINT32_MAX)
        return tosac_fail(w->err, TOSAC_ERR_INPUT, "block '%s' tensor '%s': a shapes-table entry "
                          "must be a rank-1 SHAPE value", b->name, t->name);
    fb_field f[3] = {OFFSET, SCALAR(4, t->shape[0]), t->data ? OFFSET : ABSENT};
    size_t slots[3];
    size_t st = fb_build_table(&w->fb, f, 3, slots);
    fb_build_patch(&w->fb, slot, st);
    put_string(w, slots[0], t->name);
    return t->data ? put_data(w, slots[2], b, t) : TOSAC_OK;
}

static int count_kind(const tosa_block *b, bool shapes)
{
    int n = 0;
    for (int i = 0; i < b->n_tensors; i++)
        n += !b->tensors[i].outer_ref && b->tensors[i].in_shapes_table == shapes;
    return n;
}

static tosac_code put_block(writer *w, size_t slot, const tosa_block *b)
{
    tosac_code rc;
    for (int i = 0; i < b->n_tensors; i++)
        if (!b->tensors[i].name)
            return tosac_fail(w->err, TOSAC_ERR_INPUT, "block '%s': tensor %d has no name",
                              b->name, i);
    if ((rc = check_indices(w, b, b->inputs, b->n_inputs, "a block input")) ||
        (rc = check_indices(w, b, b->outputs, b->n_outputs, "a block output")))
        return rc;
    int n_tensors = count_kind(b, false), n_shapes = count_kind(b, true);
    fb_field f[6] = {OFFSET, OFFSET, OFFSET, OFFSET, OFFSET, n_shapes ? OFFSET : ABSENT};
    size_t slots[6];
    size_t t = fb_build_table(&w->fb, f, 6, slots);
    fb_build_patch(&w->fb, slot, t);
    put_string(w, slots[0], b->name ? b->name : "");
    size_t ov = fb_build_vector(&w->fb, (uint32_t)b->n_ops, 4, 4);
    fb_build_patch(&w->fb, slots[1], ov);
    for (int i = 0; i < b->n_ops; i++)
        if ((rc = put_operator(w, ov + 4 + 4 * (size_t)i, b, i)) != TOSAC_OK)
            return rc;
    size_t tv = fb_build_vector(&w->fb, (uint32_t)n_tensors, 4, 4), k = 0;
    fb_build_patch(&w->fb, slots[2], tv);
    for (int i = 0; i < b->n_tensors; i++) {
        const tosa_tensor *ts = &b->tensors[i];
        if (!ts->outer_ref && !ts->in_shapes_table &&
            (rc = put_tensor(w, tv + 4 + 4 * k++, b, ts)) != TOSAC_OK)
            return rc;
    }
    put_names(w, slots[3], b, b->inputs, b->n_inputs);
    put_names(w, slots[4], b, b->outputs, b->n_outputs);
    if (n_shapes) {
        size_t sv = fb_build_vector(&w->fb, (uint32_t)n_shapes, 4, 4);
        fb_build_patch(&w->fb, slots[5], sv);
        k = 0;
        for (int i = 0; i < b->n_tensors; i++) {
            const tosa_tensor *ts = &b->tensors[i];
            if (!ts->outer_ref && ts->in_shapes_table &&
                (rc = put_shape(w, sv + 4 + 4 * k++, b, ts)) != TOSAC_OK)
                return rc;
        }
    }
    return TOSAC_OK;
}

static tosac_code put_graph(writer *w)
{
    const tosa_graph *g = w->g;
    if (g->ver_major != 1 || (g->ver_minor != 0 && g->ver_minor != 1) || g->ver_patch < 0 ||
        g->ver_draft)
        return tosac_fail(w->err, TOSAC_ERR_UNSUPPORTED, "cannot write TOSA version %d.%d.%d%s "
                          "(only 1.0.x and 1.1.x, non-draft)", g->ver_major, g->ver_minor,
                          g->ver_patch, g->ver_draft ? " draft" : "");
    tosac_code rc = tosa_check_control_flow(g, "cannot write the graph", w->err);
    if (rc != TOSAC_OK)
        return rc;
    size_t root = fb_build_zeros(&w->fb, 8);
    if (!w->fb.oom)
        memcpy(w->fb.buf + root + 4, "TOSA", 4);
    fb_field gf[2] = {OFFSET, OFFSET};
    size_t gs[2];
    size_t gt = fb_build_table(&w->fb, gf, 2, gs);
    fb_build_patch(&w->fb, root, gt);
    fb_field vf[4] = {SCALAR(4, (uint32_t)g->ver_major), SCALAR(4, (uint32_t)g->ver_minor),
                      SCALAR(4, (uint32_t)g->ver_patch), SCALAR(1, 0)};
    fb_build_patch(&w->fb, gs[0], fb_build_table(&w->fb, vf, 4, NULL));
    size_t rv = fb_build_vector(&w->fb, (uint32_t)g->n_regions, 4, 4);
    fb_build_patch(&w->fb, gs[1], rv);
    for (int r = 0; r < g->n_regions; r++) {
        const tosa_region *reg = &g->regions[r];
        fb_field rf[2] = {OFFSET, OFFSET};
        size_t rs[2];
        fb_build_patch(&w->fb, rv + 4 + 4 * (size_t)r, fb_build_table(&w->fb, rf, 2, rs));
        put_string(w, rs[0], reg->name ? reg->name : "");
        size_t bv = fb_build_vector(&w->fb, (uint32_t)reg->n_blocks, 4, 4);
        fb_build_patch(&w->fb, rs[1], bv);
        for (int i = 0; i < reg->n_blocks; i++) {
            tosac_code rc = put_block(w, bv + 4 + 4 * (size_t)i, &reg->blocks[i]);
            if (rc)
                return rc;
        }
    }
    return TOSAC_OK;
}

/* About the file's size: constant data (most of it) plus a generous share per tensor and
 * operator; an estimate only (the builder grows past it). */
size_t tosa_graph_write_estimate(const tosa_graph *g)
{
    size_t n = 4096;
    for (int r = 0; r < g->n_regions; r++)
        for (int k = 0; k < g->regions[r].n_blocks; k++) {
            const tosa_block *b = &g->regions[r].blocks[k];
            for (int i = 0; i < b->n_tensors; i++)
                n += b->tensors[i].data_size + 2 * TOSA_DATA_ALIGN + 160;
            n += (size_t)b->n_ops * 160;
        }
    return n;
}

tosac_code tosa_graph_write_append(const tosa_graph *g, void **buf, size_t *len, size_t *cap,
                                   tosac_error *err)
{
    if (*len % TOSA_DATA_ALIGN)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "a .tosa file appended at offset %zu, not "
                          "%d-aligned", *len, TOSA_DATA_ALIGN);
    writer w = {{0}, g, err};
    fb_build_init(&w.fb);
    w.fb.buf = *buf;
    w.fb.len = *len;
    w.fb.cap = *cap;
    fb_build_reserve(&w.fb, *len + tosa_graph_write_estimate(g));
    tosac_code rc = put_graph(&w);
    if (!rc && w.fb.oom)
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory writing the .tosa file");
    *buf = w.fb.buf;
    *cap = w.fb.cap;
    if (!rc)
        *len = w.fb.len;
    return rc;
}

tosac_code tosa_graph_write(const tosa_graph *g, void **buf, size_t *len, tosac_error *err)
{
    void *b = NULL;
    size_t n = 0, cap = 0;
    *buf = NULL;
    *len = 0;
    tosac_code rc = tosa_graph_write_append(g, &b, &n, &cap, err);
    if (rc) {
        free(b);
        return rc;
    }
    *buf = b;
    *len = n;
    return TOSAC_OK;
}

tosac_code tosa_graph_write_file(const tosa_graph *g, const char *path, tosac_error *err)
{
    void *buf;
    size_t len;
    tosac_code rc = tosa_graph_write(g, &buf, &len, err);
    if (rc)
        return rc;
    rc = tosac_write_file(path, buf, len, err);
    free(buf);
    return rc;
}
