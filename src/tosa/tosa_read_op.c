/* The verifying .tosa reader: operators and their attribute tables. */
#include "tosa/tosa_read.h"

#include <string.h>

static tosa_op last_op(int minor) { return minor >= 1 ? TOSA_OP_COUNT - 1 : TOSA_OP_LAST_1_0; }

static tosac_code read_bytes(tosa_reader *r, const fb_vec *v, uint8_t **out)
{
    tosac_code rc = tosa_reader_charge(r, v->n);
    if (rc)
        return rc;
    /* at least one byte: "present but empty" stays distinct from absent */
    *out = tosa_reader_alloc(r, v->n ? v->n : 1, 1);
    if (!*out)
        return r->err->code;
    memcpy(*out, r->b.p + v->pos, v->n);
    return TOSAC_OK;
}

static tosac_code read_field(tosa_reader *r, const fb_table *at, int id, const tosa_attr_field *f,
                             tosa_attr *a, const char *what)
{
    const fb_buf *b = &r->b;
    char *base = (char *)a;
    bool present;
    tosac_code rc;
    switch (f->kind) {
    case TOSA_AK_VEC:
    case TOSA_AK_RAW8:
    case TOSA_AK_BYTES: {
        fb_vec v;
        size_t esz = f->kind == TOSA_AK_VEC ? 4 : 1;
        if ((rc = fb_vec_field(b, at, id, esz, &v, &present, what)) || !present)
            return rc;
        if (f->kind == TOSA_AK_BYTES) {
            *(size_t *)(base + f->n_off) = v.n;
            return read_bytes(r, &v, (uint8_t **)(base + f->off));
        }
        if (v.n > (uint32_t)f->cap)
            return tosac_fail(r->err, TOSAC_ERR_INPUT, "bad .tosa file: %s: attribute '%s' "
                              "has %u values, at most %d allowed", what, f->name, v.n, f->cap);
        *(int *)(base + f->n_off) = (int)v.n;
        for (uint32_t i = 0; i < v.n; i++) {
            if (f->kind == TOSA_AK_VEC)
                ((int32_t *)(base + f->off))[i] = (int32_t)fb_le32(b->p + v.pos + 4 * i);
            else
                ((uint8_t *)(base + f->off))[i] = b->p[v.pos + i];
        }
        return TOSAC_OK;
    }
    case TOSA_AK_STR: {
        const char *s;
        size_t n;
        if ((rc = fb_str_field(b, at, id, &s, &n, &present, what)) || !present)
            return rc;
        char **dst = (char **)(base + f->off);
        *dst = tosa_reader_str(r, s, n);
        return *dst ? TOSAC_OK : r->err->code;
    }
    default: {
        uint64_t v;
        if ((rc = fb_scalar(b, at, id, f->kind == TOSA_AK_BOOL ? 1 : 4, &v, &present, what)))
            return rc;
        if (f->kind == TOSA_AK_DTYPE) {
            int dt = tosa_dtype_from_file((uint32_t)v, r->minor);
            if (dt < 0)
                return tosac_fail(r->err, TOSAC_ERR_INPUT, "bad .tosa file: %s: attribute '%s' "
                                  "is DType %llu, not a TOSA 1.%d type", what, f->name,
                                  (unsigned long long)v, r->minor);
            v = (uint64_t)dt;
        } else if (!tosa_attr_enum_ok(f->kind, v)) {
            return tosac_fail(r->err, TOSAC_ERR_INPUT, "bad .tosa file: %s: attribute '%s' has "
                              "out-of-range value %llu", what, f->name, (unsigned long long)v);
        } else if (f->kind == TOSA_AK_I32) {
            v = (uint64_t)(int64_t)(int32_t)(uint32_t)v;
        }
        tosa_attr_set_int(a, f, (int64_t)v);
        return TOSAC_OK;
    }
    }
}

static tosac_code read_attr(tosa_reader *r, const fb_table *ot, tosa_op op, tosa_attr *a,
                            const char *what)
{
    uint64_t tag;
    bool present;
    fb_table at;
    tosac_code rc = fb_scalar(&r->b, ot, 1, 1, &tag, &present, what);
    if (rc || (rc = fb_table_field(&r->b, ot, 2, &at, &present, what)))
        return rc;
    int n;
    const tosa_attr_field *f = tosa_attr_fields(op, &n);
    if (tag == 0) {
        /* NONE is acceptable only where the table would be empty anyway. */
        if (n > 0 || present)
            return tosac_fail(r->err, TOSAC_ERR_INPUT, "bad .tosa file: %s: attribute_type is "
                              "NONE but %s has attributes", what, tosa_op_name(op));
        return TOSAC_OK;
    }
    if (tag != (uint64_t)op)
        return tosac_fail(r->err, TOSAC_ERR_INPUT, "bad .tosa file: %s: attribute_type %llu "
                          "does not match the operator (expected %d)", what,
                          (unsigned long long)tag, (int)op);
    if (!present)
        return tosac_fail(r->err, TOSAC_ERR_INPUT, "bad .tosa file: %s: attribute table missing",
                          what);
    for (int i = 0; i < n; i++)
        if ((rc = read_field(r, &at, i, &f[i], a, what)) != TOSAC_OK)
            return rc;
    return TOSAC_OK;
}

tosac_code tosa_read_operator(tosa_reader *r, const fb_table *ot, int index, tosa_block *b,
                              const tosa_name_index *ix)
{
    char what[160];
    uint64_t opv;
    bool present;
    tosa_what(what, sizeof what, "operator %d", index);
    tosac_code rc = fb_scalar(&r->b, ot, 0, 4, &opv, &present, what);
    if (rc)
        return rc;
    if (opv == 0 || opv > (uint64_t)last_op(r->minor))
        return tosac_fail(r->err, TOSAC_ERR_INPUT, "bad .tosa file: %s: op %llu is not a "
                          "TOSA 1.%d operator", what, (unsigned long long)opv, r->minor);
    tosa_op op = (tosa_op)opv;
    tosa_what(what, sizeof what, "operator %d (%s)", index, tosa_op_name(op));

    if (b->n_ops >= b->cap_ops)
        return tosac_fail(r->err, TOSAC_ERR_INTERNAL, "block '%s': more operators than counted",
                          b->name);
    /* filled in place: on failure tosa_graph_free releases what is set so far */
    tosa_operator *o = &b->ops[b->n_ops++];
    memset(o, 0, sizeof *o);
    o->op = op;
    fb_table lt;
    if ((rc = read_attr(r, ot, op, &o->attr, what)) ||
        (rc = tosa_read_names(r, ot, 3, b, ix, &o->inputs, &o->n_inputs, "input", what)) ||
        (rc = tosa_read_names(r, ot, 4, b, ix, &o->outputs, &o->n_outputs, "output", what)) ||
        (rc = fb_table_field(&r->b, ot, 5, &lt, &present, what)))
        return rc;
    if (present) {
        const char *s;
        size_t n;
        bool has_text;
        if ((rc = fb_str_field(&r->b, &lt, 0, &s, &n, &has_text, what)) != TOSAC_OK)
            return rc;
        o->location = tosa_reader_str(r, has_text ? s : "", has_text ? n : 0);
        if (!o->location)
            return r->err->code;
    }
    return TOSAC_OK;
}
