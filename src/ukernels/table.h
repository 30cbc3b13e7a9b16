/* TABLE micro-kernels: int8 direct lookup (256 entries) and int16 interpolated lookup (513
 * entries, i32 result with 7 fraction bits), the spec's apply_lookup_s as the interpreter
 * computes it. The int16 kernel reads a table prepared once (base << 7 and the slope per
 * entry), whose slope REQUIRE was checked then. */
#ifndef TOSAC_UKERNELS_TABLE_H
#define TOSAC_UKERNELS_TABLE_H

#include <stdint.h>

void ukr_table_i8(const int8_t *table, const int8_t *in, int8_t *out, int64_t n);

/* prep[2*i] = table[i] * 128, prep[2*i+1] = table[i+1] - table[i] for i < 512. */
void ukr_table_i16_prepare(const int16_t *table, int32_t *prep);
void ukr_table_i16(const int32_t *prep, const int16_t *in, int32_t *out, int64_t n);

#endif
