/* Conversions between float and the 16-bit float storage formats (round to nearest even).
 * fp8 (E4M3, E5M2) conversions live here too. */
#ifndef TOSAC_UTIL_FP_H
#define TOSAC_UTIL_FP_H

#include <stdint.h>

uint16_t tosac_f32_to_f16(float f);
float tosac_f16_to_f32(uint16_t h);
uint16_t tosac_f32_to_bf16(float f);
float tosac_bf16_to_f32(uint16_t b);

/* OCP OFP8. E4M3: bias 7, no infinities, NaN = S.1111.111, max 448.
 * E5M2: bias 15, IEEE-like inf/NaN, max 57344. Round to nearest even; values beyond the
 * largest finite one give NaN (E4M3) / inf (E5M2), or the largest finite value when
 * saturate is set. */
uint8_t tosac_f32_to_fp8e4m3(float f, int saturate);
float tosac_fp8e4m3_to_f32(uint8_t b);
uint8_t tosac_f32_to_fp8e5m2(float f, int saturate);
float tosac_fp8e5m2_to_f32(uint8_t b);

#endif
