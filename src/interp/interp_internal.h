/* Interpreter internals shared by the operator group files.
 *
 * Every operator is one function `tosac_code fn(interp_ctx *c)`. The executor has already
 * allocated every output tensor with the shape and dtype the graph declares, bound the
 * operand tensors in c->in / c->out (spec operand order, FLATBUFFER_LAYOUT.md section 7),
 * and zeroed nothing in particular: an op writes all of its output.
 * An op first checks the spec's ERROR_IF conditions (shapes, attribute values, types) with
 * INTERP_ERROR_IF, then computes. No allocation inside ops: they must run on a
 * microcontroller later; scratch needs go through c->scratch (see interp_scratch).
 *
 * Tensor data follows dtype.h: I48 in int64, I4 in int8, F16/BF16 as uint16 bits, BOOL as
 * uint8 0/1, SHAPE as int64. Integer behaviour is the spec pseudocode exactly. */
#ifndef TOSAC_INTERP_INTERNAL_H
#define TOSAC_INTERP_INTERNAL_H

#include <stdint.h>
#include <stddef.h>

#include "tosac/interp.h"

typedef struct interp_state interp_state;

typedef struct interp_ctx {
    interp_state *st;           /* for control flow and variables */
    const tosa_graph *graph;
    const tosa_block *block;
    const tosa_operator *op;
    tosac_tensor **in;          /* op->n_inputs operands */
    int n_in;
    tosac_tensor **out;         /* op->n_outputs results */
    int n_out;
    tosac_error *err;
    void *op_data;              /* a replacement operator's prepared data (interp_block_set_op) */
} interp_ctx;

typedef tosac_code (*interp_op_fn)(interp_ctx *c);

typedef struct interp_op_entry {
    tosa_op op;
    interp_op_fn fn;
} interp_op_entry;

/* Each group file exports one table, terminated by {TOSA_OP_UNKNOWN, NULL}. */
extern const interp_op_entry interp_ops_tensor[];        /* interp_tensor.c, interp_conv.c */
extern const interp_op_entry interp_ops_conv[];
extern const interp_op_entry interp_ops_activation[];    /* interp_activation.c */
extern const interp_op_entry interp_ops_elementwise[];   /* interp_elementwise.c (binary, unary, ternary) */
extern const interp_op_entry interp_ops_comparison[];    /* interp_comparison.c */
extern const interp_op_entry interp_ops_reduction[];     /* interp_reduction.c */
extern const interp_op_entry interp_ops_data_layout[];   /* interp_data_layout.c */
extern const interp_op_entry interp_ops_scatter_gather[];/* interp_scatter_gather.c */
extern const interp_op_entry interp_ops_image[];         /* interp_image.c */
extern const interp_op_entry interp_ops_type_conversion[]; /* interp_type_conversion.c */
extern const interp_op_entry interp_ops_data_node[];     /* interp_data_node.c: CONST, CONST_SHAPE, IDENTITY */
extern const interp_op_entry interp_ops_control_flow[];  /* interp_control_flow.c */
extern const interp_op_entry interp_ops_variable[];      /* interp_variable.c */

/* Report an ERROR_IF violation: "OPNAME (output 'name'): <condition text>". */
tosac_code interp_error(interp_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define INTERP_ERROR_IF(c, cond)                                                               \
    do {                                                                                       \
        if (cond)                                                                              \
            return interp_error((c), "ERROR_IF(%s)", #cond);                                   \
    } while (0)

/* Reads element i of an integer/bool/shape tensor as int64 (sign- or zero-extended, through
 * util/elem.h); float storage gives its bits (F16/BF16/FP8) or its first byte. */
int64_t interp_get_int(const tosac_tensor *t, int64_t i);
/* Writes v (already in range) into element i of an integer/bool/shape tensor. */
void interp_set_int(tosac_tensor *t, int64_t i, int64_t v);
/* Reads element i of a float tensor (F16/BF16/F32/FP8) as float / writes with RNE rounding. */
float interp_get_float(const tosac_tensor *t, int64_t i);
void interp_set_float(tosac_tensor *t, int64_t i, float v);

/* Advance a multi-index over shape; returns 0 when wrapped around (iteration done). */
int interp_next_index(int64_t *idx, const int64_t *shape, int rank);

#endif
