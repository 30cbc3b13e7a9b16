/* ONNX TensorProto.DataType numbering and its mapping to tosac_dtype. */
#include "tosac/onnx.h"

#include <stdio.h>

static const struct {
    const char *name;
    tosac_dtype dt;
} types[] = {
    [0] = {"UNDEFINED", TOSAC_DT_UNKNOWN},   [1] = {"FLOAT", TOSAC_DT_F32},
    [2] = {"UINT8", TOSAC_DT_U8},            [3] = {"INT8", TOSAC_DT_I8},
    [4] = {"UINT16", TOSAC_DT_U16},          [5] = {"INT16", TOSAC_DT_I16},
    [6] = {"INT32", TOSAC_DT_I32},           [7] = {"INT64", TOSAC_DT_I64},
    [8] = {"STRING", TOSAC_DT_UNKNOWN},      [9] = {"BOOL", TOSAC_DT_BOOL},
    [10] = {"FLOAT16", TOSAC_DT_F16},        [11] = {"DOUBLE", TOSAC_DT_F64},
    [12] = {"UINT32", TOSAC_DT_U32},         [13] = {"UINT64", TOSAC_DT_U64},
    [14] = {"COMPLEX64", TOSAC_DT_UNKNOWN},  [15] = {"COMPLEX128", TOSAC_DT_UNKNOWN},
    [16] = {"BFLOAT16", TOSAC_DT_BF16},      [17] = {"FLOAT8E4M3FN", TOSAC_DT_FP8E4M3},
    [18] = {"FLOAT8E4M3FNUZ", TOSAC_DT_UNKNOWN}, [19] = {"FLOAT8E5M2", TOSAC_DT_FP8E5M2},
    [20] = {"FLOAT8E5M2FNUZ", TOSAC_DT_UNKNOWN}, [21] = {"UINT4", TOSAC_DT_UNKNOWN},
    [22] = {"INT4", TOSAC_DT_I4},            [23] = {"FLOAT4E2M1", TOSAC_DT_FP4E2M1},
};
#define N_TYPES ((int)(sizeof types / sizeof types[0]))

tosac_dtype onnx_dtype_to_tosac(int t)
{
    return t >= 0 && t < N_TYPES ? types[t].dt : TOSAC_DT_UNKNOWN;
}

int onnx_dtype_from_tosac(tosac_dtype dt)
{
    if (dt == TOSAC_DT_UNKNOWN)
        return 0;
    for (int i = 1; i < N_TYPES; i++)
        if (types[i].dt == dt)
            return i;
    return 0;
}

const char *onnx_dtype_name(int t)
{
    static _Thread_local char buf[24];
    if (t >= 0 && t < N_TYPES)
        return types[t].name;
    snprintf(buf, sizeof buf, "type %d", t);
    return buf;
}
