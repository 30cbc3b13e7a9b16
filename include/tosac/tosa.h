/* The TOSA graph model: what a .tosa file holds, in memory.
 *
 * Names are resolved to indices when a graph is read or built: operators refer to tensors
 * of their own block by index, so nothing downstream compares strings. Constant data is
 * kept in the in-memory representation of dtype.h (INT4 unpacked to one int8 per value,
 * INT48 sign-extended in int64, SHAPE as int64); packing happens only in the file codec.
 * Everything a graph owns comes from its allocator (libc for built graphs and
 * tosa_graph_read; the caller's for tosa_graph_read_ex) and is released by tosa_graph_free.
 * Plain data by design, not opaque: a graph is the data users walk (blocks, operators,
 * tensors by index), as tosac inspect and the lowering tests do; it is built only through
 * tosa_graph_* and freed by tosa_graph_free. */
#ifndef TOSAC_TOSA_H
#define TOSAC_TOSA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tosac/alloc.h"
#include "tosac/dtype.h"
#include "tosac/error.h"
#include "tosac/tensor.h"

/* Operator numbers of the TOSA 1.0 final schema; 1.1 appends from 76. */
typedef enum tosa_op {
    TOSA_OP_UNKNOWN = 0,
    TOSA_OP_ARGMAX, TOSA_OP_AVG_POOL2D, TOSA_OP_CONV2D, TOSA_OP_CONV3D, TOSA_OP_DEPTHWISE_CONV2D,
    TOSA_OP_FFT2D, TOSA_OP_MATMUL, TOSA_OP_MAX_POOL2D, TOSA_OP_RFFT2D, TOSA_OP_TRANSPOSE_CONV2D,
    TOSA_OP_CLAMP, TOSA_OP_ERF, TOSA_OP_SIGMOID, TOSA_OP_TANH, TOSA_OP_ADD,
    TOSA_OP_ARITHMETIC_RIGHT_SHIFT, TOSA_OP_BITWISE_AND, TOSA_OP_BITWISE_OR, TOSA_OP_BITWISE_XOR,
    TOSA_OP_INTDIV, TOSA_OP_LOGICAL_AND, TOSA_OP_LOGICAL_LEFT_SHIFT, TOSA_OP_LOGICAL_RIGHT_SHIFT,
    TOSA_OP_LOGICAL_OR, TOSA_OP_LOGICAL_XOR, TOSA_OP_MAXIMUM, TOSA_OP_MINIMUM, TOSA_OP_MUL,
    TOSA_OP_POW, TOSA_OP_SUB, TOSA_OP_TABLE, TOSA_OP_ABS, TOSA_OP_BITWISE_NOT, TOSA_OP_CEIL,
    TOSA_OP_CLZ, TOSA_OP_COS, TOSA_OP_EXP, TOSA_OP_FLOOR, TOSA_OP_LOG, TOSA_OP_LOGICAL_NOT,
    TOSA_OP_NEGATE, TOSA_OP_RECIPROCAL, TOSA_OP_RSQRT, TOSA_OP_SIN, TOSA_OP_SELECT,
    TOSA_OP_EQUAL, TOSA_OP_GREATER, TOSA_OP_GREATER_EQUAL, TOSA_OP_REDUCE_ALL,
    TOSA_OP_REDUCE_ANY, TOSA_OP_REDUCE_MAX, TOSA_OP_REDUCE_MIN, TOSA_OP_REDUCE_PRODUCT,
    TOSA_OP_REDUCE_SUM, TOSA_OP_CONCAT, TOSA_OP_PAD, TOSA_OP_RESHAPE, TOSA_OP_REVERSE,
    TOSA_OP_SLICE, TOSA_OP_TILE, TOSA_OP_TRANSPOSE, TOSA_OP_GATHER, TOSA_OP_SCATTER,
    TOSA_OP_RESIZE, TOSA_OP_CAST, TOSA_OP_RESCALE, TOSA_OP_CONST, TOSA_OP_IDENTITY,
    TOSA_OP_CUSTOM, TOSA_OP_COND_IF, TOSA_OP_WHILE_LOOP, TOSA_OP_VARIABLE,
    TOSA_OP_VARIABLE_WRITE, TOSA_OP_VARIABLE_READ, TOSA_OP_CONST_SHAPE, /* = 75 */
    /* TOSA 1.1 */
    TOSA_OP_MATMUL_T_BLOCK_SCALED, TOSA_OP_CAST_FROM_BLOCK_SCALED, TOSA_OP_CAST_TO_BLOCK_SCALED,
    TOSA_OP_DIM, TOSA_OP_CONCAT_SHAPE, TOSA_OP_ADD_SHAPE, TOSA_OP_SUB_SHAPE, TOSA_OP_MUL_SHAPE,
    TOSA_OP_SLICE_SHAPE, TOSA_OP_EXP2_SHAPE, TOSA_OP_LOG2_CEIL_SHAPE, TOSA_OP_LOG2_FLOOR_SHAPE,
    TOSA_OP_MAX_SHAPE, TOSA_OP_MIN_SHAPE, TOSA_OP_MOD_SHAPE, TOSA_OP_DIV_CEIL_SHAPE,
    TOSA_OP_DIV_FLOOR_SHAPE, TOSA_OP_ASSERT_EQUAL_SHAPE, TOSA_OP_CONV2D_BLOCK_SCALED,
    TOSA_OP_MAX_POOL2D_ADAPTIVE, TOSA_OP_AVG_POOL2D_ADAPTIVE, /* = 96 */
    TOSA_OP_COUNT
} tosa_op;

