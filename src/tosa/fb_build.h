/* A small front-to-back flatbuffer builder.
 *
 * Tables are written vtable first, then the table (positive soffset), and every child
 * (sub-table, vector, string) is written after the table that points to it, so each
 * uoffset points forward as the wire format requires. All alignment is relative to the
 * buffer start. Output depends only on the calls made: same calls, same bytes. */
#ifndef TOSAC_TOSA_FB_BUILD_H
#define TOSAC_TOSA_FB_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fb_builder {
    uint8_t *buf;
    size_t len, cap;
    bool oom;            /* sticky: set on the first failed allocation */
} fb_builder;

typedef enum fb_field_kind { FB_ABSENT = 0, FB_SCALAR, FB_OFFSET } fb_field_kind;

typedef struct fb_field {
    fb_field_kind kind;
    int size;            /* FB_SCALAR: 1, 2, 4 or 8 bytes */
    uint64_t value;      /* FB_SCALAR: little-endian value */
} fb_field;

void fb_build_init(fb_builder *b);
void fb_build_free(fb_builder *b);

/* Makes room for n bytes in all (a size known ahead saves the doubling copies). */
void fb_build_reserve(fb_builder *b, size_t n);
/* Appends n zero bytes; returns their position (garbage if b->oom). */
size_t fb_build_zeros(fb_builder *b, size_t n);
/* Pads with zeros until len % align == want (want < align). */
void fb_build_pad(fb_builder *b, size_t align, size_t want);
void fb_build_put32(fb_builder *b, size_t pos, uint32_t v);
/* Stores at `slot` the uoffset from slot to target (target must be after slot). */
void fb_build_patch(fb_builder *b, size_t slot, size_t target);

/* A table with fields f[0..n) in field-id order. For each FB_OFFSET field, slots[i]
 * receives the position of its uoffset slot to patch later. Returns the table start. */
size_t fb_build_table(fb_builder *b, const fb_field *f, int n, size_t *slots);
/* A string; returns the position of its length field. */
size_t fb_build_string(fb_builder *b, const char *s);
/* A vector of n elements of elem_size bytes whose first element is aligned to `align`
 * (8 for force_align 8); returns the position of the count. The elements (zeroed) start
 * at the returned position + 4. */
size_t fb_build_vector(fb_builder *b, uint32_t n, size_t elem_size, size_t align);
/* The same with the elements left for the caller to write, every byte of them (constant
 * data: zeroing megabytes only to overwrite them was a few percent of compile). */
size_t fb_build_vector_unset(fb_builder *b, uint32_t n, size_t elem_size, size_t align);

#endif
