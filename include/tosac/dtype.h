/* Element types shared by every stage: npy files, the graph IR, the TOSA model and the
 * interpreter. In memory each type has one natural C representation:
 *   BOOL u8(0/1) | U8 uint8 | I4 int8 (one value per byte, unpacked) | I8 int8 | U16 uint16
 *   I16 int16 | U32 uint32 | I32 int32 | I48 int64 (sign-extended) | I64 int64 | U64 uint64
 *   F16 uint16 bits | BF16 uint16 bits | F32 float | F64 double | FP8* uint8 bits
 *   SHAPE int64 (TOSA shape_t values) | 1.1 FP6 FP4 FP8UE8M0 MXINT8: uint8 (one per element)
 * Packed file encodings (TOSA INT4 nibbles, INT48 6 bytes) exist only at file boundaries. */
#ifndef TOSAC_DTYPE_H
#define TOSAC_DTYPE_H

#include <stddef.h>
#include <stdbool.h>

typedef enum tosac_dtype {
    TOSAC_DT_UNKNOWN = 0,
    TOSAC_DT_BOOL,
    TOSAC_DT_U8,
    TOSAC_DT_I4,
    TOSAC_DT_I8,
    TOSAC_DT_U16,
    TOSAC_DT_I16,
    TOSAC_DT_U32,
    TOSAC_DT_I32,
    TOSAC_DT_I48,
    TOSAC_DT_I64,
    TOSAC_DT_U64,
    TOSAC_DT_F16,
    TOSAC_DT_BF16,
    TOSAC_DT_F32,
    TOSAC_DT_F64,
    TOSAC_DT_FP8E4M3,
    TOSAC_DT_FP8E5M2,
    TOSAC_DT_SHAPE,
    /* TOSA 1.1 microscaling element types (storage: one uint8 per element) */
    TOSAC_DT_FP6E2M3,
    TOSAC_DT_FP6E3M2,
    TOSAC_DT_FP4E2M1,
    TOSAC_DT_FP8UE8M0,
    TOSAC_DT_MXINT8,
    TOSAC_DT_COUNT
} tosac_dtype;

/* Bytes one element takes in memory (see above); 0 for UNKNOWN. */
size_t tosac_dtype_size(tosac_dtype dt);
/* Short name: "bool", "u8", "i4", "i8", ..., "f32", "fp8e4m3", "shape". */
const char *tosac_dtype_name(tosac_dtype dt);
/* NumPy name: "bool", "uint8", "int8", ..., "float32"; NULL where NumPy has none. */
const char *tosac_dtype_numpy_name(tosac_dtype dt);
/* Parse a short name; TOSAC_DT_UNKNOWN if not one. */
tosac_dtype tosac_dtype_from_name(const char *name);

bool tosac_dtype_is_float(tosac_dtype dt);   /* F16 BF16 F32 F64 FP8* */
bool tosac_dtype_is_int(tosac_dtype dt);     /* signed or unsigned integers incl. I4/I48, not BOOL/SHAPE */
bool tosac_dtype_is_signed(tosac_dtype dt);  /* I4 I8 I16 I32 I48 I64, and floats */
/* Bit width of the value range (I4: 4, I48: 48, BOOL: 1, F16: 16, ...). */
int tosac_dtype_bits(tosac_dtype dt);

/* ONNX TensorProto.DataType <-> tosac_dtype; TOSAC_DT_UNKNOWN / 0 where there is none. */
tosac_dtype onnx_dtype_to_tosac(int onnx_type);
int onnx_dtype_from_tosac(tosac_dtype dt);
/* "FLOAT", "INT8", ...; NULL for a number ONNX does not define. */
const char *tosac_dtype_onnx_name(int onnx_type);

#endif