#define TOSA_OP_LAST_1_0 TOSA_OP_CONST_SHAPE

/* "CONV2D" etc.; NULL for out-of-range values. */
const char *tosa_op_name(tosa_op op);
/* Inverse of tosa_op_name (exact, upper case); TOSA_OP_UNKNOWN if none. */
tosa_op tosa_op_from_name(const char *name);

/* Enumerations stored in attributes, numbered as in the spec and the schema. */
enum { TOSA_NAN_UNKNOWN = 0, TOSA_NAN_PROPAGATE = 1, TOSA_NAN_IGNORE = 2 };
enum { TOSA_ROUND_UNKNOWN = 0, TOSA_ROUND_SINGLE = 1, TOSA_ROUND_INEXACT = 2, TOSA_ROUND_DOUBLE = 3 };
enum { TOSA_RESIZE_UNKNOWN = 0, TOSA_RESIZE_NEAREST = 1, TOSA_RESIZE_BILINEAR = 2 };

/* The union of every attribute table; an operator uses the fields its table has
 * (FLATBUFFER_LAYOUT.md section 5). Vector fields carry their length so a file's
 * content round-trips exactly. */
typedef struct tosa_attr {
    int32_t axis;
    uint32_t nan_mode;
    int32_t kernel[2];
    int n_kernel;
    int32_t stride[3];
    int n_stride;
    int32_t pad[6];
    int n_pad;
    int32_t dilation[3];
    int n_dilation;
    int32_t out_pad[4];
    int n_out_pad;
    int32_t perms[TOSAC_MAX_RANK];
    int n_perms;
    tosac_dtype acc_type;       /* conv/pool accumulator, as our dtype (file stores a DType) */
    bool local_bound, round, inverse;
    bool scale32, per_channel, input_unsigned, output_unsigned; /* RESCALE */
    bool allow_broadcast;       /* 1.1 ASSERT_EQUAL_SHAPE */
    uint32_t rounding_mode;     /* RESCALE */
    uint32_t mode;              /* RESIZE */
    uint32_t block_size;        /* 1.1 block-scaled ops */
    uint8_t min_val[8], max_val[8]; /* CLAMP: raw LE bytes of one in_out_t value */
    int n_min_val, n_max_val;
    char *then_graph, *else_graph, *cond_graph, *body_graph; /* control flow: block names */
    char *custom_operator_name, *custom_domain_name;
    uint8_t *custom_impl_attrs;
    size_t n_custom_impl_attrs;
} tosa_attr;

typedef struct tosa_tensor {
    char *name;
    tosac_dtype dtype;          /* SHAPE for shape_t values */
    int rank;
    int64_t shape[TOSAC_MAX_RANK];
    bool is_unranked;
    void *data;                 /* constant payload (in-memory representation) or NULL */
    size_t data_size;           /* bytes of data */
    bool variable;              /* EXT-VARIABLE state tensor */
    char *variable_name;
    bool in_shapes_table;       /* came from / goes to block.shapes (1.0 TosaShape) */
    /* Declared in an enclosing block, not in this one: a COND_IF / WHILE_LOOP sub-block may
     * name a tensor of the block that calls it (the reference model looks names up in the
     * caller when they are not local). The reader adds such a reference to the sub-block with
     * the declaration's dtype and shape (no data); at run time it is the caller's tensor of
     * the same name. The writer leaves it out of the sub-block's tensor list. */
    bool outer_ref;
} tosa_tensor;

typedef struct tosa_operator {
    tosa_op op;
    tosa_attr attr;
    int *inputs;                /* tensor indices in the owning block */
    int n_inputs;
    int *outputs;
    int n_outputs;
    char *location;             /* optional OpLocation text */
} tosa_operator;

typedef struct tosa_block {
    char *name;
    tosa_tensor *tensors;
    int n_tensors, cap_tensors;
    tosa_operator *ops;
    int n_ops, cap_ops;
    int *inputs;                /* tensor indices */
    int n_inputs;
    int *outputs;
    int n_outputs;
} tosa_block;

typedef struct tosa_region {
    char *name;
    tosa_block *blocks;
    int n_blocks, cap_blocks;
} tosa_region;

typedef struct tosa_graph {
    int32_t ver_major, ver_minor, ver_patch;
    bool ver_draft;
    tosa_region *regions;
    int n_regions, cap_regions;
    tosac_allocator alloc;      /* everything the graph owns came from it */
    /* TOSA_READ_BORROW: the file buffer that names and constant data may point into
     * (never released; must outlive the graph). NULL otherwise. */
    const uint8_t *borrowed;
    size_t n_borrowed;
} tosa_graph;

