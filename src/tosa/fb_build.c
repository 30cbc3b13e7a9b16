/* Front-to-back flatbuffer builder (wire format: FLATBUFFER_LAYOUT.md section 2). */
#include "tosa/fb_build.h"

#include <stdlib.h>
#include <string.h>

void fb_build_init(fb_builder *b) { memset(b, 0, sizeof *b); }

void fb_build_free(fb_builder *b)
{
    free(b->buf);
    memset(b, 0, sizeof *b);
}

void fb_build_reserve(fb_builder *b, size_t n)
{
    if (b->oom || n <= b->cap)
        return;
    uint8_t *p = realloc(b->buf, n);
    if (p) { /* no memory: growth on demand reports it */
        b->buf = p;
        b->cap = n;
    }
}

/* Appends n bytes the caller fills; returns their position (garbage if b->oom). */
static size_t space(fb_builder *b, size_t n)
{
    if (b->oom)
        return 0;
    if (n > b->cap - b->len) {
        size_t nc = b->cap ? b->cap : 1024;
        while (nc - b->len < n) {
            if (nc > ((size_t)1 << 40)) {
                b->oom = true;
                return 0;
            }
            nc *= 2;
        }
        uint8_t *p = realloc(b->buf, nc);
        if (!p) {
            b->oom = true;
            return 0;
        }
        b->buf = p;
        b->cap = nc;
    }
    size_t pos = b->len;
    b->len += n;
    return pos;
}

size_t fb_build_zeros(fb_builder *b, size_t n)
{
    size_t pos = space(b, n);
    if (!b->oom)
        memset(b->buf + pos, 0, n);
    return pos;
}

void fb_build_pad(fb_builder *b, size_t align, size_t want)
{
    size_t n = (want + align - b->len % align) % align;
    fb_build_zeros(b, n);
}

static void put(fb_builder *b, size_t pos, uint64_t v, int size)
{
    if (b->oom)
        return;
    for (int i = 0; i < size; i++)
        b->buf[pos + (size_t)i] = (uint8_t)(v >> (8 * i));
}

void fb_build_put32(fb_builder *b, size_t pos, uint32_t v) { put(b, pos, v, 4); }

void fb_build_patch(fb_builder *b, size_t slot, size_t target)
{
    /* A backward target would be a builder bug; it cannot happen with the write order. */
    if (target <= slot || target - slot > UINT32_MAX) {
        b->oom = true;
        return;
    }
    put(b, slot, target - slot, 4);
}

size_t fb_build_table(fb_builder *b, const fb_field *f, int n, size_t *slots)
{
    int last = -1;
    size_t align = 4;
    for (int i = 0; i < n; i++)
        if (f[i].kind != FB_ABSENT) {
            last = i;
            if (f[i].kind == FB_SCALAR && f[i].size == 8)
                align = 8;
        }
    /* Field layout inside the table: soffset, then fields in id order, each aligned. */
    uint16_t offs[64] = {0};
    size_t tsize = 4;
    for (int i = 0; i <= last && i < 64; i++) {
        if (f[i].kind == FB_ABSENT)
            continue;
        size_t sz = f[i].kind == FB_OFFSET ? 4 : (size_t)f[i].size;
        tsize = (tsize + sz - 1) / sz * sz;
        offs[i] = (uint16_t)tsize;
        tsize += sz;
    }
    size_t vsize = 4 + 2 * (size_t)(last + 1);
    fb_build_pad(b, 2, 0);
    size_t vt = fb_build_zeros(b, vsize);
    /* The table start gets the table's alignment; the vtable stays just before it. */
    fb_build_pad(b, align, 0);
    size_t t = fb_build_zeros(b, tsize);
    if (b->oom)
        return 0;
    put(b, vt, vsize, 2);
    put(b, vt + 2, tsize, 2);
    for (int i = 0; i <= last; i++)
        put(b, vt + 4 + 2 * (size_t)i, offs[i], 2);
    put(b, t, (uint32_t)(int32_t)(t - vt), 4);
    for (int i = 0; i <= last; i++) {
        if (f[i].kind == FB_SCALAR)
            put(b, t + offs[i], f[i].value, f[i].size);
        if (slots)
            slots[i] = f[i].kind == FB_OFFSET ? t + offs[i] : 0;
    }
    return t;
}

static size_t vector(fb_builder *b, uint32_t n, size_t elem_size, size_t align, bool zero)
{
    if (align < 4)
        align = 4;
    /* The count sits just before the first element: count at align-4 mod align. */
    fb_build_pad(b, align, align - 4);
    size_t pos = fb_build_zeros(b, 4);
    put(b, pos, n, 4);
    if (zero)
        fb_build_zeros(b, (size_t)n * elem_size);
    else
        space(b, (size_t)n * elem_size);
    return pos;
}

size_t fb_build_vector(fb_builder *b, uint32_t n, size_t elem_size, size_t align)
{
    return vector(b, n, elem_size, align, true);
}

size_t fb_build_vector_unset(fb_builder *b, uint32_t n, size_t elem_size, size_t align)
{
    return vector(b, n, elem_size, align, false);
}

size_t fb_build_string(fb_builder *b, const char *s)
{
    size_t n = strlen(s);
    size_t pos = fb_build_vector(b, (uint32_t)n, 1, 4);
    size_t nul = fb_build_zeros(b, 1);
    (void)nul;
    if (!b->oom)
        memcpy(b->buf + pos + 4, s, n);
    return pos;
}
