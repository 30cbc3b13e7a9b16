/* The M55 twin tests (twins.c): shared helpers and one entry per micro-kernel family. */
#ifndef TOSAC_M55_TWINS_H
#define TOSAC_M55_TWINS_H

#include <stdint.h>

#include "kernels/isa.h"

/* Deterministic pseudo-random numbers (xorshift32), reseeded per case. */
void twins_seed(int case_index);
uint32_t twins_rnd(void);
int32_t twins_rnd_in(int32_t lo, int32_t hi);

/* "twins: FAMILY VARIANT case N: what" on QEMU's stderr. */
void twins_case_failed(const char *family, kern_isa isa, int idx, const char *what);

/* Multiplier and shift for values of magnitude up to big: *shift raised (s <= 31) so that
 * apply_scale_32's REQUIRE holds, *mult chosen so that results spread over the int8 range
 * (a saturated output would hide an error). */
void twins_fit(uint32_t big, int *shift, int32_t *mult);
/* The reference tail: apply_scale_32 (the interpreter's), + ozp, clamp to [lo, hi], into
 * *out. Returns 1 (and writes nothing) when the value breaks apply_scale_32's REQUIRE. */
int twins_rescale(int32_t v, int32_t mult, int shift, int double_round, int32_t ozp, int32_t lo,
                  int32_t hi, int8_t *out);

/* Each runs its cases in variant isa: the number that failed (printed), *n_cases. */
int twins_qgemm(kern_isa isa, int *n_cases);
int twins_dwconv(kern_isa isa, int *n_cases);
int twins_ewise(kern_isa isa, int *n_cases);

#endif
