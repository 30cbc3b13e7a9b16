/* Indexing operators: Gather, GatherElements, GatherND, ScatterElements (and the old
 * Scatter), ScatterND, OneHot, NonZero, Compress, Unique. */
#include "cpu/cpu_internal.h"

#include <string.h>

#include "kernels/layout.h"
#include "kernels/unique.h"

/* Indices of any integer type as a malloc'd int64 array. */
static tosac_code indices_of(cpu_ctx *c, const tosac_tensor *t, int64_t **out)
{
    CPU_CHECK(c, t->dtype == TOSAC_DT_I64 || t->dtype == TOSAC_DT_I32,
              "indices must be int32 or int64, got %s", tosac_dtype_name(t->dtype));
    int64_t n = tosac_tensor_numel(t);
    *out = cpu_temp(c, (size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    if (!*out)
        return cpu_fail(c, TOSAC_ERR_INTERNAL, "out of memory");
    for (int64_t i = 0; i < n; i++)
        (*out)[i] = kern_get_i64(t->dtype, t->data, i);
    return TOSAC_OK;
}

static tosac_code op_gather(cpu_ctx *c)
{
    const tosac_tensor *x, *it;
    tosac_code rc = cpu_req(c, 0, &x);
    int axis;
    if (!rc)
        rc = cpu_req(c, 1, &it);
    if (!rc)
        rc = cpu_axis(c, ((const cpu_axis_prep *)c->prep)->axis, x->rank, &axis);
    if (rc)
        return rc;
    CPU_CHECK(c, x->rank + it->rank - 1 <= TOSAC_MAX_RANK, "result rank is too large");
    int64_t ys[TOSAC_MAX_RANK];
    int yr = 0;
    for (int k = 0; k < axis; k++)
        ys[yr++] = x->shape[k];
    for (int k = 0; k < it->rank; k++)
        ys[yr++] = it->shape[k];
    for (int k = axis + 1; k < x->rank; k++)
        ys[yr++] = x->shape[k];
    int64_t *idx;
    if ((rc = indices_of(c, it, &idx)))
        return rc;
    tosac_tensor *y;
    rc = cpu_out(c, 0, x->dtype, yr, ys, &y);
    int64_t outer, n, inner;
    cpu_split_axis(x, axis, &outer, &n, &inner);
    if (!rc && kern_gather(tosac_dtype_size(x->dtype), outer, n, inner, idx, tosac_tensor_numel(it),
                           x->data, y->data))
        rc = cpu_fail(c, TOSAC_ERR_INPUT, "an index is outside [-%lld, %lld)", (long long)n,
                      (long long)n);
    cpu_release(c, idx);
    return rc;
}

static tosac_code op_gather_elements(cpu_ctx *c)
{
    const tosac_tensor *x, *it;
    tosac_code rc = cpu_req(c, 0, &x);
    int axis;
    if (!rc)
        rc = cpu_req(c, 1, &it);
    if (!rc)
        rc = cpu_axis(c, ((const cpu_axis_prep *)c->prep)->axis, x->rank, &axis);
    if (rc)
        return rc;
    CPU_CHECK(c, it->rank == x->rank, "indices rank differs from data rank");
    int64_t *idx;
    if ((rc = indices_of(c, it, &idx)))
        return rc;
    tosac_tensor *y;
    rc = cpu_out(c, 0, x->dtype, it->rank, it->shape, &y);
    if (!rc && kern_gather_elements(tosac_dtype_size(x->dtype), x->rank, x->shape, it->shape, axis,
                                    idx, x->data, y->data))
        rc = cpu_fail(c, TOSAC_ERR_INPUT, "an index is out of range");
    cpu_release(c, idx);
    return rc;
}

static int reduction_of(const char *s)
{
    if (strcmp(s, "none") == 0)
        return 0;
    if (strcmp(s, "add") == 0)
        return 1;
    if (strcmp(s, "mul") == 0)
        return 2;
    if (strcmp(s, "max") == 0)
        return 3;
    if (strcmp(s, "min") == 0)
        return 4;
    return -1;
}

/* The attributes of ScatterElements/Scatter, ScatterND, GatherND, OneHot, Compress and
 * Unique, read and checked once (prepare step). */
typedef struct index_prep {
    int64_t axis;
    int has_axis, red, batch_dims, sorted;
} index_prep;

static tosac_code index_prepare(cpu_ctx *c, void *st, int64_t axis_dflt)
{
    index_prep *p = st;
    p->has_axis = cpu_has_attr(c, "axis");
    p->axis = cpu_attr_i(c, "axis", axis_dflt);
    p->batch_dims = (int)cpu_attr_i(c, "batch_dims", 0);
    p->sorted = cpu_attr_i(c, "sorted", 1) != 0;
    p->red = reduction_of(cpu_attr_s(c, "reduction", "none"));
    CPU_CHECK(c, p->red >= 0, "unknown reduction '%s'", cpu_attr_s(c, "reduction", ""));
    return TOSAC_OK;
}

static tosac_code index_prepare0(cpu_ctx *c, void *st) { return index_prepare(c, st, 0); }
static tosac_code onehot_prepare(cpu_ctx *c, void *st) { return index_prepare(c, st, -1); }

static const cpu_op_prep index_prep0 = {index_prepare0, sizeof(index_prep), NULL};
static const cpu_op_prep onehot_prep = {onehot_prepare, sizeof(index_prep), NULL};

static tosac_code op_scatter_elements(cpu_ctx *c)
{
    const index_prep *p = c->prep;
    const tosac_tensor *x, *it, *u;
    tosac_code rc = cpu_req(c, 0, &x);
    int axis;
    if (!rc)
        rc = cpu_req(c, 1, &it);
    if (!rc)
        rc = cpu_req(c, 2, &u);
    if (!rc)
        rc = cpu_axis(c, p->axis, x->rank, &axis);
    if (rc)
        return rc;
    int red = p->red;
    CPU_CHECK(c, it->rank == x->rank && u->rank == it->rank && u->dtype == x->dtype,
              "indices and updates must match data in rank and type");
    for (int k = 0; k < it->rank; k++)
        CPU_CHECK(c, u->shape[k] == it->shape[k], "updates shape differs from indices shape");
    int64_t *idx;
    if ((rc = indices_of(c, it, &idx)))
        return rc;
    rc = cpu_out_copy(c, 0, x, x->rank, x->shape);
    if (!rc && kern_scatter_elements(x->dtype, x->rank, x->shape, it->shape, axis, idx, u->data,
                                     red, c->out[0].data))
        rc = cpu_fail(c, TOSAC_ERR_INPUT, "an index is out of range");
    cpu_release(c, idx);
    return rc;
}

static tosac_code op_gather_nd(cpu_ctx *c)
{
    const tosac_tensor *x, *it;
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc)
        rc = cpu_req(c, 1, &it);
    if (rc)
        return rc;
    int b = ((const index_prep *)c->prep)->batch_dims;
    CPU_CHECK(c, it->rank >= 1 && b >= 0 && b < it->rank && b < x->rank, "bad batch_dims %d", b);
    int m = (int)it->shape[it->rank - 1];
    CPU_CHECK(c, m >= 0 && b + m <= x->rank, "index depth %d exceeds data rank %d", m, x->rank);
    for (int k = 0; k < b; k++)
        CPU_CHECK(c, x->shape[k] == it->shape[k], "batch dims of data and indices differ");
    int64_t ys[TOSAC_MAX_RANK];
    int yr = 0;
    for (int k = 0; k < it->rank - 1; k++)
        ys[yr++] = it->shape[k];
    for (int k = b + m; k < x->rank; k++)
        ys[yr++] = x->shape[k];
    CPU_CHECK(c, yr <= TOSAC_MAX_RANK, "result rank is too large");
    int64_t n_batch = 1, per = 1;
    for (int k = 0; k < b; k++)
        n_batch *= it->shape[k];
    for (int k = b; k < it->rank - 1; k++)
        per *= it->shape[k];
    int64_t *idx;
    if ((rc = indices_of(c, it, &idx)))
        return rc;
    tosac_tensor *y;
    rc = cpu_out(c, 0, x->dtype, yr, ys, &y);
    if (!rc && kern_gather_nd(tosac_dtype_size(x->dtype), x->rank, x->shape, n_batch, per, m, b,
                              idx, x->data, y->data))
        rc = cpu_fail(c, TOSAC_ERR_INPUT, "an index is out of range");
    cpu_release(c, idx);
    return rc;
}

static tosac_code op_scatter_nd(cpu_ctx *c)
{
    const tosac_tensor *x, *it, *u;
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc)
        rc = cpu_req(c, 1, &it);
    if (!rc)
        rc = cpu_req(c, 2, &u);
    if (rc)
        return rc;
    int red = ((const index_prep *)c->prep)->red;
    CPU_CHECK(c, it->rank >= 1 && u->dtype == x->dtype, "bad indices or updates");
    int m = (int)it->shape[it->rank - 1];
    CPU_CHECK(c, m >= 1 && m <= x->rank, "index depth %d exceeds data rank %d", m, x->rank);
    int64_t n_upd = tosac_tensor_numel(it) / m, slice = 1;
    for (int k = m; k < x->rank; k++)
        slice *= x->shape[k];
    CPU_CHECK(c, tosac_tensor_numel(u) == n_upd * slice, "updates have the wrong size");
    int64_t *idx;
    if ((rc = indices_of(c, it, &idx)))
        return rc;
    rc = cpu_out_copy(c, 0, x, x->rank, x->shape);
    if (!rc && kern_scatter_nd(x->dtype, x->rank, x->shape, n_upd, m, idx, u->data, red,
                               c->out[0].data))
        rc = cpu_fail(c, TOSAC_ERR_INPUT, "an index is out of range");
    cpu_release(c, idx);
    return rc;
}

