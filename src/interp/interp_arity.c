/* Operand counts per operator: the spec's input/output arguments (tosa 1.0.2 tosa.xml and
 * the 1.1 draft, as FLATBUFFER_LAYOUT.md section 7 lists them). The executor checks them
 * before calling an operator, so operator code can index c->in / c->out without checks. */
#include "interp/interp_state.h"

#define LIST 256 /* max_tensor_list_size of level "none" */

#define A(op, i, o) [TOSA_OP_##op] = {i, i, o, o}
#define R(op, i0, i1, o0, o1) [TOSA_OP_##op] = {i0, i1, o0, o1}

static const interp_arity arity[TOSA_OP_COUNT] = {
    A(ARGMAX, 1, 1), A(AVG_POOL2D, 3, 1), A(CONV2D, 5, 1), A(CONV3D, 5, 1),
    A(DEPTHWISE_CONV2D, 5, 1), A(FFT2D, 2, 2), A(MATMUL, 4, 1), A(MAX_POOL2D, 1, 1),
    A(RFFT2D, 1, 2), A(TRANSPOSE_CONV2D, 5, 1),
    A(CLAMP, 1, 1), A(ERF, 1, 1), A(SIGMOID, 1, 1), A(TANH, 1, 1),
    A(ADD, 2, 1), A(ARITHMETIC_RIGHT_SHIFT, 2, 1), A(BITWISE_AND, 2, 1), A(BITWISE_OR, 2, 1),
    A(BITWISE_XOR, 2, 1), A(INTDIV, 2, 1), A(LOGICAL_AND, 2, 1), A(LOGICAL_LEFT_SHIFT, 2, 1),
    A(LOGICAL_RIGHT_SHIFT, 2, 1), A(LOGICAL_OR, 2, 1), A(LOGICAL_XOR, 2, 1), A(MAXIMUM, 2, 1),
    A(MINIMUM, 2, 1), A(MUL, 3, 1), A(POW, 2, 1), A(SUB, 2, 1), A(TABLE, 2, 1),
    A(ABS, 1, 1), A(BITWISE_NOT, 1, 1), A(CEIL, 1, 1), A(CLZ, 1, 1), A(COS, 1, 1),
    A(EXP, 1, 1), A(FLOOR, 1, 1), A(LOG, 1, 1), A(LOGICAL_NOT, 1, 1), A(NEGATE, 3, 1),
    A(RECIPROCAL, 1, 1), A(RSQRT, 1, 1), A(SIN, 1, 1), A(SELECT, 3, 1),
    A(EQUAL, 2, 1), A(GREATER, 2, 1), A(GREATER_EQUAL, 2, 1),
    A(REDUCE_ALL, 1, 1), A(REDUCE_ANY, 1, 1), A(REDUCE_MAX, 1, 1), A(REDUCE_MIN, 1, 1),
    A(REDUCE_PRODUCT, 1, 1), A(REDUCE_SUM, 1, 1),
    R(CONCAT, 1, LIST, 1, 1), A(PAD, 3, 1), A(RESHAPE, 2, 1), A(REVERSE, 1, 1),
    A(SLICE, 3, 1), A(TILE, 2, 1), A(TRANSPOSE, 1, 1),
    A(GATHER, 2, 1), A(SCATTER, 3, 1), A(RESIZE, 4, 1), A(CAST, 1, 1), A(RESCALE, 5, 1),
    A(CONST, 0, 1), A(IDENTITY, 1, 1), R(CUSTOM, 0, -1, 0, -1),
    R(COND_IF, 1, 1 + LIST, 0, LIST), R(WHILE_LOOP, 0, LIST, 0, LIST),
    /* The variable operand is carried by a tensor marked `variable` (the spec's `name`
     * attribute has no attribute table field), so these allow one extra operand. */
    R(VARIABLE, 0, 0, 0, 1), R(VARIABLE_WRITE, 1, 2, 0, 1), R(VARIABLE_READ, 0, 1, 1, 1),
    A(CONST_SHAPE, 0, 1),
    /* TOSA 1.1 */
    A(MATMUL_T_BLOCK_SCALED, 4, 1), A(CAST_FROM_BLOCK_SCALED, 2, 1),
    A(CAST_TO_BLOCK_SCALED, 1, 2), A(DIM, 1, 1), R(CONCAT_SHAPE, 1, LIST, 1, 1),
    A(ADD_SHAPE, 2, 1), A(SUB_SHAPE, 2, 1), A(MUL_SHAPE, 2, 1), A(SLICE_SHAPE, 3, 1),
    A(EXP2_SHAPE, 1, 1), A(LOG2_CEIL_SHAPE, 1, 1), A(LOG2_FLOOR_SHAPE, 1, 1),
    A(MAX_SHAPE, 2, 1), A(MIN_SHAPE, 2, 1), A(MOD_SHAPE, 2, 1), A(DIV_CEIL_SHAPE, 2, 1),
    A(DIV_FLOOR_SHAPE, 2, 1), A(ASSERT_EQUAL_SHAPE, 2, 0), A(CONV2D_BLOCK_SCALED, 8, 1),
    A(MAX_POOL2D_ADAPTIVE, 4, 1), A(AVG_POOL2D_ADAPTIVE, 6, 1),
};

bool interp_op_arity(tosa_op op, interp_arity *out)
{
    if (op <= TOSA_OP_UNKNOWN || op >= TOSA_OP_COUNT)
        return false;
    *out = arity[op];
    /* every listed op has some operand (VARIABLE: its optional tensor) */
    return out->max_in != 0 || out->max_out != 0;
}
