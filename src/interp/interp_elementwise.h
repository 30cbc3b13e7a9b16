/* The elementwise group's operators, implemented across interp_elementwise_*.c and listed
 * in the group table interp_ops_elementwise (interp_elementwise.c). */
#ifndef TOSAC_INTERP_ELEMENTWISE_H
#define TOSAC_INTERP_ELEMENTWISE_H

#include "interp/interp_internal.h"

/* binary (interp_elementwise_binary.c) */
tosac_code interp_op_add(interp_ctx *c);
tosac_code interp_op_sub(interp_ctx *c);
tosac_code interp_op_mul(interp_ctx *c);
tosac_code interp_op_intdiv(interp_ctx *c);
tosac_code interp_op_arithmetic_right_shift(interp_ctx *c);
tosac_code interp_op_logical_left_shift(interp_ctx *c);
tosac_code interp_op_logical_right_shift(interp_ctx *c);
tosac_code interp_op_bitwise_and(interp_ctx *c);
tosac_code interp_op_bitwise_or(interp_ctx *c);
tosac_code interp_op_bitwise_xor(interp_ctx *c);
tosac_code interp_op_logical_and(interp_ctx *c);
tosac_code interp_op_logical_or(interp_ctx *c);
tosac_code interp_op_logical_xor(interp_ctx *c);
tosac_code interp_op_maximum(interp_ctx *c);
tosac_code interp_op_minimum(interp_ctx *c);
tosac_code interp_op_pow(interp_ctx *c);
/* interp_elementwise_table.c */
tosac_code interp_op_table(interp_ctx *c);
/* unary (interp_elementwise_unary.c) */
tosac_code interp_op_abs(interp_ctx *c);
tosac_code interp_op_bitwise_not(interp_ctx *c);
tosac_code interp_op_ceil(interp_ctx *c);
tosac_code interp_op_clz(interp_ctx *c);
tosac_code interp_op_cos(interp_ctx *c);
tosac_code interp_op_exp(interp_ctx *c);
tosac_code interp_op_floor(interp_ctx *c);
tosac_code interp_op_log(interp_ctx *c);
tosac_code interp_op_logical_not(interp_ctx *c);
tosac_code interp_op_negate(interp_ctx *c);
tosac_code interp_op_reciprocal(interp_ctx *c);
tosac_code interp_op_rsqrt(interp_ctx *c);
tosac_code interp_op_sin(interp_ctx *c);
/* ternary (interp_elementwise_ternary.c) */
tosac_code interp_op_select(interp_ctx *c);

#endif
