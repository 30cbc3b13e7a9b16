/* File DType numbers <-> tosac_dtype, in one place (FLATBUFFER_LAYOUT.md 3.1). 1.1 only
 * appends to the 1.0 numbering, so one table serves both with a per-version limit. */
#include "tosa/tosa_internal.h"

static const tosac_dtype file_types[] = {
    TOSAC_DT_UNKNOWN, TOSAC_DT_BOOL,    TOSAC_DT_I4,      TOSAC_DT_I8,       TOSAC_DT_I16,
    TOSAC_DT_I32,     TOSAC_DT_I48,     TOSAC_DT_F32,     TOSAC_DT_F16,      TOSAC_DT_BF16,
    TOSAC_DT_SHAPE,   TOSAC_DT_FP8E4M3, TOSAC_DT_FP8E5M2, /* = 12, last of 1.0 */
    TOSAC_DT_FP6E2M3, TOSAC_DT_FP6E3M2, TOSAC_DT_FP4E2M1, TOSAC_DT_FP8UE8M0, TOSAC_DT_I64,
    TOSAC_DT_MXINT8, /* = 18, last of 1.1 */
};

static const char *const tosa_names[] = {
    "UNKNOWN", "BOOL", "INT4", "INT8", "INT16", "INT32", "INT48", "FP32", "FP16", "BF16",
    "SHAPE", "FP8E4M3", "FP8E5M2", "FP6E2M3", "FP6E3M2", "FP4E2M1", "FP8UE8M0", "INT64", "MXINT8",
};

static uint32_t last_for(int minor) { return minor >= 1 ? 18 : 12; }

int tosa_dtype_from_file(uint32_t v, int minor)
{
    return v <= last_for(minor) ? (int)file_types[v] : -1;
}

int64_t tosa_dtype_to_file(tosac_dtype dt, int minor)
{
    for (uint32_t i = 0; i <= last_for(minor); i++)
        if (file_types[i] == dt)
            return i;
    return -1;
}

const char *tosa_dtype_tosa_name(tosac_dtype dt)
{
    int64_t v = tosa_dtype_to_file(dt, 1);
    return v >= 0 ? tosa_names[v] : "UNKNOWN";
}
