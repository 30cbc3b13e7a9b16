/* Portable TABLE kernels (see table.h). */
#include "ukernels/table.h"

void ukr_table_i8(const int8_t *table, const int8_t *in, int8_t *out, int64_t n)
{
    const int8_t *t = table + 128;
    for (int64_t i = 0; i < n; i++)
        out[i] = t[in[i]];
}

void ukr_table_i16_prepare(const int16_t *table, int32_t *prep)
{
    for (int i = 0; i < 512; i++) {
        prep[2 * i] = table[i] * 128;
        prep[2 * i + 1] = table[i + 1] - table[i];
    }
}

void ukr_table_i16(const int32_t *prep, const int16_t *in, int32_t *out, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        int32_t v = in[i];
        int32_t index = (v + 32768) >> 7, fraction = v & 0x7f;
        out[i] = prep[2 * index] + prep[2 * index + 1] * fraction;
    }
}
