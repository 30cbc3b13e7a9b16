/* Conversions between float and the 16-bit float storage formats (round to nearest even).
 * fp8 (E4M3, E5M2) conversions live here too. */
#ifndef TOSAC_UTIL_FP_H
#define TOSAC_UTIL_FP_H

#include <stdint.h>

uint16_t tosac_f32_to_f16(float f);
float tosac_f16_to_f32(uint16_t h);
uint16_t tosac_f32_to_bf16(float f);
float tosac_bf16_to_f32(uint16_t b);

#endif
