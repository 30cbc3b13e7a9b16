/* Names: extension tokens of spec strings and their XML names, XML type names of dtypes,
 * feature sets as text. */
#include <stdio.h>
#include <string.h>

#include "spec/spec_tables.h"

/* Tokens are ours (lower case, short); the XML names are the specification's. */
static const struct {
    const char *token, *xml;
} ext_names[TOSA_EXT_COUNT] = {
    [TOSA_EXT_INT16] = {"int16", "EXT-INT16"},
    [TOSA_EXT_INT4] = {"int4", "EXT-INT4"},
    [TOSA_EXT_INT64] = {"int64", "EXT-INT64"},
    [TOSA_EXT_BF16] = {"bf16", "EXT-BF16"},
    [TOSA_EXT_FP8E4M3] = {"fp8e4m3", "EXT-FP8E4M3"},
    [TOSA_EXT_FP8E5M2] = {"fp8e5m2", "EXT-FP8E5M2"},
    [TOSA_EXT_FFT] = {"fft", "EXT-FFT"},
    [TOSA_EXT_VARIABLE] = {"var", "EXT-VARIABLE"},
    [TOSA_EXT_CONTROLFLOW] = {"cf", "EXT-CONTROLFLOW"},
    [TOSA_EXT_DYNAMIC] = {"dynamic", "EXT-DYNAMIC"},
    [TOSA_EXT_DOUBLEROUND] = {"doubleround", "EXT-DOUBLEROUND"},
    [TOSA_EXT_INEXACTROUND] = {"inexactround", "EXT-INEXACTROUND"},
    [TOSA_EXT_SHAPE] = {"shape", "EXT-SHAPE"},
    [TOSA_EXT_MX_COMMON] = {"mxcommon", "EXT-MX-COMMON"},
    [TOSA_EXT_MX_FP4E2M1] = {"mxfp4e2m1", "EXT-MX-FP4E2M1"},
    [TOSA_EXT_MX_FP6E2M3] = {"mxfp6e2m3", "EXT-MX-FP6E2M3"},
    [TOSA_EXT_MX_FP6E3M2] = {"mxfp6e3m2", "EXT-MX-FP6E3M2"},
    [TOSA_EXT_MX_FP8E4M3] = {"mxfp8e4m3", "EXT-MX-FP8E4M3"},
    [TOSA_EXT_MX_FP8E5M2] = {"mxfp8e5m2", "EXT-MX-FP8E5M2"},
    [TOSA_EXT_MX_INT8] = {"mxint8", "EXT-MX-INT8"},
    [TOSA_EXT_MXFP_CONV] = {"mxfpconv", "EXT-MXFP-CONV"},
};

const char *tosa_ext_token(tosa_ext ext)
{
    return (unsigned)ext < TOSA_EXT_COUNT ? ext_names[ext].token : NULL;
}

const char *tosa_ext_xml_name(tosa_ext ext)
{
    return (unsigned)ext < TOSA_EXT_COUNT ? ext_names[ext].xml : NULL;
}

int tosa_ext_from_token(const char *token)
{
    for (int i = 0; i < TOSA_EXT_COUNT; i++)
        if (strcmp(ext_names[i].token, token) == 0)
            return i;
    return -1;
}

const char *tosa_spec_dtype_xml_name(tosac_dtype dt)
{
    switch (dt) {
    case TOSAC_DT_BOOL: return "bool_t";
    case TOSAC_DT_I4: return "i4_t";
    case TOSAC_DT_I8: return "i8_t";
    case TOSAC_DT_I16: return "i16_t";
    case TOSAC_DT_I32: return "i32_t";
    case TOSAC_DT_I48: return "i48_t";
    case TOSAC_DT_I64: return "i64_t";
    case TOSAC_DT_F16: return "fp16_t";
    case TOSAC_DT_BF16: return "bf16_t";
    case TOSAC_DT_F32: return "fp32_t";
    case TOSAC_DT_FP8E4M3: return "fp8e4m3_t";
    case TOSAC_DT_FP8E5M2: return "fp8e5m2_t";
    case TOSAC_DT_SHAPE: return "shape_t";
    case TOSAC_DT_FP6E2M3: return "fp6e2m3_t";
    case TOSAC_DT_FP6E3M2: return "fp6e3m2_t";
    case TOSAC_DT_FP4E2M1: return "fp4e2m1_t";
    case TOSAC_DT_FP8UE8M0: return "fp8ue8m0_t";
    case TOSAC_DT_MXINT8: return "mxint8_t";
    case TOSAC_DT_UNKNOWN: return "-";
    default: return tosac_dtype_name(dt);
    }
}

int tosa_spec_features_to_string(uint32_t features, char *buf, size_t size)
{
    size_t n = 0;
    int total = 0;
    if (size)
        buf[0] = '\0';
    const char *names[2 + TOSA_EXT_COUNT];
    int k = 0;
    if (features & TOSA_FEAT_INT)
        names[k++] = "PRO-INT";
    if (features & TOSA_FEAT_FP)
        names[k++] = "PRO-FP";
    for (int e = 0; e < TOSA_EXT_COUNT; e++)
        if (features & TOSA_FEAT_EXT(e))
            names[k++] = ext_names[e].xml;
    for (int i = 0; i < k; i++) {
        int w = snprintf(n < size ? buf + n : NULL, n < size ? size - n : 0, "%s%s",
                         i ? " & " : "", names[i]);
        total += w;
        n += (size_t)w;
    }
    return total;
}
