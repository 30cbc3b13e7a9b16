/* Internals shared by the TOSA graph model, the file reader/writer and `tosac inspect`:
 * the attribute schema (one description drives reading, writing, comparing and printing),
 * the file DType mapping and the packed data encodings. */
#ifndef TOSAC_TOSA_INTERNAL_H
#define TOSAC_TOSA_INTERNAL_H

#include "tosac/limits.h"
#include <stddef.h>
#include <stdint.h>

#include "tosac/tosa.h"

/* tosa_graph_read_ex whose name indexes (temporaries) come from index_alloc when it is not
 * NULL: hashed, linear in the block's size, where a host has the memory; the graph is the
 * same and a gets the same allocations either way. */
tosac_code tosa_graph_read_indexed(const void *buf, size_t len, const tosac_allocator *a,
                                   const tosac_allocator *index_alloc, unsigned flags,
                                   tosa_graph **out, tosac_error *err);

/* ---- attribute schema (FLATBUFFER_LAYOUT.md section 5) ---- */
typedef enum tosa_attr_kind {
    TOSA_AK_I32,      /* int32 */
    TOSA_AK_NAN,      /* NanPropagationMode (u32) */
    TOSA_AK_ROUND,    /* RoundingMode (u32) */
    TOSA_AK_RESIZE,   /* ResizeMode (u32) */
    TOSA_AK_BLOCK,    /* BlockSize (u32) */
    TOSA_AK_DTYPE,    /* DType (u32) stored as tosac_dtype */
    TOSA_AK_BOOL,     /* bool */
    TOSA_AK_VEC,      /* [int32] with an int count */
    TOSA_AK_RAW8,     /* [ubyte] force_align 8, at most 8 bytes, int count (CLAMP) */
    TOSA_AK_STR,      /* string (char *) */
    TOSA_AK_BYTES,    /* [ubyte] (uint8_t *, size_t count) */
} tosa_attr_kind;

typedef struct tosa_attr_field {
    const char *name;     /* schema field name */
    tosa_attr_kind kind;
    size_t off;           /* offsetof the value in tosa_attr */
    size_t n_off;         /* offsetof the count (VEC, RAW8, BYTES) */
    int cap;              /* capacity of a VEC / RAW8 array */
} tosa_attr_field;

/* The fields of op's attribute table in field-id order; *n = 0 for an empty table.
 * NULL for ops outside the known range. */
const tosa_attr_field *tosa_attr_fields(tosa_op op, int *n);

/* Range of a small enum field (NAN, ROUND, RESIZE, BLOCK; true for other kinds): the reader
 * refuses other values, so the writer does too. The dtype field goes through the DType
 * mapping instead. */
bool tosa_attr_enum_ok(tosa_attr_kind k, uint64_t v);

/* Field accessors (by kind) on an attribute. */
int64_t tosa_attr_get_int(const tosa_attr *a, const tosa_attr_field *f);
void tosa_attr_set_int(tosa_attr *a, const tosa_attr_field *f, int64_t v);

/* graph_build.c (libc, builder side): deep copy (strings and byte arrays duplicated); dst
 * is overwritten. */
tosac_code tosa_attr_copy(tosa_attr *dst, const tosa_attr *src, tosac_error *err);
void tosa_attr_release(tosa_attr *a);
/* Equality of the fields op's table has. */
bool tosa_attr_equal(tosa_op op, const tosa_attr *a, const tosa_attr *b);

/* Names of the small enumerations, for printing ("PROPAGATE", ...); "?" if out of range. */
const char *tosa_nan_mode_name(uint32_t v);
const char *tosa_rounding_mode_name(uint32_t v);
const char *tosa_resize_mode_name(uint32_t v);

/* ---- file DType numbering (FLATBUFFER_LAYOUT.md 3.1) ---- */
/* File DType number of a 1.0 (minor 0) or 1.1 (minor 1) file -> tosac_dtype; UNKNOWN (0)
 * maps to TOSAC_DT_UNKNOWN; -1 if the number is not a DType of that version. */
int tosa_dtype_from_file(uint32_t v, int minor);
/* tosac_dtype -> file DType number for that version; -1 if the version has no such type. */
int64_t tosa_dtype_to_file(tosac_dtype dt, int minor);
/* The TOSA name of a dtype ("INT8", "FP32", "SHAPE", ...); "UNKNOWN" if none. */
const char *tosa_dtype_tosa_name(tosac_dtype dt);

/* ---- constant data encodings (little endian, packed INT4 / INT48) ---- */
/* Bytes the file encoding of n elements takes. */
uint64_t tosa_data_file_bytes(tosac_dtype dt, uint64_t n);
/* File bytes (at least tosa_data_file_bytes) -> in-memory representation of n elements. */
void tosa_data_decode(tosac_dtype dt, const uint8_t *src, uint64_t n, void *dst);
/* In-memory -> file bytes; fails on a value outside the type's range (INT4, INT48, BOOL). */
tosac_code tosa_data_encode(tosac_dtype dt, const void *src, uint64_t n, uint8_t *dst,
                            const char *tensor_name, tosac_error *err);

/* graph.c: release through g->alloc (NULL and borrowed pointers are left alone). */
void tosa_graph_release(const tosa_graph *g, void *p);
void tosa_graph_release_attr(const tosa_graph *g, tosa_attr *a);

/* Checks that COND_IF / WHILE_LOOP name existing blocks and do not nest too deep or recurse;
 * messages start with `what` ("bad .tosa file" when reading). The writer checks the same, so
 * it never writes a file the reader refuses. */
tosac_code tosa_check_control_flow(const tosa_graph *g, const char *what, tosac_error *err);

/* The writer puts every constant data vector at a multiple of this in the buffer. */
#define TOSA_DATA_ALIGN 16

/* Limits on untrusted input. */
#define TOSA_MAX_CALL_DEPTH TOSAC_LIMIT_TOSA_CALL_DEPTH  /* COND_IF / WHILE_LOOP nesting */

#endif
