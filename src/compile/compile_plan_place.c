/* Placing buffers with known lifetimes in one arena: greedy first fit in a chosen order (the
 * idea of tflite-micro's greedy memory planner; our own code), and the liveness lower bound. */
#include <stdlib.h>
#include <string.h>

#include "compile/compile_plan.h"

/* Aligned sizes of every item and their sum, checked: everything placed ends below 2^63. */
static tosac_code aligned_sizes(const plan_item *items, int n, uint64_t align, uint64_t *sz,
                                tosac_error *err)
{
    if (align == 0 || (align & (align - 1)) || align > ((uint64_t)1 << 32))
        return tosac_fail(err, TOSAC_ERR_INPUT, "plan: alignment %llu is not a power of two",
                          (unsigned long long)align);
    uint64_t total = 0, limit = (uint64_t)INT64_MAX;
    for (int i = 0; i < n; i++) {
        const plan_item *it = &items[i];
        if (it->first_step < 0 || it->last_step < it->first_step)
            return tosac_fail(err, TOSAC_ERR_INPUT, "plan: item %d has lifetime [%d, %d]", i,
                              it->first_step, it->last_step);
        if (it->bytes > limit - align)
            return tosac_fail(err, TOSAC_ERR_INPUT, "plan: item %d is too large (%llu bytes)",
                              i, (unsigned long long)it->bytes);
        sz[i] = (it->bytes + align - 1) & ~(align - 1);
        if (sz[i] > limit - total)
            return tosac_fail(err, TOSAC_ERR_INPUT, "plan: the buffers add up beyond 2^63 bytes");
        total += sz[i];
    }
    return TOSAC_OK;
}

typedef struct edge {
    int step;
    int kind;     /* 0: the item starts at step; 1: it ends after step */
    uint64_t bytes;
} edge;

static int cmp_edge(const void *a, const void *b)
{
    const edge *x = a, *y = b;
    if (x->step != y->step)
        return x->step < y->step ? -1 : 1;
    return x->kind - y->kind; /* at one step every start counts before the ends */
}

static tosac_code live_peak(const plan_item *items, int n, const uint64_t *sz, uint64_t *peak,
                            tosac_error *err)
{
    *peak = 0;
    edge *e = malloc(((size_t)n * 2 + 1) * sizeof *e);
    if (!e)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    for (int i = 0; i < n; i++) {
        e[2 * i] = (edge){items[i].first_step, 0, sz[i]};
        e[2 * i + 1] = (edge){items[i].last_step, 1, sz[i]};
    }
    qsort(e, (size_t)n * 2, sizeof *e, cmp_edge);
    uint64_t live = 0;
    for (int i = 0; i < 2 * n; i++) {
        if (e[i].kind == 0) {
            live += e[i].bytes; /* bounded by the checked total */
            if (live > *peak)
                *peak = live;
        } else {
            live -= e[i].bytes;
        }
    }
    free(e);
    return TOSAC_OK;
}

tosac_code plan_live_peak(const plan_item *items, int n, uint64_t align, uint64_t *peak,
                          tosac_error *err)
{
    uint64_t *sz = malloc(((size_t)n + 1) * sizeof *sz);
    if (!sz)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    tosac_code rc = aligned_sizes(items, n, align ? align : TOSAC_PLAN_ALIGN, sz, err);
    if (!rc)
        rc = live_peak(items, n, sz, peak, err);
    free(sz);
    return rc;
}

/* Sort key of one item in an order: k[0], k[1], k[2] ascending, then the index. */
typedef struct sort_key {
    uint64_t k[3];
    int idx;
} sort_key;

