/* Broadcasting binary elementwise kernels (ONNX Add, Sub, Mul, Div, Mod, Pow, Min, Max,
 * And, Or, Xor, BitShift, Bitwise*, Equal, Less, Greater, ...). */
#ifndef TOSAC_KERNELS_BINARY_H
#define TOSAC_KERNELS_BINARY_H

#include "kernels/kern.h"

typedef enum kern_binop {
    KERN_ADD, KERN_SUB, KERN_MUL, KERN_DIV,
    KERN_MOD,      /* integer: sign of the divisor (Python); float: like fmod */
    KERN_FMOD,     /* sign of the dividend (C fmod / truncating %) */
    KERN_POW, KERN_MIN, KERN_MAX,
    KERN_AND, KERN_OR, KERN_XOR,           /* logical, on bool */
    KERN_BITAND, KERN_BITOR, KERN_BITXOR,  /* integers */
    KERN_SHL, KERN_SHR,                    /* unsigned integers; shifts >= width give 0 */
    KERN_EQ, KERN_LT, KERN_LE, KERN_GT, KERN_GE, /* comparisons: output bool */
    KERN_PRELU,    /* x < 0 ? x * slope : x */
} kern_binop;

/* True when op writes bool whatever the operand type. */
int kern_binop_is_compare(kern_binop op);

/* out = a op b with broadcasting b->shape; a and b have dtype dt, out has dt (or bool for
 * comparisons). Integer arithmetic wraps. Returns -1 on an integer division or modulo by
 * zero, else 0. Supported dt: bool, u8..u64, i8..i64, f32, f64. */
int kern_binary(kern_binop op, tosac_dtype dt, const kern_bcast *b, const void *a, const void *bv,
                void *out);

/* Pow with a different exponent type (ONNX Pow allows it): computed in double, written in
 * base_dt. */
void kern_pow_mixed(tosac_dtype base_dt, tosac_dtype exp_dt, const kern_bcast *b, const void *a,
                    const void *e, void *out);

#endif