static tosac_code op_onehot(cpu_ctx *c)
{
    const tosac_tensor *it, *dt, *vt;
    tosac_code rc = cpu_req(c, 0, &it);
    if (!rc)
        rc = cpu_req(c, 1, &dt);
    if (!rc)
        rc = cpu_req(c, 2, &vt);
    if (rc)
        return rc;
    double depth_f;
    if ((rc = cpu_scalar_f64(c, dt, &depth_f)))
        return rc;
    int64_t depth = (int64_t)depth_f;
    CPU_CHECK(c, depth >= 1 && depth < ((int64_t)1 << 31), "depth must be positive");
    CPU_CHECK(c, tosac_tensor_numel(vt) == 2, "values must hold [off, on]");
    int r = it->rank + 1, axis;
    CPU_CHECK(c, r <= TOSAC_MAX_RANK, "result rank is too large");
    if ((rc = cpu_axis(c, ((const index_prep *)c->prep)->axis, r, &axis)))
        return rc;
    int64_t ys[TOSAC_MAX_RANK];
    for (int k = 0, j = 0; k < r; k++)
        ys[k] = k == axis ? depth : it->shape[j++];
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, vt->dtype, r, ys, &y)))
        return rc;
    size_t es = tosac_dtype_size(vt->dtype);
    int64_t outer = 1, inner = 1;
    for (int k = 0; k < axis; k++)
        outer *= ys[k];
    for (int k = axis + 1; k < r; k++)
        inner *= ys[k];
    for (int64_t o = 0; o < outer; o++)
        for (int64_t d = 0; d < depth; d++)
            for (int64_t i = 0; i < inner; i++) {
                int64_t v = (int64_t)kern_get_f64(it->dtype, it->data, o * inner + i);
                if (v < 0)
                    v += depth;
                int on = v == d;
                memcpy((char *)y->data + ((o * depth + d) * inner + i) * (int64_t)es,
                       (const char *)vt->data + (on ? (int64_t)es : 0), es);
            }
    return TOSAC_OK;
}

