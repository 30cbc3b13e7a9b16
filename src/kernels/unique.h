/* Unique: the distinct slices of x viewed as [outer, n, inner] (slice j = every x[o, j, i];
 * a flattened tensor is outer = inner = 1). */
#ifndef TOSAC_KERNELS_UNIQUE_H
#define TOSAC_KERNELS_UNIQUE_H

#include "kernels/kern.h"

/* Returns u, the number of distinct slices, ordered ascending (lexicographically over the
 * slice's elements) when sorted, else by first occurrence. first[k] (u entries) is the first
 * index of unique k, counts[k] its number of occurrences, inverse[j] (n entries) the unique
 * index of slice j. first and counts need room for n entries; scratch holds 4 * n int64. */
int64_t kern_unique(tosac_dtype dt, int64_t outer, int64_t n, int64_t inner, int sorted,
                    const void *x, int64_t *first, int64_t *inverse, int64_t *counts,
                    int64_t *scratch);

#endif
