/* Small helpers shared by the reduce, compare, min/max, unary, gather, pad, resize, cast and
 * tile rule families: reading constant integer operands, axis normalisation, filled
 * constants, and one-call emission of the elementwise operators those rules chain.
 *
 * Emitters return the output tensor index (a new intermediate, or `out` when out >= 0), or
 * -1 with c->err set; an input index of -1 propagates as -1, so chains need one check. */
#ifndef TOSAC_LOWER_EXTRA_H
#define TOSAC_LOWER_EXTRA_H

#include "lower/lower.h"

/* "<op>: <reason>" as TOSAC_ERR_UNSUPPORTED: the one way every rule family declines a case. */
tosac_code lx_unsupported(lower_ctx *c, const ir_node *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The error code to return after an emitter gave -1 (INTERNAL if none was recorded). */
tosac_code lx_code(const lower_ctx *c);

/* Values of a constant integer input slot (any integer dtype). false when the slot is
 * omitted, not constant, not integer, or holds more than max values. */
bool lx_const_ints(const lower_ctx *c, const ir_node *n, int slot, int64_t *v, int max,
                   int *count);
/* axis in [-rank, rank) -> [0, rank); -1 when out of range. */
int lx_axis(int64_t axis, int rank);

/* A constant of rank `rank` with every dim 1 (TOSA elementwise operands need equal ranks)
 * holding v in dtype dt (floats rounded to the format, integers must fit). */
int lx_fill(lower_ctx *c, const char *prefix, tosac_dtype dt, int rank, double v);

/* Single-input elementwise operator (ABS, FLOOR, EXP, LOGICAL_NOT, ...). out_dt UNKNOWN
 * means the input's dtype. */
int lx_unary(lower_ctx *c, tosa_op op, int a, tosac_dtype out_dt, int out);
/* Two-input elementwise operator on equal-rank operands, output shape the broadcast of both;
 * MUL gets its shift operand (0), MAXIMUM/MINIMUM nan_mode PROPAGATE. out_dt UNKNOWN means
 * a's dtype (comparisons pass BOOL). */
int lx_binary(lower_ctx *c, tosa_op op, int a, int b, tosac_dtype out_dt, int out);
/* NEGATE with zero points 0. */
int lx_negate(lower_ctx *c, int a, int out);
int lx_cast(lower_ctx *c, int a, tosac_dtype dt, int out);
/* SELECT(cond, a, b) on equal-rank operands. */
int lx_select(lower_ctx *c, int cond, int a, int b, int out);
/* IDENTITY of a into out. */
int lx_identity(lower_ctx *c, int a, int out);

/* The per-tensor quantization of an IR tensor, checked: int8/int16 (int16 only as
 * allowed) carrying one scale. Returns TOSAC_OK or an UNSUPPORTED naming the tensor. */
tosac_code lx_check_quant(lower_ctx *c, const ir_node *n, const ir_tensor *t);
/* True when both tensors carry the same per-tensor scale and zero point. */
bool lx_same_quant(const ir_tensor *a, const ir_tensor *b);
/* RESCALE of t by scale into dtype dt (zero points in_zp / out_zp). */
int lx_rescale(lower_ctx *c, int t, double scale, int64_t in_zp, int64_t out_zp,
               tosac_dtype dt, int out);

#endif