static tosac_code op_nonzero(cpu_ctx *c)
{
    const tosac_tensor *x;
    tosac_code rc = cpu_req(c, 0, &x);
    if (rc)
        return rc;
    int64_t total = tosac_tensor_numel(x), cnt = 0;
    for (int64_t i = 0; i < total; i++)
        cnt += kern_get_f64(x->dtype, x->data, i) != 0;
    int64_t ys[2] = {x->rank, cnt};
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, TOSAC_DT_I64, 2, ys, &y)))
        return rc;
    int64_t st[TOSAC_MAX_RANK], j = 0;
    kern_strides(x->rank, x->shape, st);
    for (int64_t i = 0; i < total; i++) {
        if (kern_get_f64(x->dtype, x->data, i) == 0)
            continue;
        for (int k = 0; k < x->rank; k++)
            ((int64_t *)y->data)[k * cnt + j] = i / st[k] % x->shape[k];
        j++;
    }
    return TOSAC_OK;
}

static tosac_code op_compress(cpu_ctx *c)
{
    const tosac_tensor *x, *cond;
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc)
        rc = cpu_req(c, 1, &cond);
    if (rc)
        return rc;
    CPU_CHECK(c, cond->dtype == TOSAC_DT_BOOL && cond->rank == 1, "condition must be 1-D bool");
    const uint8_t *cd = cond->data;
    const index_prep *p = c->prep;
    int has_axis = p->has_axis, axis = 0;
    if (has_axis && (rc = cpu_axis(c, p->axis, x->rank, &axis)))
        return rc;
    int64_t outer = 1, n = tosac_tensor_numel(x), inner = 1;
    if (has_axis)
        cpu_split_axis(x, axis, &outer, &n, &inner);
    int64_t keep = 0;
    for (int64_t i = 0; i < n && i < cond->shape[0]; i++)
        keep += cd[i] != 0;
    int64_t ys[TOSAC_MAX_RANK];
    int yr = 1;
    ys[0] = keep;
    if (has_axis) {
        memcpy(ys, x->shape, sizeof ys);
        ys[axis] = keep;
        yr = x->rank;
    }
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, x->dtype, yr, ys, &y)))
        return rc;
    size_t row = (size_t)inner * tosac_dtype_size(x->dtype);
    char *dst = y->data;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < n && i < cond->shape[0]; i++)
            if (cd[i]) {
                memcpy(dst, (const char *)x->data + (o * n + i) * (int64_t)row, row);
                dst += row;
            }
    return TOSAC_OK;
}

