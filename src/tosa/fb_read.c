/* Bounds-checked flatbuffer primitives (wire format: FLATBUFFER_LAYOUT.md section 2). */
#include "tosa/fb_read.h"

#include <string.h>

uint16_t fb_le16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }

uint32_t fb_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

uint64_t fb_le64(const uint8_t *p) { return fb_le32(p) | ((uint64_t)fb_le32(p + 4) << 32); }

static tosac_code bad(const fb_buf *b, const char *what, const char *problem)
{
    return tosac_fail(b->err, TOSAC_ERR_INPUT, "corrupt .tosa file: %s: %s", what, problem);
}

/* Follows the uoffset stored at pos; the target must hold at least `need` bytes and be
 * `align`-aligned. */
static tosac_code follow(const fb_buf *b, size_t pos, size_t need, size_t align, size_t *out,
                         const char *what)
{
    if (pos % 4 || pos > b->len || b->len - pos < 4)
        return bad(b, what, "offset field out of bounds or misaligned");
    uint32_t off = fb_le32(b->p + pos);
    if (off == 0 || off > b->len - pos)
        return bad(b, what, "offset points outside the buffer");
    size_t target = pos + off;
    if (target % align)
        return bad(b, what, "misaligned target");
    if (b->len - target < need)
        return bad(b, what, "target runs past the end of the buffer");
    *out = target;
    return TOSAC_OK;
}

static tosac_code table_at(const fb_buf *b, size_t pos, fb_table *t, const char *what)
{
    if (pos % 4 || pos > b->len || b->len - pos < 4)
        return bad(b, what, "table out of bounds or misaligned");
    int64_t vt = (int64_t)pos - (int32_t)fb_le32(b->p + pos);
    if (vt < 0 || (uint64_t)vt > b->len - 4 || vt % 2)
        return bad(b, what, "vtable out of bounds or misaligned");
    uint16_t vs = fb_le16(b->p + vt), ts = fb_le16(b->p + vt + 2);
    if (vs < 4 || vs % 2 || (size_t)vs > b->len - (size_t)vt)
        return bad(b, what, "bad vtable size");
    if (ts < 4 || (size_t)ts > b->len - pos)
        return bad(b, what, "bad table size");
    t->pos = pos;
    t->vt = (size_t)vt;
    t->vt_size = vs;
    t->t_size = ts;
    return TOSAC_OK;
}

tosac_code fb_root(const fb_buf *b, const char *ident, fb_table *t)
{
    if (b->len < 8)
        return tosac_fail(b->err, TOSAC_ERR_INPUT, "not a .tosa file: only %zu bytes", b->len);
    if (memcmp(b->p + 4, ident, 4) != 0)
        return tosac_fail(b->err, TOSAC_ERR_INPUT,
                          "not a .tosa file: file identifier is not \"%s\"", ident);
    size_t pos = 0;
    tosac_code rc = follow(b, 0, 4, 4, &pos, "root table");
    return rc ? rc : table_at(b, pos, t, "root table");
}

/* Byte offset of field id inside the table, 0 if absent; checks it fits and is aligned. */
static tosac_code field_pos(const fb_buf *b, const fb_table *t, int id, size_t size,
                            size_t *pos, const char *what)
{
    *pos = 0;
    size_t slot = 4 + 2 * (size_t)id;
    if (slot + 2 > t->vt_size)
        return TOSAC_OK;
    uint16_t off = fb_le16(b->p + t->vt + slot);
    if (off == 0)
        return TOSAC_OK;
    if (off < 4 || (size_t)off + size > t->t_size)
        return bad(b, what, "field outside its table");
    size_t p = t->pos + off;
    if (p % size)
        return bad(b, what, "misaligned field");
    *pos = p;
    return TOSAC_OK;
}

