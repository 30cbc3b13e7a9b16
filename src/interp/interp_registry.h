#ifndef TOSAC_INTERP_REGISTRY_H
#define TOSAC_INTERP_REGISTRY_H

#include <stddef.h>

#include "interp/interp_internal.h"

/* The implementation of op, or NULL when the interpreter does not implement it (or the image
 * does not link its group: interp_registry.c links every group). */
interp_op_fn interp_find_op(tosa_op op);

/* interp_find_op over groups[0..n_groups) (interp_lookup.c): table (TOSA_OP_COUNT entries,
 * zeroed) and *built (0) are the caller's static cache. */
interp_op_fn interp_find_op_in(const interp_op_entry *const *groups, size_t n_groups,
                               interp_op_fn *table, int *built, tosa_op op);

#endif
