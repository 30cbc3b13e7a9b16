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

/* Pairs of items alive at a common step, as adjacency lists (CSR), when there are at most
 * this many: placing an item then looks only at its neighbours. Beyond it (thousands of
 * values all alive together) every placed item is scanned instead: O(n^2), no memory. */
#define PLAN_MAX_PAIRS (1 << 21)
/* Work budget of the improvement rounds, in neighbour visits. */
#define PLAN_ROUND_WORK 1500000

typedef struct span {
    uint64_t off, end;
} span;

typedef struct placer {
    const plan_item *items;
    const uint64_t *sz;
    int n;
    int *adj_start, *adj;   /* CSR over time-intersecting pairs, or NULL */
    int64_t *off;
    unsigned char *is_placed;
    int *placed;            /* scan path: placed items sorted by offset */
    span *tmp;              /* neighbour path: placed neighbours */
} placer;

/* Sorts spans by offset (typed: this runs once per item per placement). Insertion sort for
 * the few neighbours most items have, heapsort beyond. */
static void sift(span *v, int root, int n)
{
    for (;;) {
        int c = 2 * root + 1;
        if (c >= n)
            return;
        if (c + 1 < n && v[c + 1].off > v[c].off)
            c++;
        if (v[root].off >= v[c].off)
            return;
        span t = v[root];
        v[root] = v[c];
        v[c] = t;
        root = c;
    }
}

static void sort_spans(span *v, int n)
{
    if (n <= 24) {
        for (int i = 1; i < n; i++) {
            span t = v[i];
            int j = i;
            for (; j > 0 && v[j - 1].off > t.off; j--)
                v[j] = v[j - 1];
            v[j] = t;
        }
        return;
    }
    for (int i = n / 2 - 1; i >= 0; i--)
        sift(v, i, n);
    for (int end = n - 1; end > 0; end--) {
        span t = v[0];
        v[0] = v[end];
        v[end] = t;
        sift(v, 0, end);
    }
}