tosac_code fb_scalar(const fb_buf *b, const fb_table *t, int id, int size, uint64_t *out,
                     bool *present, const char *what)
{
    size_t p;
    *out = 0;
    *present = false;
    tosac_code rc = field_pos(b, t, id, (size_t)size, &p, what);
    if (rc || !p)
        return rc;
    *present = true;
    switch (size) {
    case 1: *out = b->p[p]; break;
    case 2: *out = fb_le16(b->p + p); break;
    case 4: *out = fb_le32(b->p + p); break;
    default: *out = fb_le64(b->p + p); break;
    }
    return TOSAC_OK;
}

tosac_code fb_table_field(const fb_buf *b, const fb_table *t, int id, fb_table *out,
                          bool *present, const char *what)
{
    size_t p, target = 0;
    memset(out, 0, sizeof *out);
    *present = false;
    tosac_code rc = field_pos(b, t, id, 4, &p, what);
    if (rc || !p)
        return rc;
    if ((rc = follow(b, p, 4, 4, &target, what)) != TOSAC_OK)
        return rc;
    *present = true;
    return table_at(b, target, out, what);
}

/* The vector whose uoffset is at slot: count, then elements aligned to their size. */
static tosac_code vec_at(const fb_buf *b, size_t slot, size_t elem_size, fb_vec *out,
                         const char *what)
{
    size_t target = 0;
    tosac_code rc = follow(b, slot, 4, 4, &target, what);
    if (rc)
        return rc;
    uint32_t n = fb_le32(b->p + target);
    size_t first = target + 4;
    if (elem_size > 4 && first % elem_size)
        return bad(b, what, "misaligned vector elements");
    /* Guards against huge counts: the elements must fit in what is left of the buffer. */
    if (elem_size && (uint64_t)n > (b->len - first) / elem_size)
        return bad(b, what, "vector runs past the end of the buffer");
    out->pos = first;
    out->n = n;
    return TOSAC_OK;
}

tosac_code fb_vec_field(const fb_buf *b, const fb_table *t, int id, size_t elem_size,
                        fb_vec *out, bool *present, const char *what)
{
    size_t p;
    memset(out, 0, sizeof *out);
    *present = false;
    tosac_code rc = field_pos(b, t, id, 4, &p, what);
    if (rc || !p)
        return rc;
    *present = true;
    return vec_at(b, p, elem_size, out, what);
}

static tosac_code str_at(const fb_buf *b, size_t slot, const char **s, size_t *n,
                         const char *what)
{
    fb_vec v = {0, 0};
    tosac_code rc = vec_at(b, slot, 1, &v, what);
    if (rc)
        return rc;
    if (v.pos + v.n >= b->len || b->p[v.pos + v.n] != 0)
        return bad(b, what, "string is not NUL-terminated");
    /* A C string cannot carry an embedded NUL: reject rather than silently truncate. */
    if (memchr(b->p + v.pos, 0, v.n))
        return bad(b, what, "string contains a NUL byte");
    *s = (const char *)b->p + v.pos;
    *n = v.n;
    return TOSAC_OK;
}

tosac_code fb_str_field(const fb_buf *b, const fb_table *t, int id, const char **s,
                        size_t *n, bool *present, const char *what)
{
    size_t p;
    *s = NULL;
    *n = 0;
    *present = false;
    tosac_code rc = field_pos(b, t, id, 4, &p, what);
    if (rc || !p)
        return rc;
    *present = true;
    return str_at(b, p, s, n, what);
}

tosac_code fb_vec_table(const fb_buf *b, const fb_vec *v, uint32_t i, fb_table *out,
                        const char *what)
{
    size_t target = 0;
    tosac_code rc = follow(b, v->pos + 4 * (size_t)i, 4, 4, &target, what);
    return rc ? rc : table_at(b, target, out, what);
}

tosac_code fb_vec_str(const fb_buf *b, const fb_vec *v, uint32_t i, const char **s, size_t *n,
                      const char *what)
{
    return str_at(b, v->pos + 4 * (size_t)i, s, n, what);
}
