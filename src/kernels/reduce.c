/* Reductions. Each output element walks its reduced sub-box with an odometer, so no scratch
 * is needed and every sum runs in input order. */
#include "kernels/reduce.h"

#include <math.h>
#include <string.h>

typedef struct box {
    int n;
    int64_t shape[TOSAC_MAX_RANK], stride[TOSAC_MAX_RANK];
} box;

static double fold_f(kern_reduce_op op, double acc, double v)
{
    switch (op) {
    case KERN_RED_SUM:
    case KERN_RED_MEAN:
    case KERN_RED_LOGSUM: return acc + v;
    case KERN_RED_MAX: return (v > acc || isnan(v)) ? v : acc;
    case KERN_RED_MIN: return (v < acc || isnan(v)) ? v : acc;
    case KERN_RED_PROD: return acc * v;
    case KERN_RED_L1: return acc + fabs(v);
    case KERN_RED_L2:
    case KERN_RED_SUMSQUARE: return acc + v * v;
    case KERN_RED_LOGSUMEXP: return acc + exp(v);
    }
    return acc;
}

static int64_t fold_i(kern_reduce_op op, int64_t acc, int64_t v)
{
    switch (op) {
    case KERN_RED_SUM:
    case KERN_RED_MEAN: return (int64_t)((uint64_t)acc + (uint64_t)v);
    case KERN_RED_MAX: return v > acc ? v : acc;
    case KERN_RED_MIN: return v < acc ? v : acc;
    case KERN_RED_PROD: return (int64_t)((uint64_t)acc * (uint64_t)v);
    case KERN_RED_L1: return (int64_t)((uint64_t)acc + (uint64_t)(v < 0 ? -(uint64_t)v : (uint64_t)v));
    case KERN_RED_SUMSQUARE:
    case KERN_RED_L2: return (int64_t)((uint64_t)acc + (uint64_t)v * (uint64_t)v);
    default: return acc;
    }
}

static int64_t int_min(tosac_dtype dt)
{
    if (!tosac_dtype_is_signed(dt))
        return 0;
    int b = tosac_dtype_size(dt) * 8;
    return b >= 64 ? INT64_MIN : -((int64_t)1 << (b - 1));
}

static int64_t int_max(tosac_dtype dt)
{
    if (dt == TOSAC_DT_BOOL)
        return 1;
    int b = tosac_dtype_size(dt) * 8;
    if (b >= 64)
        return INT64_MAX; /* u64 maxima beyond INT64_MAX are not representable here */
    return tosac_dtype_is_signed(dt) ? ((int64_t)1 << (b - 1)) - 1 : ((int64_t)1 << b) - 1;
}

int kern_reduce(kern_reduce_op op, tosac_dtype dt, int rank, const int64_t *shape,
                const uint8_t *mask, const void *x, void *y)
{
    int is_float = dt == TOSAC_DT_F32 || dt == TOSAC_DT_F64;
    /* bool (opset 20+ ReduceMax/ReduceMin: any/all) folds as the integers 0 and 1 */
    int is_bool = dt == TOSAC_DT_BOOL;
    if (is_bool && op != KERN_RED_MAX && op != KERN_RED_MIN)
        return -1;
    if (!is_float && !is_bool && !tosac_dtype_is_int(dt))
        return -1;
    if (!is_float && (op == KERN_RED_LOGSUM || op == KERN_RED_LOGSUMEXP))
        return -1;
    int64_t st[TOSAC_MAX_RANK];
    kern_strides(rank, shape, st);
    box kept = {0}, red = {0};
    int64_t red_count = 1;
    for (int i = 0; i < rank; i++) {
        box *b = mask[i] ? &red : &kept;
        b->shape[b->n] = shape[i];
        b->stride[b->n] = st[i];
        b->n++;
        if (mask[i])
            red_count *= shape[i];
    }
    int64_t n_out = 1;
    for (int i = 0; i < kept.n; i++)
        n_out *= kept.shape[i];
    int64_t kidx[TOSAC_MAX_RANK] = {0};
    int64_t base = 0;
    /* LogSumExp subtracts the maximum first so exp() cannot overflow */
    for (int64_t o = 0; o < n_out; o++) {
        double facc = 0, fmaxv = -INFINITY;
        int64_t iacc = 0;
        int pass_count = op == KERN_RED_LOGSUMEXP ? 2 : 1;
        for (int pass = 0; pass < pass_count; pass++) {
            int lse_max = op == KERN_RED_LOGSUMEXP && pass == 0;
            kern_reduce_op fop = lse_max ? KERN_RED_MAX : op;
            if (is_float)
                facc = fop == KERN_RED_MAX ? -INFINITY : fop == KERN_RED_MIN ? INFINITY
                       : fop == KERN_RED_PROD ? 1 : 0;
            else
                iacc = op == KERN_RED_MAX ? int_min(dt) : op == KERN_RED_MIN ? int_max(dt)
                       : op == KERN_RED_PROD ? 1 : 0;
            if (red_count > 0) {
                int64_t ridx[TOSAC_MAX_RANK] = {0};
                int64_t off = base;
                for (;;) {
                    if (is_float) {
                        double v = kern_get_f64(dt, x, off);
                        facc = fold_f(fop, facc, op == KERN_RED_LOGSUMEXP && !lse_max ? v - fmaxv : v);
                    } else {
                        iacc = fold_i(op, iacc, kern_get_i64(dt, x, off));
                    }
                    int k = red.n - 1;
                    for (; k >= 0; k--) {
                        off += red.stride[k];
                        if (++ridx[k] < red.shape[k])
                            break;
                        off -= red.stride[k] * red.shape[k];
                        ridx[k] = 0;
                    }
                    if (k < 0)
                        break;
                }
            }
            if (lse_max)
                fmaxv = isinf(facc) ? 0 : facc;
        }
        if (is_float) {
            switch (op) {
            case KERN_RED_MEAN: facc /= (double)red_count; break;
            case KERN_RED_L2: facc = sqrt(facc); break;
            case KERN_RED_LOGSUM: facc = log(facc); break;
            case KERN_RED_LOGSUMEXP: facc = log(facc) + fmaxv; break;
            default: break;
            }
            kern_set_f64(dt, y, o, facc);
        } else {
            if (op == KERN_RED_MEAN && red_count > 0)
                iacc /= red_count;
            if (op == KERN_RED_L2)
                iacc = (int64_t)sqrt((double)iacc);
            kern_set_i64(dt, y, o, iacc);
        }
        for (int k = kept.n - 1; k >= 0; k--) {
            base += kept.stride[k];
            if (++kidx[k] < kept.shape[k])
                break;
            base -= kept.stride[k] * kept.shape[k];
            kidx[k] = 0;
        }
    }
    return 0;
}