static int cmp_key(const void *pa, const void *pb)
{
    const sort_key *a = pa, *b = pb;
    for (int i = 0; i < 3; i++)
        if (a->k[i] != b->k[i])
            return a->k[i] < b->k[i] ? -1 : 1;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

static sort_key key_of(const plan_item *it, uint64_t sz, plan_order order, int idx)
{
    uint64_t first = (uint64_t)it->first_step;
    uint64_t len = (uint64_t)it->last_step - first + 1;
    uint64_t area = len && sz > UINT64_MAX / len ? UINT64_MAX : sz * len;
    sort_key k = {{~sz, first, 0}, idx}; /* ~x: decreasing */
    if (order == PLAN_BY_FIRST_USE)
        k = (sort_key){{first, ~sz, 0}, idx};
    else if (order == PLAN_BY_LIFETIME)
        k = (sort_key){{~len, ~sz, first}, idx};
    else if (order == PLAN_BY_AREA)
        k = (sort_key){{~area, ~sz, first}, idx};
    return k;
}

static int overlap_in_time(const plan_item *x, const plan_item *y)
{
    return x->first_step <= y->last_step && y->first_step <= x->last_step;
}

/* First fit in the given order; off[] gets the offsets, returns the arena size. keys[] and
 * placed[] are scratch of n entries. */
static uint64_t place(const plan_item *items, int n, const uint64_t *sz, plan_order order,
                      int64_t *off, sort_key *keys, int *placed)
{
    for (int i = 0; i < n; i++)
        keys[i] = key_of(&items[i], sz[i], order, i);
    qsort(keys, (size_t)n, sizeof *keys, cmp_key);
    int n_placed = 0;
    uint64_t arena = 0;
    for (int k = 0; k < n; k++) {
        int i = keys[k].idx;
        off[i] = 0;
        if (sz[i] == 0)
            continue;
        /* placed[] is sorted by offset: walk the items alive at the same time, keep the first
         * gap that holds this one */
        uint64_t cand = 0;
        for (int j = 0; j < n_placed; j++) {
            int p = placed[j];
            if (!overlap_in_time(&items[i], &items[p]))
                continue;
            uint64_t po = (uint64_t)off[p];
            if (po >= cand + sz[i])
                break;
            if (po + sz[p] > cand)
                cand = po + sz[p];
        }
        off[i] = (int64_t)cand; /* below the checked total */
        if (cand + sz[i] > arena)
            arena = cand + sz[i];
        int lo = 0, hi = n_placed;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if ((uint64_t)off[placed[mid]] <= cand)
                lo = mid + 1;
            else
                hi = mid;
        }
        memmove(&placed[lo + 1], &placed[lo], (size_t)(n_placed - lo) * sizeof *placed);
        placed[lo] = i;
        n_placed++;
    }
    return arena;
}

static tosac_code place_orders(plan_item *items, int n, uint64_t align, int first, int last,
                               uint64_t *arena_bytes, uint64_t *lower_bound, tosac_error *err)
{
    if (align == 0)
        align = TOSAC_PLAN_ALIGN;
    if (n < 0)
        return tosac_fail(err, TOSAC_ERR_INPUT, "plan: negative item count");
    size_t cnt = (size_t)n + 1;
    uint64_t *sz = malloc(cnt * sizeof *sz);
    int64_t *off = malloc(cnt * sizeof *off), *best = malloc(cnt * sizeof *best);
    sort_key *keys = malloc(cnt * sizeof *keys);
    int *placed = malloc(cnt * sizeof *placed);
    tosac_code rc = !sz || !off || !best || !keys || !placed
                        ? tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory")
                        : aligned_sizes(items, n, align, sz, err);
    uint64_t best_arena = 0, peak = 0;
    for (int o = first; !rc && o <= last; o++) {
        uint64_t a = place(items, n, sz, (plan_order)o, off, keys, placed);
        if (o == first || a < best_arena) {
            best_arena = a;
            memcpy(best, off, (size_t)n * sizeof *off);
        }
    }
    if (!rc)
        rc = live_peak(items, n, sz, &peak, err);
    if (!rc) {
        for (int i = 0; i < n; i++)
            items[i].offset = best[i];
        if (arena_bytes)
            *arena_bytes = best_arena;
        if (lower_bound)
            *lower_bound = peak;
    }
    free(sz);
    free(off);
    free(best);
    free(keys);
    free(placed);
    return rc;
}

tosac_code plan_place_order(plan_item *items, int n, uint64_t align, plan_order order,
                            uint64_t *arena_bytes, uint64_t *lower_bound, tosac_error *err)
{
    if ((int)order < 0 || order >= PLAN_N_ORDERS)
        return tosac_fail(err, TOSAC_ERR_INPUT, "plan: unknown order %d", (int)order);
    return place_orders(items, n, align, order, order, arena_bytes, lower_bound, err);
}

tosac_code plan_place(plan_item *items, int n, uint64_t align, uint64_t *arena_bytes,
                      uint64_t *lower_bound, tosac_error *err)
{
    return place_orders(items, n, align, 0, PLAN_N_ORDERS - 1, arena_bytes, lower_bound, err);
}

int plan_check(const plan_item *items, int n, uint64_t align, uint64_t arena_bytes)
{
    if (align == 0)
        align = TOSAC_PLAN_ALIGN;
    for (int i = 0; i < n; i++) {
        const plan_item *x = &items[i];
        uint64_t ex = x->bytes;
        if (x->offset < 0 || ((uint64_t)x->offset & (align - 1)) ||
            (uint64_t)x->offset > arena_bytes || ex > arena_bytes - (uint64_t)x->offset)
            return i;
        if (ex == 0)
            continue;
        for (int j = 0; j < i; j++) {
            const plan_item *y = &items[j];
            if (y->bytes == 0 || !overlap_in_time(x, y))
                continue;
            if ((uint64_t)x->offset < (uint64_t)y->offset + y->bytes &&
                (uint64_t)y->offset < (uint64_t)x->offset + ex)
                return i;
        }
    }
    return -1;
}