static int cmp_first(const void *a, const void *b)
{
    const int *x = a, *y = b; /* pairs {first_step, index} */
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* Builds the adjacency lists; leaves adj NULL (scan path) when there are too many pairs or
 * no memory for them. Items sorted by first step: those starting within another's lifetime,
 * after it, are exactly its later neighbours (a binary search counts them). */
static void build_adjacency(placer *P, int64_t *pairs_out)
{
    int n = P->n;
    *pairs_out = 0;
    int *byf = malloc(((size_t)n * 2 + 2) * sizeof *byf);
    int *cnt = calloc((size_t)n + 1, sizeof *cnt);
    if (!byf || !cnt) {
        free(byf);
        free(cnt);
        return;
    }
    for (int i = 0; i < n; i++) {
        byf[2 * i] = P->items[i].first_step;
        byf[2 * i + 1] = i;
    }
    qsort(byf, (size_t)n, 2 * sizeof *byf, cmp_first);
    int64_t pairs = 0;
    for (int a = 0; a < n; a++) {
        int last = P->items[byf[2 * a + 1]].last_step, lo = a + 1, hi = n;
        while (lo < hi) { /* first position after a whose first step is beyond last */
            int mid = lo + (hi - lo) / 2;
            if (byf[2 * mid] <= last)
                lo = mid + 1;
            else
                hi = mid;
        }
        pairs += lo - a - 1;
    }
    *pairs_out = pairs;
    P->adj_start = pairs <= PLAN_MAX_PAIRS ? malloc(((size_t)n + 1) * sizeof *P->adj_start) : NULL;
    P->adj = P->adj_start ? malloc(((size_t)pairs * 2 + 1) * sizeof *P->adj) : NULL;
    P->tmp = P->adj ? malloc(((size_t)n + 1) * sizeof *P->tmp) : NULL;
    if (!P->tmp) {
        free(P->adj_start);
        free(P->adj);
        P->adj_start = P->adj = NULL;
        free(byf);
        free(cnt);
        return;
    }
    for (int a = 0; a < n; a++) {
        const plan_item *x = &P->items[byf[2 * a + 1]];
        for (int b = a + 1; b < n && byf[2 * b] <= x->last_step; b++) {
            cnt[byf[2 * a + 1]]++;
            cnt[byf[2 * b + 1]]++;
        }
    }
    P->adj_start[0] = 0;
    for (int i = 0; i < n; i++)
        P->adj_start[i + 1] = P->adj_start[i] + cnt[i];
    for (int i = 0; i < n; i++)
        cnt[i] = P->adj_start[i];
    for (int a = 0; a < n; a++) {
        int i = byf[2 * a + 1];
        for (int b = a + 1; b < n && byf[2 * b] <= P->items[i].last_step; b++) {
            int j = byf[2 * b + 1];
            P->adj[cnt[i]++] = j;
            P->adj[cnt[j]++] = i;
        }
    }
    free(byf);
    free(cnt);
}

/* The lowest offset where sz fits among spans sorted by offset. */
static uint64_t first_gap(const span *v, int k, uint64_t sz)
{
    uint64_t cand = 0;
    for (int j = 0; j < k; j++) {
        if (v[j].off >= cand + sz)
            break;
        if (v[j].end > cand)
            cand = v[j].end;
    }
    return cand;
}

/* First fit in the sequence seq; P->off gets the offsets; returns the arena size and in *top
 * the item that reached it last. */
static uint64_t place_seq(placer *P, const int *seq, int *top)
{
    const plan_item *items = P->items;
    const uint64_t *sz = P->sz;
    int n = P->n, n_placed = 0;
    uint64_t arena = 0;
    *top = -1;
    memset(P->is_placed, 0, (size_t)n + 1);
    for (int k = 0; k < n; k++) {
        int i = seq[k];
        P->off[i] = 0;
        if (sz[i] == 0)
            continue;
        uint64_t cand = 0;
        if (P->adj) {
            int m = 0;
            for (int e = P->adj_start[i]; e < P->adj_start[i + 1]; e++) {
                int j = P->adj[e];
                if (P->is_placed[j])
                    P->tmp[m++] = (span){(uint64_t)P->off[j], (uint64_t)P->off[j] + sz[j]};
            }
            sort_spans(P->tmp, m);
            cand = first_gap(P->tmp, m, sz[i]);
        } else {
            /* placed[] is sorted by offset: walk the items alive at the same time */
            for (int j = 0; j < n_placed; j++) {
                int p = P->placed[j];
                if (!overlap_in_time(&items[i], &items[p]))
                    continue;
                uint64_t po = (uint64_t)P->off[p];
                if (po >= cand + sz[i])
                    break;
                if (po + sz[p] > cand)
                    cand = po + sz[p];
            }
            int lo = 0, hi = n_placed;
            while (lo < hi) {
                int mid = (lo + hi) / 2;
                if ((uint64_t)P->off[P->placed[mid]] <= cand)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            memmove(&P->placed[lo + 1], &P->placed[lo], (size_t)(n_placed - lo) * sizeof *P->placed);
            P->placed[lo] = i;
            n_placed++;
        }
        P->off[i] = (int64_t)cand; /* below the checked total */
        P->is_placed[i] = 1;
        if (cand + sz[i] > arena || *top < 0) {
            arena = cand + sz[i] > arena ? cand + sz[i] : arena;
            *top = i;
        }
    }
    return arena;
}

/* Orders first..last (stopping once one reaches the lower bound: nothing does better); then,
 * when the best is still above it (all == 1), rounds of
 * iterated greedy: the item that set the arena moves to the front of the sequence and the
 * whole sequence is placed again (a big item placed early can push one that has no other
 * room above everything). The smallest arena wins, the earliest on ties. */
static tosac_code place_orders(plan_item *items, int n, uint64_t align, int first, int last,
                               int all, uint64_t *arena_bytes, uint64_t *lower_bound,
                               tosac_error *err)
{
    if (align == 0)
        align = TOSAC_PLAN_ALIGN;
    if (n < 0)
        return tosac_fail(err, TOSAC_ERR_INPUT, "plan: negative item count");
    size_t cnt = (size_t)n + 1;
    placer P = {.items = items, .n = n};
    uint64_t *sz = malloc(cnt * sizeof *sz);
    int64_t *best = malloc(cnt * sizeof *best);
    sort_key *keys = malloc(cnt * sizeof *keys);
    int *seq = malloc(cnt * sizeof *seq), *best_seq = malloc(cnt * sizeof *best_seq);
    P.sz = sz;
    P.off = malloc(cnt * sizeof *P.off);
    P.is_placed = malloc(cnt);
    P.placed = malloc(cnt * sizeof *P.placed);
    tosac_code rc = !sz || !best || !keys || !seq || !best_seq || !P.off || !P.is_placed ||
                            !P.placed
                        ? tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory")
                        : aligned_sizes(items, n, align, sz, err);
    uint64_t best_arena = 0, peak = 0;
    int64_t pairs = 0;
    if (!rc)
        rc = live_peak(items, n, sz, &peak, err);
    if (!rc)
        build_adjacency(&P, &pairs);
    int top = -1, best_top = -1;
    for (int o = first; !rc && o <= last && (o == first || best_arena > peak); o++) {
        for (int i = 0; i < n; i++)
            keys[i] = key_of(&items[i], sz[i], (plan_order)o, i);
        qsort(keys, (size_t)n, sizeof *keys, cmp_key);
        for (int i = 0; i < n; i++)
            seq[i] = keys[i].idx;
        uint64_t a = place_seq(&P, seq, &top);
        if (o == first || a < best_arena) {
            best_arena = a;
            best_top = top;
            memcpy(best, P.off, (size_t)n * sizeof *best);
            memcpy(best_seq, seq, (size_t)n * sizeof *seq);
        }
    }
    int64_t per_round = P.adj ? pairs * 2 + n : (int64_t)n * n;
    int rounds = all ? (int)(PLAN_ROUND_WORK / (per_round + 1)) : 0;
    rounds = rounds > 16 ? 16 : rounds;
    if (!rc && best_arena > peak && rounds > 0) {
        memcpy(seq, best_seq, (size_t)n * sizeof *seq);
        top = best_top;
        for (int r = 0; r < rounds && best_arena > peak && top >= 0; r++) {
            int pos = 0;
            while (seq[pos] != top)
                pos++;
            memmove(&seq[1], &seq[0], (size_t)pos * sizeof *seq);
            seq[0] = top;
            uint64_t a = place_seq(&P, seq, &top);
            if (a < best_arena) {
                best_arena = a;
                memcpy(best, P.off, (size_t)n * sizeof *best);
            }
        }
    }
    if (!rc) {
        for (int i = 0; i < n; i++)
            items[i].offset = best[i];
        if (arena_bytes)
            *arena_bytes = best_arena;
        if (lower_bound)
            *lower_bound = peak;
    }
    free(sz);
    free(best);
    free(keys);
    free(seq);
    free(best_seq);
    free(P.off);
    free(P.is_placed);
    free(P.placed);
    free(P.adj_start);
    free(P.adj);
    free(P.tmp);
    return rc;
}

tosac_code plan_place_order(plan_item *items, int n, uint64_t align, plan_order order,
                            uint64_t *arena_bytes, uint64_t *lower_bound, tosac_error *err)
{
    if ((int)order < 0 || order >= PLAN_N_ORDERS)
        return tosac_fail(err, TOSAC_ERR_INPUT, "plan: unknown order %d", (int)order);
    return place_orders(items, n, align, order, order, 0, arena_bytes, lower_bound, err);
}

tosac_code plan_place(plan_item *items, int n, uint64_t align, uint64_t *arena_bytes,
                      uint64_t *lower_bound, tosac_error *err)
{
    return place_orders(items, n, align, 0, PLAN_N_ORDERS - 1, 1, arena_bytes, lower_bound,
                        err);
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
