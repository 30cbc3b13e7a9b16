/* Bounds-checked flatbuffer reading primitives for an untrusted buffer.
 *
 * Every accessor validates offsets, lengths and natural alignment (relative to the buffer
 * start) before touching a byte, and reports TOSAC_ERR_INPUT naming `what` on failure.
 * Nothing here allocates: strings and vectors are returned as positions in the buffer. */
#ifndef TOSAC_TOSA_FB_READ_H
#define TOSAC_TOSA_FB_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tosac/error.h"

typedef struct fb_buf {
    const uint8_t *p;
    size_t len;
    tosac_error *err;
} fb_buf;

typedef struct fb_table {
    size_t pos;        /* table start (its soffset) */
    size_t vt;         /* vtable start */
    uint16_t vt_size;  /* vtable bytes */
    uint16_t t_size;   /* inline table bytes */
} fb_table;

typedef struct fb_vec {
    size_t pos;        /* first element */
    uint32_t n;        /* element count */
} fb_vec;

uint16_t fb_le16(const uint8_t *p);
uint32_t fb_le32(const uint8_t *p);
uint64_t fb_le64(const uint8_t *p);

/* The root table (checks the minimum size and the "TOSA" identifier). */
tosac_code fb_root(const fb_buf *b, const char *ident, fb_table *t);

/* Scalar field `id` of size 1, 2, 4 or 8 bytes: *present = false and *out = 0 if absent. */
tosac_code fb_scalar(const fb_buf *b, const fb_table *t, int id, int size, uint64_t *out,
                     bool *present, const char *what);
/* Sub-table, vector (elem_size bytes per element) or string reached through a uoffset field.
 * *present says whether the field exists; outputs are zeroed when it does not. */
tosac_code fb_table_field(const fb_buf *b, const fb_table *t, int id, fb_table *out,
                          bool *present, const char *what);
tosac_code fb_vec_field(const fb_buf *b, const fb_table *t, int id, size_t elem_size,
                        fb_vec *out, bool *present, const char *what);
tosac_code fb_str_field(const fb_buf *b, const fb_table *t, int id, const char **s,
                        size_t *n, bool *present, const char *what);

/* Element i of a vector of tables / strings (one uoffset per element). */
tosac_code fb_vec_table(const fb_buf *b, const fb_vec *v, uint32_t i, fb_table *out,
                        const char *what);
tosac_code fb_vec_str(const fb_buf *b, const fb_vec *v, uint32_t i, const char **s, size_t *n,
                      const char *what);

#endif
