/* The type-level half of the Ethos-U55 subset ("u55"): which operator/type rows of the spec
 * tables Arm Vela 5.1.0 compiles for Ethos-U55 from a .tosa file, after the table in
 * docs/ETHOS_U_LIMITS.md (shared) — Vela has no CPU fallback for TOSA, so a row it cannot
 * place is absent. Limits that depend on shapes, attributes or neighbouring operators are in
 * src/lower/validate_u55.c. */
#include <string.h>

#include "tosac/spec.h"

static bool row_has(const tosa_spec_op *op, const tosa_spec_row *row, tosac_dtype dt)
{
    for (int i = 0; i < op->n_types; i++)
        if (row->types[i] == dt)
            return true;
    return false;
}

static tosac_dtype row_type(const tosa_spec_op *op, const tosa_spec_row *row, const char *name)
{
    int k = tosa_spec_op_type_index(op, name);
    return k < 0 ? TOSAC_DT_UNKNOWN : row->types[k];
}

/* Operators absent from Vela's Ethos-U55 operator map (GetHWOp, s_ElementwiseMap) even after
 * its rewrites (SELECT becomes AND/AND_NOT/OR, which U55 lacks). */
static bool unsupported_op(tosa_op op)
{
    switch (op) {
    case TOSA_OP_LOGICAL_RIGHT_SHIFT: case TOSA_OP_BITWISE_AND: case TOSA_OP_BITWISE_OR:
    case TOSA_OP_BITWISE_XOR: case TOSA_OP_BITWISE_NOT: case TOSA_OP_LOGICAL_AND:
    case TOSA_OP_LOGICAL_OR: case TOSA_OP_LOGICAL_XOR: case TOSA_OP_LOGICAL_NOT:
    case TOSA_OP_EQUAL: case TOSA_OP_GREATER: case TOSA_OP_GREATER_EQUAL: case TOSA_OP_SELECT:
    case TOSA_OP_INTDIV: case TOSA_OP_REDUCE_ALL: case TOSA_OP_REDUCE_ANY:
    case TOSA_OP_REDUCE_PRODUCT: case TOSA_OP_GATHER: case TOSA_OP_SCATTER:
    case TOSA_OP_COND_IF: case TOSA_OP_WHILE_LOOP: case TOSA_OP_FFT2D: case TOSA_OP_RFFT2D:
    case TOSA_OP_CUSTOM: case TOSA_OP_VARIABLE: case TOSA_OP_VARIABLE_READ:
    case TOSA_OP_VARIABLE_WRITE:
        return true;
    default:
        return false;
    }
}

const char *tosa_spec_u55_refusal(const tosa_spec_op *op, const tosa_spec_row *row)
{
    if (!op || !row)
        return NULL;
    if (unsupported_op(op->op))
        return "is not supported on Ethos-U55";
    if (row_has(op, row, TOSAC_DT_BOOL))
        return "on bool tensors is not supported on Ethos-U55";
    if (row_has(op, row, TOSAC_DT_I64))
        return "on int64 tensors is not supported on Ethos-U55";
    tosac_dtype in = row_type(op, row, "in_t");
    if (in == TOSAC_DT_UNKNOWN)
        in = row_type(op, row, "in_out_t");
    switch (op->op) {
    case TOSA_OP_MATMUL:
        return in == TOSAC_DT_I8 ? NULL : "of int16 activations is not supported on Ethos-U55 "
                                          "(int8 x int8 only)";
    case TOSA_OP_ARGMAX:
        return in == TOSAC_DT_I8 ? NULL : "of int16 is not supported on Ethos-U55 (int8 only)";
    case TOSA_OP_REDUCE_MAX: case TOSA_OP_REDUCE_MIN:
        return in != TOSAC_DT_I32 ? NULL : "of int32 is not supported on Ethos-U55 (it reduces "
                                           "with pooling: i8/i16 only)";
    case TOSA_OP_REVERSE:
        return in != TOSAC_DT_I32 ? NULL : "of int32 is not supported on Ethos-U55 (i8/i16 only)";
    case TOSA_OP_ARITHMETIC_RIGHT_SHIFT: case TOSA_OP_LOGICAL_LEFT_SHIFT: case TOSA_OP_CLZ:
        return in == TOSAC_DT_I32 ? NULL : "of int8/int16 is not supported on Ethos-U55 "
                                           "(int32 only)";
    case TOSA_OP_CAST: {
        tosac_dtype out = row_type(op, row, "out_t");
        return in == TOSAC_DT_I32 && out != TOSAC_DT_I32
                   ? "down from int32 is not supported on Ethos-U55" : NULL;
    }
    default:
        return NULL;
    }
}
