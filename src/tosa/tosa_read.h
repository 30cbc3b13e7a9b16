/* Reader context shared by the .tosa reader files (tosa_read*.c). */
#ifndef TOSAC_TOSA_READ_H
#define TOSAC_TOSA_READ_H

#include "tosa/fb_read.h"
#include "tosa/tosa_internal.h"

/* A tensor a sub-block names but does not declare (see tosa_tensor.outer_ref). */
typedef struct tosa_outer_ref {
    int region, block, tensor;
    int op;               /* first operator that names it, for the error message */
    const char *kind;     /* "input" / "output" */
} tosa_outer_ref;

#define TOSA_MAX_OUTER_REFS 4096

typedef struct tosa_reader {
    fb_buf b;
    tosac_error *err;
    int minor;            /* 0 or 1: selects the DType / Op numbering */
    uint64_t budget;      /* bytes we may still copy out (guards shared-table amplification) */
    int cur_region, cur_block, cur_op; /* where names are being resolved */
    const char *cur_kind;
    tosa_outer_ref *outer; /* outer references created so far, resolved after all blocks */
    int n_outer;
} tosa_reader;

/* Sorted name -> tensor index map of one block. */
typedef struct tosa_name_index {
    const tosa_block *block;
    int *order;           /* tensor indices sorted by name */
    int n;
} tosa_name_index;

/* Charges n bytes of copied content against the budget. */
tosac_code tosa_reader_charge(tosa_reader *r, uint64_t n);
/* -1 if absent. */
int tosa_name_lookup(const tosa_name_index *ix, const char *name);

/* Operand name -> tensor index in block b; a name the block does not declare becomes an
 * outer reference (created once per block and name). -1 with err set on failure. */
int tosa_reader_operand(tosa_reader *r, tosa_block *b, const tosa_name_index *ix,
                        const char *name);
/* Vector-of-names field `id` of table t -> tensor indices (*out malloc'd). With b, names the
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