/* a ranks before b in the requested order (NaN ranks as the extreme, as numpy does). */
static int before(double a, double b, int is_max)
{
    if (isnan(a))
        return !isnan(b);
    if (isnan(b))
        return 0;
    return is_max ? a > b : a < b;
}

void kern_argextreme(tosac_dtype dt, int is_max, int select_last, int64_t outer, int64_t n,
                     int64_t inner, const void *x, int64_t *y)
{
    int is_int = !tosac_dtype_is_float(dt);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            int64_t best = 0, base = o * n * inner + i;
            for (int64_t j = 1; j < n; j++) {
                int64_t a = base + j * inner, b = base + best * inner;
                int better, equal;
                if (is_int) { /* exact for int64 values beyond 2^53 */
                    int64_t va = kern_get_i64(dt, x, a), vb = kern_get_i64(dt, x, b);
                    better = is_max ? va > vb : va < vb;
                    equal = va == vb;
                } else {
                    double va = kern_get_f64(dt, x, a), vb = kern_get_f64(dt, x, b);
                    better = before(va, vb, is_max);
                    equal = va == vb;
                }
                if (better || (select_last && equal))
                    best = j;
            }
            y[o * inner + i] = best;
        }
}

typedef struct topk_ctx {
    tosac_dtype dt;
    const void *x;
    int64_t base, inner;
    int largest;
} topk_ctx;

/* ordering for TopK: by value (largest/smallest first), ties by lower index */
static int topk_less(const topk_ctx *c, int64_t i, int64_t j)
{
    int64_t a = c->base + i * c->inner, b = c->base + j * c->inner;
    if (!tosac_dtype_is_float(c->dt)) {
        int64_t va = kern_get_i64(c->dt, c->x, a), vb = kern_get_i64(c->dt, c->x, b);
        if (va != vb)
            return c->largest ? va > vb : va < vb;
    } else {
        double va = kern_get_f64(c->dt, c->x, a), vb = kern_get_f64(c->dt, c->x, b);
        if (va != vb && !(isnan(va) && isnan(vb)))
            return before(va, vb, c->largest);
    }
    return i < j;
}

/* Heap sort over index positions: no allocation and O(n log n) worst case. */
static void sift(const topk_ctx *c, int64_t *h, int64_t start, int64_t end)
{
    int64_t root = start;
    while (2 * root + 1 < end) {
        int64_t child = 2 * root + 1;
        if (child + 1 < end && topk_less(c, h[child], h[child + 1]))
            child++;
        if (!topk_less(c, h[root], h[child]))
            return;
        int64_t t = h[root];
        h[root] = h[child];
        h[child] = t;
        root = child;
    }
}

void kern_topk(tosac_dtype dt, int largest, int64_t outer, int64_t n, int64_t inner, int64_t k,
               const void *x, void *values, int64_t *indices, int64_t *scratch)
{
    size_t es = tosac_dtype_size(dt);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            topk_ctx c = {dt, x, o * n * inner + i, inner, largest};
            for (int64_t j = 0; j < n; j++)
                scratch[j] = j;
            /* max-heap under "ranks after": the root is the element that sorts last */
            for (int64_t s = n / 2 - 1; s >= 0; s--)
                sift(&c, scratch, s, n);
            for (int64_t end = n - 1; end > 0; end--) {
                int64_t t = scratch[0];
                scratch[0] = scratch[end];
                scratch[end] = t;
                sift(&c, scratch, 0, end);
            }
            for (int64_t j = 0; j < k; j++) {
                int64_t out = (o * k + j) * inner + i;
                indices[out] = scratch[j];
                memcpy((char *)values + out * es, (const char *)x + (c.base + scratch[j] * inner) * es, es);
            }
        }
}

void kern_cumsum(tosac_dtype dt, int exclusive, int reverse, int64_t outer, int64_t n,
                 int64_t inner, const void *x, void *y)
{
    int is_float = tosac_dtype_is_float(dt);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            double fs = 0;
            uint64_t is = 0;
            for (int64_t jj = 0; jj < n; jj++) {
                int64_t j = reverse ? n - 1 - jj : jj;
                int64_t at = (o * n + j) * inner + i;
                if (is_float) {
                    /* f32 sums stay in f32, as onnxruntime's running sum does */
                    double v = kern_get_f64(dt, x, at);
                    double next = dt == TOSAC_DT_F64 ? fs + v : (double)(float)(fs + v);
                    kern_set_f64(dt, y, at, exclusive ? fs : next);
                    fs = next;
                } else {
                    uint64_t v = (uint64_t)kern_get_i64(dt, x, at);
                    if (!exclusive)
                        is += v;
                    kern_set_i64(dt, y, at, (int64_t)is);
                    if (exclusive)
                        is += v;
                }
            }
        }
}
