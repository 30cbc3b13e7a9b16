/* Pad, gathers, scatters, Where and Trilu. */
#include "kernels/layout.h"

#include <string.h>

/* Maps an output coordinate to the input coordinate for a padding mode, or -1 for
 * "constant value". */
static int64_t pad_src(kern_pad_mode mode, int64_t o, int64_t before, int64_t n)
{
    int64_t i = o - before;
    if (i >= 0 && i < n)
        return i;
    switch (mode) {
    case KERN_PAD_CONSTANT: return -1;
    case KERN_PAD_EDGE: return i < 0 ? 0 : n - 1;
    case KERN_PAD_WRAP: {
        int64_t r = i % n;
        return r < 0 ? r + n : r;
    }
    case KERN_PAD_REFLECT: {
        if (n == 1)
            return 0;
        int64_t period = 2 * (n - 1);
        int64_t r = i % period;
        if (r < 0)
            r += period;
        return r < n ? r : period - r;
    }
    }
    return -1;
}

void kern_pad(size_t elem, int rank, const int64_t *in_shape, const int64_t *before,
              const int64_t *after, kern_pad_mode mode, const void *value, const void *x, void *y)
{
    int64_t out_shape[TOSAC_MAX_RANK], st[TOSAC_MAX_RANK], idx[TOSAC_MAX_RANK] = {0};
    int64_t total = 1;
    for (int k = 0; k < rank; k++) {
        out_shape[k] = in_shape[k] + before[k] + after[k];
        total *= out_shape[k];
    }
    kern_strides(rank, in_shape, st);
    char *Y = y;
    const char *X = x;
    for (int64_t o = 0; o < total; o++) {
        int64_t off = 0;
        int constant = 0;
        for (int k = 0; k < rank; k++) {
            int64_t s = pad_src(mode, idx[k], before[k], in_shape[k]);
            if (s < 0) {
                constant = 1;
                break;
            }
            off += s * st[k];
        }
        memcpy(Y + o * (int64_t)elem, constant ? value : X + off * (int64_t)elem, elem);
        for (int k = rank - 1; k >= 0; k--) {
            if (++idx[k] < out_shape[k])
                break;
            idx[k] = 0;
        }
    }
}

int kern_gather(size_t elem, int64_t outer, int64_t n, int64_t inner, const int64_t *idx,
                int64_t n_idx, const void *x, void *y)
{
    const char *X = x;
    char *Y = y;
    size_t row = (size_t)inner * elem;
    for (int64_t j = 0; j < n_idx; j++)
        if (idx[j] < -n || idx[j] >= n)
            return -1;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t j = 0; j < n_idx; j++) {
            int64_t i = idx[j] < 0 ? idx[j] + n : idx[j];
            memcpy(Y + (o * n_idx + j) * (int64_t)row, X + (o * n + i) * (int64_t)row, row);
        }
    return 0;
}

/* Walks every element of an index tensor of shape ishape, giving the flat offset in a tensor
 * of shape tshape at the same coordinates except axis, which takes the index value. */
typedef int (*elem_visit)(void *ctx, int64_t i_flat, int64_t t_flat);

static int walk_elements(int rank, const int64_t *tshape, const int64_t *ishape, int axis,
                         const int64_t *idx, elem_visit fn, void *ctx)
{
    int64_t tst[TOSAC_MAX_RANK], coord[TOSAC_MAX_RANK] = {0}, total = 1;
    kern_strides(rank, tshape, tst);
    for (int k = 0; k < rank; k++)
        total *= ishape[k];
    for (int64_t f = 0; f < total; f++) {
        int64_t v = idx[f], n = tshape[axis];
        if (v < -n || v >= n)
            return -1;
        if (v < 0)
            v += n;
        int64_t off = 0;
        for (int k = 0; k < rank; k++)
            off += (k == axis ? v : coord[k]) * tst[k];
        if (fn(ctx, f, off))
            return -1;
        for (int k = rank - 1; k >= 0; k--) {
            if (++coord[k] < ishape[k])
                break;
            coord[k] = 0;
        }
    }
    return 0;
}

typedef struct ge_ctx {
    size_t elem;
    const char *x;
    char *y;
    tosac_dtype dt;
    const void *upd;
    int reduction;
} ge_ctx;

static int ge_visit(void *ctx, int64_t i_flat, int64_t t_flat)
{
    ge_ctx *c = ctx;
    memcpy(c->y + i_flat * (int64_t)c->elem, c->x + t_flat * (int64_t)c->elem, c->elem);
    return 0;
}

/* Combines one update into y[t] for the scatter reductions. */
static void scatter_one(tosac_dtype dt, void *y, int64_t t, const void *upd, int64_t u, int red)
{
    size_t es = tosac_dtype_size(dt);
    if (red == 0) {
        memcpy((char *)y + t * (int64_t)es, (const char *)upd + u * (int64_t)es, es);
        return;
    }
    if (tosac_dtype_is_float(dt)) {
        double a = kern_get_f64(dt, y, t), b = kern_get_f64(dt, upd, u);
        double r = red == 1 ? a + b : red == 2 ? a * b : red == 3 ? (a > b ? a : b) : (a < b ? a : b);
        kern_set_f64(dt, y, t, r);
    } else {
        int64_t a = kern_get_i64(dt, y, t), b = kern_get_i64(dt, upd, u);
        int64_t r = red == 1 ? (int64_t)((uint64_t)a + (uint64_t)b)
                    : red == 2 ? (int64_t)((uint64_t)a * (uint64_t)b)
                    : red == 3 ? (a > b ? a : b) : (a < b ? a : b);
        kern_set_i64(dt, y, t, r);
    }
}

