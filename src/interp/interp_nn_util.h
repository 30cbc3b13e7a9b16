/* Checks and small helpers shared by the windowed operators (convolutions, pools, RESIZE,
 * MATMUL): operand shape/rank checks that keep every later index in bounds, zero-point
 * operands, the spec's output-size equations and integer result wrapping. */
#ifndef TOSAC_INTERP_NN_UTIL_H
#define TOSAC_INTERP_NN_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "interp/interp_internal.h"

/* Fails (ERROR_IF, naming `what`) unless the operand counts are exactly n_in / n_out. */
tosac_code nn_check_arity(interp_ctx *c, int n_in, int n_out);
/* Fails unless t has the given rank. */
tosac_code nn_check_rank(interp_ctx *c, const tosac_tensor *t, int rank, const char *what);
/* Fails unless an attribute vector has (at least) n entries. */
tosac_code nn_check_attr_len(interp_ctx *c, int have, int need, const char *what);

/* A zero-point operand (shape [1]): value as integer and as float. The spec allows a
 * non-zero value only for i8_t operands (ERROR_IF otherwise). */
typedef struct nn_zp {
    int64_t i;
    double f;
} nn_zp;
tosac_code nn_read_zp(interp_ctx *c, const tosac_tensor *zp, tosac_dtype operand_dt,
                      const char *what, nn_zp *out);

/* ERROR_IF(out != idiv_check(num, stride) + 1) with idiv_check's exact-division ERROR_IF.
 * `what` names the dimension in the message, e.g. "OH". */
tosac_code nn_check_out_dim(interp_ctx *c, int64_t num, int64_t stride, int64_t out,
                            const char *what);

/* Wraps v to the value range of an integer output type (I32: 32 bits, I48: 48 bits),
 * two's complement, as the accumulator of that width would hold it. */
static inline int64_t nn_wrap_int(tosac_dtype dt, int64_t v)
{
    switch (dt) {
    case TOSAC_DT_I8: return (int8_t)(uint8_t)(uint64_t)v;
    case TOSAC_DT_I16: return (int16_t)(uint16_t)(uint64_t)v;
    case TOSAC_DT_I32: return (int32_t)(uint32_t)(uint64_t)v;
    case TOSAC_DT_I48: return (int64_t)((uint64_t)v << 16) >> 16;
    default: return v;
    }
}

/* Largest / smallest value of a signed integer type (I4 ... I64). */
int64_t nn_int_max(tosac_dtype dt);
int64_t nn_int_min(tosac_dtype dt);

/* Signed integer element types the spec's integer modes use (i4/i8/i16/i32/i48/i64). */
bool nn_is_sint(tosac_dtype dt);

#endif
