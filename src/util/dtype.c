#include "tosac/dtype.h"

#include <string.h>

static const struct {
    const char *name, *numpy;
    unsigned char size, bits, is_float, is_int, is_signed;
} info[TOSAC_DT_COUNT] = {
    [TOSAC_DT_UNKNOWN] = {"unknown", NULL, 0, 0, 0, 0, 0},
    [TOSAC_DT_BOOL] = {"bool", "bool", 1, 1, 0, 0, 0},
    [TOSAC_DT_U8] = {"u8", "uint8", 1, 8, 0, 1, 0},
    [TOSAC_DT_I4] = {"i4", NULL, 1, 4, 0, 1, 1},
    [TOSAC_DT_I8] = {"i8", "int8", 1, 8, 0, 1, 1},
    [TOSAC_DT_U16] = {"u16", "uint16", 2, 16, 0, 1, 0},
    [TOSAC_DT_I16] = {"i16", "int16", 2, 16, 0, 1, 1},
    [TOSAC_DT_U32] = {"u32", "uint32", 4, 32, 0, 1, 0},
    [TOSAC_DT_I32] = {"i32", "int32", 4, 32, 0, 1, 1},
    [TOSAC_DT_I48] = {"i48", "int64", 8, 48, 0, 1, 1},
    [TOSAC_DT_I64] = {"i64", "int64", 8, 64, 0, 1, 1},
    [TOSAC_DT_U64] = {"u64", "uint64", 8, 64, 0, 1, 0},
    [TOSAC_DT_F16] = {"f16", "float16", 2, 16, 1, 0, 1},
    [TOSAC_DT_BF16] = {"bf16", NULL, 2, 16, 1, 0, 1},
    [TOSAC_DT_F32] = {"f32", "float32", 4, 32, 1, 0, 1},
    [TOSAC_DT_F64] = {"f64", "float64", 8, 64, 1, 0, 1},
    [TOSAC_DT_FP8E4M3] = {"fp8e4m3", NULL, 1, 8, 1, 0, 1},
    [TOSAC_DT_FP8E5M2] = {"fp8e5m2", NULL, 1, 8, 1, 0, 1},
    [TOSAC_DT_SHAPE] = {"shape", "int64", 8, 64, 0, 0, 1},
    [TOSAC_DT_FP6E2M3] = {"fp6e2m3", NULL, 1, 6, 1, 0, 1},
    [TOSAC_DT_FP6E3M2] = {"fp6e3m2", NULL, 1, 6, 1, 0, 1},
    [TOSAC_DT_FP4E2M1] = {"fp4e2m1", NULL, 1, 4, 1, 0, 1},
    [TOSAC_DT_FP8UE8M0] = {"fp8ue8m0", NULL, 1, 8, 1, 0, 0},
    [TOSAC_DT_MXINT8] = {"mxint8", NULL, 1, 8, 0, 1, 1},
};

static int valid(tosac_dtype dt) { return (unsigned)dt < TOSAC_DT_COUNT; }

size_t tosac_dtype_size(tosac_dtype dt) { return valid(dt) ? info[dt].size : 0; }
const char *tosac_dtype_name(tosac_dtype dt) { return valid(dt) ? info[dt].name : "invalid"; }
const char *tosac_dtype_numpy_name(tosac_dtype dt) { return valid(dt) ? info[dt].numpy : NULL; }
bool tosac_dtype_is_float(tosac_dtype dt) { return valid(dt) && info[dt].is_float; }
bool tosac_dtype_is_int(tosac_dtype dt) { return valid(dt) && info[dt].is_int; }
bool tosac_dtype_is_signed(tosac_dtype dt) { return valid(dt) && info[dt].is_signed; }
int tosac_dtype_bits(tosac_dtype dt) { return valid(dt) ? info[dt].bits : 0; }

tosac_dtype tosac_dtype_from_name(const char *name)
{
    for (int i = 1; i < TOSAC_DT_COUNT; i++)
        if (strcmp(info[i].name, name) == 0)
            return (tosac_dtype)i;
    return TOSAC_DT_UNKNOWN;
}

/* ONNX TensorProto.DataType numbering (here, not in src/onnx, because the CPU operators
 * of the runtime read Cast/EyeLike "to"/"dtype" attributes in it). */
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

const char *tosac_dtype_onnx_name(int t)
{
    return t >= 0 && t < N_TYPES ? types[t].name : NULL;
}
