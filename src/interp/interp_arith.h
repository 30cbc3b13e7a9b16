/* The TOSA specification's integer helpers (apply_scale_32/16, reciprocal_scale, saturation,
 * checked add/sub, count_leading_zeros, int48 range), shared by every operator group.
 *
 * The spec states preconditions as REQUIRE(...); a violated REQUIRE makes the graph
 * non-conformant, so these helpers never invoke undefined behaviour: they report the
 * violation (arith_status) and the caller turns it into an interp_error naming the op. */
#ifndef TOSAC_INTERP_ARITH_H
#define TOSAC_INTERP_ARITH_H

#include <stdbool.h>
#include <stdint.h>

#include "tosac/dtype.h"

typedef enum arith_status {
    ARITH_OK = 0,
    ARITH_BAD_MULTIPLIER, /* multiplier < 0 */
    ARITH_BAD_SHIFT,      /* shift outside 2..62 */
    ARITH_BAD_VALUE,      /* apply_scale_32: value outside [-2^(shift-1), 2^(shift-1)) */
    ARITH_OVERFLOW,       /* result outside the int32 (or requested) range */
} arith_status;

/* The width RESCALE works at for a tensor of dt (8, 16, 32 or 48; 0: not a RESCALE type). */
int arith_rescale_bits(tosac_dtype dt);

/* Short text for an arith_status ("shift outside 2..62", ...). */
const char *arith_status_str(arith_status s);

/* value * multiplier / 2^shift rounded half up (SINGLE_ROUND and INEXACT_ROUND, which the
 * spec allows to be exact) or with the spec's double rounding for shift > 31 (DOUBLE_ROUND;
 * rounding_mode uses the TOSA_ROUND_* numbering of tosac/tosa.h). */
arith_status arith_apply_scale_32(int32_t value, int32_t multiplier, int shift,
                                  uint32_t rounding_mode, int32_t *out);
/* The 16-bit multiplier variant used for int48 inputs; the result must fit int32. */
arith_status arith_apply_scale_16(int64_t value, int32_t multiplier, int shift, int32_t *out);

/* reciprocal_scale(value) for AVG_POOL2D: multiplier in [2^30, 2^31), shift = 30 + k with
 * (1 << k) / 2 < value <= (1 << k). value must be > 0 (ARITH_BAD_VALUE otherwise). */
arith_status arith_reciprocal_scale(uint32_t value, int32_t *multiplier, int *shift);

/* apply_add_s / apply_sub_s for a signed integer type of `bits` bits (8, 16, 32, 48, 64):
 * ARITH_OVERFLOW when the exact result does not fit. */
arith_status arith_add_s(int64_t a, int64_t b, int bits, int64_t *out);
arith_status arith_sub_s(int64_t a, int64_t b, int bits, int64_t *out);

/* Signed and unsigned value range of a `bits`-bit integer (bits 1..64; unsigned up to 63). */
int64_t arith_min_s(int bits);
int64_t arith_max_s(int bits);
int64_t arith_max_u(int bits);

/* Clamp to the signed / unsigned range of a `bits`-bit integer. */
int64_t arith_clamp_s(int64_t v, int bits);
int64_t arith_clamp_u(int64_t v, int bits);
/* Clamp to the value range of an integer dtype (signed types signed, U8/U16/U32 unsigned). */
int64_t arith_saturate(int64_t v, tosac_dtype dt);

/* Sign-extend / zero-extend the low `bits` bits of v. */
int64_t arith_sign_extend(int64_t v, int bits);
int64_t arith_zero_extend(int64_t v, int bits);

/* count_leading_zeros of a 32-bit / 64-bit value (32 / 64 for zero). */
int arith_clz32(uint32_t v);
int arith_clz64(uint64_t v);

/* True when v is a valid int48 value. */
bool arith_in_i48(int64_t v);

#endif