/* Unique(X) -> Y, indices, inverse_indices, counts; without axis X is flattened. */
static tosac_code op_unique(cpu_ctx *c)
{
    const tosac_tensor *x;
    tosac_code rc = cpu_req(c, 0, &x);
    if (rc)
        return rc;
    CPU_CHECK(c, x->dtype != TOSAC_DT_UNKNOWN && tosac_dtype_size(x->dtype) > 0, "unsupported input type");
    const index_prep *p = c->prep;
    int has_axis = p->has_axis, axis = 0;
    int64_t outer = 1, n = tosac_tensor_numel(x), inner = 1;
    if (has_axis) {
        if ((rc = cpu_axis(c, p->axis, x->rank, &axis)))
            return rc;
        CPU_CHECK(c, x->rank >= 1, "axis needs an input of rank >= 1");
        cpu_split_axis(x, axis, &outer, &n, &inner);
    }
    int64_t *buf = cpu_temp(c, (size_t)(7 * n + 1) * sizeof(int64_t));
    if (!buf)
        return cpu_fail(c, TOSAC_ERR_INTERNAL, "out of memory");
    int64_t *first = buf, *inverse = buf + n, *counts = buf + 2 * n;
    int64_t u = kern_unique(x->dtype, outer, n, inner, p->sorted, x->data,
                            first, inverse, counts, buf + 3 * n);
    int64_t ys[TOSAC_MAX_RANK] = {u};
    int yr = 1;
    if (has_axis) {
        yr = x->rank;
        memcpy(ys, x->shape, sizeof(int64_t) * (size_t)x->rank);
        ys[axis] = u;
    }
    tosac_tensor *y, *o;
    if (!(rc = cpu_out(c, 0, x->dtype, yr, ys, &y)))
        kern_gather(tosac_dtype_size(x->dtype), outer, n, inner, first, u, x->data, y->data);
    const int64_t *vals[3] = {first, inverse, counts};
    int64_t lens[3] = {u, n, u};
    for (int i = 1; i < 4 && i < c->n_out && !rc; i++)
        if (c->node->outputs[i] >= 0 && !(rc = cpu_out(c, i, TOSAC_DT_I64, 1, &lens[i - 1], &o)))
            memcpy(o->data, vals[i - 1], (size_t)lens[i - 1] * sizeof(int64_t));
    cpu_release(c, buf);
    return rc;
}

const cpu_op_entry cpu_ops_gather[] = {
    {"Unique", op_unique, 0, &index_prep0},
    {"Gather", op_gather, 0, &cpu_prep_axis0},
    {"GatherElements", op_gather_elements, 0, &cpu_prep_axis0},
    {"ScatterElements", op_scatter_elements, 0, &index_prep0},
    {"Scatter", op_scatter_elements, 0, &index_prep0},
    {"GatherND", op_gather_nd, 0, &index_prep0},
    {"ScatterND", op_scatter_nd, 0, &index_prep0},
    {"OneHot", op_onehot, 0, &onehot_prep},
    {"NonZero", op_nonzero, 0, NULL}, /* no attributes */
    {"Compress", op_compress, 0, &index_prep0},
    {NULL, NULL, 0, NULL},
};