static int se_visit(void *ctx, int64_t i_flat, int64_t t_flat)
{
    ge_ctx *c = ctx;
    scatter_one(c->dt, c->y, t_flat, c->upd, i_flat, c->reduction);
    return 0;
}

int kern_gather_elements(size_t elem, int rank, const int64_t *xshape, const int64_t *ishape,
                         int axis, const int64_t *idx, const void *x, void *y)
{
    ge_ctx c = {elem, x, y, TOSAC_DT_UNKNOWN, NULL, 0};
    return walk_elements(rank, xshape, ishape, axis, idx, ge_visit, &c);
}

int kern_scatter_elements(tosac_dtype dt, int rank, const int64_t *yshape, const int64_t *ishape,
                          int axis, const int64_t *idx, const void *upd, int reduction, void *y)
{
    ge_ctx c = {tosac_dtype_size(dt), NULL, y, dt, upd, reduction};
    return walk_elements(rank, yshape, ishape, axis, idx, se_visit, &c);
}

/* Flat offset of the slice that m index values select, after batch offset, or -1. */
static int64_t nd_offset(int rank, const int64_t *shape, int first, int m, const int64_t *iv)
{
    int64_t st[TOSAC_MAX_RANK];
    kern_strides(rank, shape, st);
    int64_t off = 0;
    for (int j = 0; j < m; j++) {
        int64_t n = shape[first + j], v = iv[j];
        if (v < -n || v >= n)
            return -1;
        off += (v < 0 ? v + n : v) * st[first + j];
    }
    return off;
}

int kern_gather_nd(size_t elem, int rank, const int64_t *xshape, int64_t n_batch, int64_t n_per_batch,
                   int m, int batch_dims, const int64_t *idx, const void *x, void *y)
{
    int64_t st[TOSAC_MAX_RANK];
    kern_strides(rank, xshape, st);
    int64_t batch_stride = batch_dims > 0 ? st[batch_dims - 1] : 0;
    int64_t slice = 1;
    for (int k = batch_dims + m; k < rank; k++)
        slice *= xshape[k];
    const char *X = x;
    char *Y = y;
    for (int64_t b = 0; b < n_batch; b++)
        for (int64_t j = 0; j < n_per_batch; j++) {
            const int64_t *iv = idx + (b * n_per_batch + j) * m;
            int64_t off = nd_offset(rank, xshape, batch_dims, m, iv);
            if (off < 0)
                return -1;
            int64_t o = b * n_per_batch + j;
            memcpy(Y + o * slice * (int64_t)elem, X + (b * batch_stride + off) * (int64_t)elem,
                   (size_t)slice * elem);
        }
    return 0;
}

int kern_scatter_nd(tosac_dtype dt, int rank, const int64_t *yshape, int64_t n_upd, int m,
                    const int64_t *idx, const void *upd, int reduction, void *y)
{
    int64_t st[TOSAC_MAX_RANK];
    kern_strides(rank, yshape, st);
    int64_t slice = m < rank ? st[m - 1] : 1;
    for (int64_t u = 0; u < n_upd; u++) {
        int64_t off = nd_offset(rank, yshape, 0, m, idx + u * m);
        if (off < 0)
            return -1;
        for (int64_t s = 0; s < slice; s++)
            scatter_one(dt, y, off + s, upd, u * slice + s, reduction);
    }
    return 0;
}

typedef struct where_ctx {
    size_t elem;
    const uint8_t *c;
    const char *a, *b;
    char *y;
} where_ctx;

static void where_run(void *ctx, int64_t n, const int64_t *off, const int64_t *in, int64_t o)
{
    where_ctx *w = ctx;
    int64_t es = (int64_t)w->elem;
    for (int64_t i = 0; i < n; i++) {
        const char *src = w->c[off[0] + i * in[0]] ? w->a + (off[1] + i * in[1]) * es
                                                  : w->b + (off[2] + i * in[2]) * es;
        memcpy(w->y + (o + i) * es, src, w->elem);
    }
}

void kern_where(size_t elem, const kern_bcast *b, const uint8_t *cond, const void *a,
                const void *bv, void *y)
{
    where_ctx w = {elem, cond, a, bv, y};
    kern_bcast_each(b, where_run, &w);
}

void kern_trilu(size_t elem, int64_t batch, int64_t rows, int64_t cols, int64_t k, int upper,
                const void *x, void *y)
{
    const char *X = x;
    char *Y = y;
    for (int64_t b = 0; b < batch; b++)
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++) {
                int64_t at = ((b * rows + i) * cols + j) * (int64_t)elem;
                int keep = upper ? j - i >= k : j - i <= k;
                if (keep)
                    memcpy(Y + at, X + at, elem);
                else
                    memset(Y + at, 0, elem);
            }
}

int kern_reverse_sequence(size_t elem, int64_t d0, int64_t d1, int64_t inner, int batch_axis,
                          const int64_t *lens, const void *x, void *y)
{
    const int64_t batch = batch_axis == 0 ? d0 : d1, steps = batch_axis == 0 ? d1 : d0;
    for (int64_t b = 0; b < batch; b++)
        if (lens[b] < 0 || lens[b] > steps)
            return -1;
    const size_t row = elem * (size_t)inner;
    for (int64_t b = 0; b < batch; b++)
        for (int64_t t = 0; t < steps; t++) {
            int64_t src_t = t < lens[b] ? lens[b] - 1 - t : t;
            int64_t dst = batch_axis == 0 ? b * d1 + t : t * d1 + b;
            int64_t src = batch_axis == 0 ? b * d1 + src_t : src_t * d1 + b;
            memcpy((char *)y + (size_t)dst * row, (const char *)x + (size_t)src * row, row);
        }
    return 0;
}
