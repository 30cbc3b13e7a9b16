/* Support shared by the activation, elementwise, comparison and reduction operator groups:
 * operand type checks, the spec's broadcast_shape check, a row iterator over a broadcast
 * output, element-function drivers and the REQUIRE report (integer helpers: interp_arith.h).
 *
 * REQUIRE in the spec pseudocode marks a result as unpredictable (e.g. int32 ADD overflow,
 * INTDIV by zero). The interpreter reports it as an input error naming the condition rather
 * than returning an arbitrary value: a bit-exact reference must not silently invent one. */
#ifndef TOSAC_INTERP_EWISE_H
#define TOSAC_INTERP_EWISE_H

#include <stdbool.h>
#include <stdint.h>

#include "interp/interp_arith.h"
#include "interp/interp_internal.h"
#include "kernels/kern.h"

/* Bit set of dtypes, for "is this operand type allowed" checks. */
#define EW_T(dt) (1u << (unsigned)(dt))
#define EW_FLOATS (EW_T(TOSAC_DT_F16) | EW_T(TOSAC_DT_BF16) | EW_T(TOSAC_DT_F32))
#define EW_INTS (EW_T(TOSAC_DT_I8) | EW_T(TOSAC_DT_I16) | EW_T(TOSAC_DT_I32) | EW_T(TOSAC_DT_I64))

/* REQUIRE(cond) of the spec pseudocode: unpredictable result, reported as an input error. */
#define EW_REQUIRE(c, cond)                                                                    \
    do {                                                                                       \
        if (!(cond))                                                                           \
            return interp_error((c), "REQUIRE(%s) violated: the result is unpredictable",      \
                                #cond);                                                        \
    } while (0)

/* Checks the operand counts the executor should already have checked (the harness and
 * other callers may not). */
tosac_code ew_check_arity(interp_ctx *c, int n_in, int n_out);

/* t->dtype must be in the set `allowed`; role ("input1", "output", ...) names it. */
tosac_code ew_check_type(interp_ctx *c, const tosac_tensor *t, const char *role,
                         uint32_t allowed);
/* b->dtype must equal a->dtype. */
tosac_code ew_check_same_type(interp_ctx *c, const tosac_tensor *a, const char *role_a,
                              const tosac_tensor *b, const char *role_b);

/* ERROR_IF(shape != broadcast_shape(shape1, shape2[, shape3])): every input has the output's
 * rank and each dim equals the output's or is 1, and out's shape is the broadcast shape. */
tosac_code ew_check_broadcast(interp_ctx *c, tosac_tensor *const *in, int n_in,
                              const tosac_tensor *out);
/* Same shape (unary operators). */
tosac_code ew_check_same_shape(interp_ctx *c, const tosac_tensor *in, const tosac_tensor *out);
/* A [1]-shaped (one element) operand such as a zero point or MUL shift. */
tosac_code ew_check_scalar(interp_ctx *c, const tosac_tensor *t, const char *role);

/* Rows of a broadcast elementwise operation over the kernels' one row walker (kernels/kern.h):
 * r walks `out` in order; run by run, r.off[k] is input k's first element and r.inner[k] its
 * step along the run (0 where it broadcasts, else 1), r.n the run's length, r.out_off its
 * first output element. Shapes must have passed ew_check_broadcast. Usage:
 *     kern_bcast_rows r; ew_rows_init(&r, out, in, n); while (kern_bcast_rows_next(&r)) ... */
void ew_rows_init(kern_bcast_rows *r, const tosac_tensor *out, tosac_tensor *const *in,
                  int n_in);

bool ew_is_float(tosac_dtype dt);

/* Per-operator constants the element functions need. */
typedef struct ew_args {
    tosac_dtype dt;             /* in_out_t (or in_t) */
    int bits;                   /* its width: 8, 16, 32, 64 */
    int64_t min, max;           /* its signed range */
    uint32_t nan_mode;
    bool round;                 /* ARITHMETIC_RIGHT_SHIFT */
    int shift;                  /* MUL */
} ew_args;
void ew_args_init(ew_args *k, tosac_dtype dt);

/* Checks of a broadcasting operator whose first two inputs have one type from `allowed`:
 * arity (n_in inputs, 1 output), input2 type == input1 type, output type == out_dt (or ==
 * input1's when out_dt is UNKNOWN), broadcast shapes of input1/input2; fills k for input1. */
tosac_code ew_prologue2(interp_ctx *c, int n_in, uint32_t allowed, tosac_dtype out_dt,
                        ew_args *k);
/* Same for a one-input operator with the output of the input's shape and type. */
tosac_code ew_prologue1(interp_ctx *c, int n_in, uint32_t allowed, ew_args *k);

/* nan_mode attribute: must be PROPAGATE or IGNORE when dt is a float type (unused else). */
tosac_code ew_check_nan_mode(interp_ctx *c, tosac_dtype dt);

/* Element functions. An integer one returns NULL, or the text of the violated REQUIRE. */
typedef const char *(*ew_int1_fn)(int64_t a, int64_t *r, const ew_args *k);
typedef const char *(*ew_int2_fn)(int64_t a, int64_t b, int64_t *r, const ew_args *k);
typedef double (*ew_f1_fn)(double a, const ew_args *k);
typedef double (*ew_f2_fn)(double a, double b, const ew_args *k);

/* Defines an integer element function that cannot fail: r = expr(a, b). */
#define EW_PURE_INT2(name, expr)                                                               \
    static const char *name(int64_t a, int64_t b, int64_t *r, const ew_args *k)                \
    {                                                                                          \
        (void)k;                                                                               \
        *r = (expr);                                                                           \
        return NULL;                                                                           \
    }

/* out[0] = fn(in[0], in[1]) with broadcasting (shapes already checked). Integer inputs are
 * read sign-extended; float inputs are widened and the result is rounded once to the output
 * type (an integer/bool output receives (int64_t)result). */
tosac_code ew_map2_int(interp_ctx *c, ew_int2_fn fn, const ew_args *k);
tosac_code ew_map2_float(interp_ctx *c, ew_f2_fn fn, const ew_args *k);
/* out[0] = fn(in[0]) element by element (same shape). */
tosac_code ew_map1_int(interp_ctx *c, ew_int1_fn fn, const ew_args *k);
tosac_code ew_map1_float(interp_ctx *c, ew_f1_fn fn, const ew_args *k);
/* A whole float-only unary operator (fp16/bf16/fp32 in, same out): prologue + map. */
tosac_code ew_float_unary_op(interp_ctx *c, ew_f1_fn fn);

#endif