/* ---- building (graph_build.c: libc allocator; used by the lowering and tests) ---- */
tosa_graph *tosa_graph_new(int major, int minor); /* version major.minor.0, non-draft */
/* Releases everything through g->alloc (borrowed bytes are left alone). */
void tosa_graph_free(tosa_graph *g);
tosa_region *tosa_graph_add_region(tosa_graph *g, const char *name);
tosa_block *tosa_region_add_block(tosa_region *r, const char *name);
/* Moves every block of src to the end of dst (both built here, under the libc allocator):
 * the blocks of a lowered COND_IF branch or WHILE_LOOP body join the graph that calls them.
 * Pointers into dst->blocks are invalidated. src is left empty. */
tosac_code tosa_region_take_blocks(tosa_region *dst, tosa_region *src, tosac_error *err);
/* Adds a tensor; returns its index or -1 (out of memory / duplicate name: err set).
 * data (may be NULL) is copied. */
int tosa_block_add_tensor(tosa_block *b, const char *name, tosac_dtype dt, int rank,
                          const int64_t *shape, const void *data, size_t data_size,
                          tosac_error *err);
/* The same for a name the caller knows the block does not have (tosa_names_fresh). */
int tosa_block_add_new_tensor(tosa_block *b, const char *name, tosac_dtype dt, int rank,
                              const int64_t *shape, const void *data, size_t data_size,
                              tosac_error *err);
int tosa_block_find_tensor(const tosa_block *b, const char *name); /* -1 if absent */
/* Adds an operator (inputs/outputs copied, attr copied deep); returns its index or -1. */
int tosa_block_add_op(tosa_block *b, tosa_op op, const tosa_attr *attr, const int *inputs,
                      int n_inputs, const int *outputs, int n_outputs, tosac_error *err);
tosac_code tosa_block_set_io(tosa_block *b, const int *inputs, int n_inputs, const int *outputs,
                             int n_outputs, tosac_error *err);

/* The block the reference model runs: block "main" of region 0 (or its first block). */
const tosa_block *tosa_graph_main_block(const tosa_graph *g);
/* A block by name: a region of that name (its first block) first, then any block. */
const tosa_block *tosa_graph_find_block(const tosa_graph *g, const char *name);

/* ---- file codec (src/tosa/) ---- */
/* Verifying reader: the buffer is untrusted. Bad files are TOSAC_ERR_INPUT with a message. */
tosac_code tosa_graph_read(const void *buf, size_t len, tosa_graph **out, tosac_error *err);
/* The same under a given allocator (runtime-safe: nothing else is allocated; reading makes
 * a few temporaries it releases again). Flags: */
#define TOSA_READ_BORROW 1u /* names and constant data point into buf (which must outlive the
                             * graph and stay unchanged) when the in-memory form equals the
                             * file bytes and the data is aligned for its dtype; INT4, INT48,
                             * BOOL and misaligned data are decoded into the allocator */
tosac_code tosa_graph_read_ex(const void *buf, size_t len, const tosac_allocator *a,
                              unsigned flags, tosa_graph **out, tosac_error *err);
tosac_code tosa_graph_read_file(const char *path, tosa_graph **out, tosac_error *err);
/* Deterministic writer (same graph, same bytes). *buf is malloc'd. */
tosac_code tosa_graph_write(const tosa_graph *g, void **buf, size_t *len, tosac_error *err);
/* The same file appended to *buf (malloc'd or NULL, *len bytes used, *cap allocated; grown
 * with realloc) at *len, which must be 16-aligned: the file's alignments are relative to its
 * start, so the bytes are those tosa_graph_write gives. *len grows by the file's size (left as
 * it was on failure). A container (the program) takes the file without a second copy. */
tosac_code tosa_graph_write_append(const tosa_graph *g, void **buf, size_t *len, size_t *cap,
                                   tosac_error *err);
/* About the bytes tosa_graph_write gives for g (an estimate to reserve, not a bound). */
size_t tosa_graph_write_estimate(const tosa_graph *g);
tosac_code tosa_graph_write_file(const tosa_graph *g, const char *path, tosac_error *err);

/* The graphs as one MLIR module in the `tosa` dialect (TOSA 1.0 form, generic operator
 * syntax, constants included): graph i's main block becomes func.func @names[i]. *text is
 * malloc'd (NUL-terminated), *len its length. Operators with no MLIR 1.0 form (CUSTOM,
 * variables, 1.1 additions) are an error naming them. */
tosac_code tosa_graphs_to_mlir(const tosa_graph *const *graphs, const char *const *names, int n,
                               char **text, size_t *len, tosac_error *err);

/* Deep structural equality (names, shapes, dtypes, data, attributes, order). */
bool tosa_graph_equal(const tosa_graph *a, const tosa_graph *b);

#endif
