/* Reader context shared by the .tosa reader files (tosa_read*.c). */
#ifndef TOSAC_TOSA_READ_H
#define TOSAC_TOSA_READ_H

#include "tosac/limits.h"
#include "tosa/fb_read.h"
#include "tosa/tosa_internal.h"
#include "util/strfmt.h"

#define TOSA_MAX_OUTER_REFS TOSAC_LIMIT_TOSA_OUTER_REFS

/* Everything the reader keeps goes to g->alloc, sized exactly before it is filled (no
 * growth); with TOSA_READ_BORROW names and constant data may point into the buffer. */
typedef struct tosa_reader {
    fb_buf b;
    tosac_error *err;
    tosa_graph *g;
    unsigned flags;
    int minor;            /* 0 or 1: selects the DType / Op numbering */
    const tosac_allocator *index_alloc; /* the hashed name indexes' slots, or NULL (sorted) */
    uint64_t budget;      /* bytes we may still copy out (guards shared-table amplification) */
    int n_outer;          /* outer references created so far (tensors marked outer_ref) */
} tosa_reader;

/* Name -> tensor index map of one block's declared tensors (outer references are appended
 * after them, at indices n..): sorted (order, from g->alloc), or hashed where the reader has
 * an index_alloc (the compiler's host: slots). order is taken in both cases: the runtime's
 * arena must measure the same on the host as on a target. */
typedef struct tosa_name_index {
    const tosa_block *block;
    int *order;           /* tensor indices sorted by name (unused when hashed) */
    int n;
    int *slots;           /* open addressing: tensor index + 1, 0 empty; or NULL */
    size_t cap;           /* power of two */
    const tosac_allocator *slots_alloc;
} tosa_name_index;

/* From g->alloc; NULL with err set ("out of memory reading the .tosa file"). */
void *tosa_reader_alloc(tosa_reader *r, size_t bytes, size_t align);
/* A string of the file (s, n bytes, NUL-terminated): borrowed when reading with
 * TOSA_READ_BORROW and s lies in the buffer, else copied. Charged against the budget. */
char *tosa_reader_str(tosa_reader *r, const char *s, size_t n);
/* "what" context strings for messages (a small snprintf, see util/strfmt.h). */
#define tosa_what tosac_strfmt

/* Charges n bytes of copied content against the budget. */
tosac_code tosa_reader_charge(tosa_reader *r, uint64_t n);
/* -1 if absent. */
int tosa_name_lookup(const tosa_name_index *ix, const char *name);

/* Operand name -> tensor index in block b; a name the block does not declare becomes an
 * outer reference (created once per block and name). -1 with err set on failure. */
int tosa_reader_operand(tosa_reader *r, tosa_block *b, const tosa_name_index *ix,
                        const char *name);
/* Appends a tensor to b (within the capacity counted before reading); it owns name. */
tosa_tensor *tosa_reader_new_tensor(tosa_reader *r, tosa_block *b, char *name, tosac_dtype dt,
                                    int rank, const int64_t *shape);
/* Upper bound of the outer references block b's operators (vector ops) can create. */
int tosa_count_outer_candidates(tosa_reader *r, const fb_vec *ops, const tosa_name_index *ix);
/* Vector-of-names field `id` of table t -> tensor indices (*out from the reader). With b, names the
 * block lacks become outer references (operator operands); without, they are errors. */
tosac_code tosa_read_names(tosa_reader *r, const fb_table *t, int id, tosa_block *b,
                           const tosa_name_index *ix, int **out, int *n_out, const char *kind,
                           const char *what);
/* Fills every outer reference from the declaration in a calling block. */
tosac_code tosa_resolve_outer_refs(tosa_reader *r, tosa_graph *g);

/* Reads one TosaOperator table into block b (operand names resolved through ix). */
tosac_code tosa_read_operator(tosa_reader *r, const fb_table *t, int index, tosa_block *b,
                              const tosa_name_index *ix);

#endif
