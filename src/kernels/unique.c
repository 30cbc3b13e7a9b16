/* Unique by a stable merge sort of the slice indices, then one pass grouping equal slices. */
#include "kernels/unique.h"

typedef struct slices {
    tosac_dtype dt;
    int64_t outer, n, inner;
    const void *x;
    int is_float;
} slices;

/* <0, 0, >0 comparing slices a and b element by element. */
static int cmp(const slices *s, int64_t a, int64_t b)
{
    for (int64_t o = 0; o < s->outer; o++)
        for (int64_t i = 0; i < s->inner; i++) {
            int64_t ia = (o * s->n + a) * s->inner + i, ib = (o * s->n + b) * s->inner + i;
            if (s->is_float) {
                double va = kern_get_f64(s->dt, s->x, ia), vb = kern_get_f64(s->dt, s->x, ib);
                if (va != vb)
                    return va < vb ? -1 : 1;
            } else if (s->dt == TOSAC_DT_U64) {
                uint64_t va = ((const uint64_t *)s->x)[ia], vb = ((const uint64_t *)s->x)[ib];
                if (va != vb)
                    return va < vb ? -1 : 1;
            } else {
                int64_t va = kern_get_i64(s->dt, s->x, ia), vb = kern_get_i64(s->dt, s->x, ib);
                if (va != vb)
                    return va < vb ? -1 : 1;
            }
        }
    return 0;
}

/* Bottom-up stable merge sort of idx[0..n) using tmp[0..n). */
static void sort(const slices *s, int64_t *idx, int64_t *tmp, int64_t n)
{
    for (int64_t width = 1; width < n; width *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * width) {
            int64_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = cmp(s, idx[j], idx[i]) < 0 ? idx[j++] : idx[i++];
            while (i < mid)
                tmp[k++] = idx[i++];
            while (j < hi)
                tmp[k++] = idx[j++];
        }
        for (int64_t k = 0; k < n; k++)
            idx[k] = tmp[k];
    }
}

int64_t kern_unique(tosac_dtype dt, int64_t outer, int64_t n, int64_t inner, int sorted,
                    const void *x, int64_t *first, int64_t *inverse, int64_t *counts,
                    int64_t *scratch)
{
    slices s = {dt, outer, n, inner, x, tosac_dtype_is_float(dt)};
    int64_t *order = scratch, *tmp = scratch + n, *gid = scratch + 2 * n, *map = scratch + 3 * n;
    for (int64_t j = 0; j < n; j++)
        order[j] = j;
    sort(&s, order, tmp, n);
    /* groups in sorted order; the stable sort puts each group's first occurrence first */
    int64_t u = 0;
    for (int64_t k = 0; k < n; k++) {
        if (k == 0 || cmp(&s, order[k - 1], order[k]) != 0) {
            first[u] = order[k];
            counts[u] = 0;
            u++;
        }
        gid[order[k]] = u - 1;
        counts[u - 1]++;
    }
    if (sorted) {
        for (int64_t j = 0; j < n; j++)
            inverse[j] = gid[j];
        return u;
    }
    /* renumber groups by first occurrence */
    int64_t next = 0;
    for (int64_t j = 0; j < n; j++)
        if (first[gid[j]] == j)
            map[gid[j]] = next++;
    for (int64_t g = 0; g < u; g++)
        tmp[map[g]] = first[g];
    for (int64_t g = 0; g < u; g++)
        first[g] = tmp[g];
    for (int64_t g = 0; g < u; g++)
        tmp[map[g]] = counts[g];
    for (int64_t g = 0; g < u; g++)
        counts[g] = tmp[g];
    for (int64_t j = 0; j < n; j++)
        inverse[j] = map[gid[j]];
    return u;
}
