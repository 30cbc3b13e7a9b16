/* MaxPool, AveragePool, LpPool and their global forms; MaxUnpool. */
#include "cpu/cpu_internal.h"

#include <string.h>

#include "cpu/cpu_geometry.h"
#include "kernels/layout.h"
#include "kernels/pool.h"

/* The windowed pools' attributes, read once (prepare step); the window only when the
 * input's rank is declared. Global pools have none. */
typedef struct pool_prep {
    int have_w;
    onnx_window w;
    int count_include_pad, storage_order;
    int64_t p;
} pool_prep;

static tosac_code pool_prepare(cpu_ctx *c, void *st)
{
    pool_prep *p = st;
    p->count_include_pad = (int)cpu_attr_i(c, "count_include_pad", 0);
    p->storage_order = (int)cpu_attr_i(c, "storage_order", 0);
    p->p = cpu_attr_i(c, "p", 2);
    int r = cpu_decl_rank(c, 0);
    if (r < 3 || r > 5)
        return TOSAC_OK;
    tosac_code rc = onnx_window_parse(c->node, r - 2, &p->w, c->err);
    p->have_w = !rc;
    return rc;
}

static const cpu_op_prep pool_prep_op = {pool_prepare, sizeof(pool_prep), NULL};

static tosac_code pool(cpu_ctx *c, kern_pool_kind kind, int global)
{
    const tosac_tensor *x;
    tosac_code rc = cpu_req(c, 0, &x);
    if (rc)
        return rc;
    CPU_CHECK(c, x->rank >= 3 && x->rank <= 5, "input must be [N, C, 1 to 3 spatial dims]");
    int is_float = x->dtype == TOSAC_DT_F32 || x->dtype == TOSAC_DT_F64;
    if (!is_float && !(kind == KERN_POOL_MAX && (x->dtype == TOSAC_DT_I8 || x->dtype == TOSAC_DT_U8)))
        return cpu_fail(c, TOSAC_ERR_UNSUPPORTED, "input of type %s is not supported",
                        tosac_dtype_name(x->dtype));
    const pool_prep *pp = global ? NULL : c->prep;
    cpu_geom g;
    if (global) {
        g.nsp = x->rank - 2;
        for (int i = 0; i < g.nsp; i++) {
            g.in[i] = g.k[i] = x->shape[2 + i];
            g.out[i] = g.s[i] = g.d[i] = 1;
            g.pb[i] = g.pe[i] = 0;
        }
    } else if (pp && pp->have_w && pp->w.nsp == x->rank - 2) {
        if ((rc = cpu_geom_forward_w(c, &pp->w, x, NULL, &g)))
            return rc;
    } else if ((rc = cpu_geom_forward(c, x, NULL, (int)cpu_attr_i(c, "ceil_mode", 0), &g))) {
        return rc; /* the rank was not declared as it came */
    }
    kern_pool_params p = {0};
    p.kind = kind;
    p.nsp = g.nsp;
    p.nc = x->shape[0] * x->shape[1];
    for (int i = 0; i < g.nsp; i++) {
        p.in[i] = g.in[i];
        p.out[i] = g.out[i];
        p.k[i] = g.k[i];
        p.stride[i] = g.s[i];
        p.dil[i] = g.d[i];
        p.pad_begin[i] = g.pb[i];
        p.pad_end[i] = g.pe[i];
    }
    p.count_include_pad = pp ? pp->count_include_pad : (int)cpu_attr_i(c, "count_include_pad", 0);
    p.p = (double)(pp ? pp->p : cpu_attr_i(c, "p", 2));
    p.storage_order = pp ? pp->storage_order : (int)cpu_attr_i(c, "storage_order", 0);
    int64_t ys[TOSAC_MAX_RANK] = {x->shape[0], x->shape[1]};
    for (int i = 0; i < g.nsp; i++)
        ys[2 + i] = g.out[i];
    tosac_tensor *y, *ind = NULL;
    if ((rc = cpu_out_uninit(c, 0, x->dtype, x->rank, ys, &y)))
        return rc;
    if (kind == KERN_POOL_MAX && c->n_out > 1 && c->node->outputs[1] >= 0 &&
        (rc = cpu_out(c, 1, TOSAC_DT_I64, x->rank, ys, &ind)))
        return rc;
    if (x->dtype == TOSAC_DT_F32)
        kern_pool_f32(&p, x->data, y->data, ind ? ind->data : NULL);
    else if (x->dtype == TOSAC_DT_F64)
        kern_pool_f64(&p, x->data, y->data, ind ? ind->data : NULL);
    else
        kern_maxpool_int(&p, x->dtype, x->data, y->data);
    return TOSAC_OK;
}

static tosac_code op_maxpool(cpu_ctx *c) { return pool(c, KERN_POOL_MAX, 0); }
static tosac_code op_avgpool(cpu_ctx *c) { return pool(c, KERN_POOL_AVG, 0); }
static tosac_code op_lppool(cpu_ctx *c) { return pool(c, KERN_POOL_LP, 0); }
static tosac_code op_gmaxpool(cpu_ctx *c) { return pool(c, KERN_POOL_MAX, 1); }
static tosac_code op_gavgpool(cpu_ctx *c) { return pool(c, KERN_POOL_AVG, 1); }
static tosac_code op_glppool(cpu_ctx *c) { return pool(c, KERN_POOL_LP, 1); }

/* MaxUnpool's kernel_shape, strides and pads as given, read once (prepare step); their
 * lengths are checked at eval, against the input's rank. A list too long to keep keeps only
 * its length (it matches no rank). */
typedef struct unpool_prep {
    int nk, ns, np;                 /* -1: absent */
    int64_t k[TOSAC_MAX_RANK], s[TOSAC_MAX_RANK], pads[2 * TOSAC_MAX_RANK];
} unpool_prep;

static int keep_ints(cpu_ctx *c, const char *name, int64_t *v, int max)
{
    int n;
    const int64_t *a = cpu_attr_ints(c, name, &n);
    if (!a)
        return -1;
    if (n <= max && n > 0)
        memcpy(v, a, (size_t)n * sizeof(int64_t));
    return n;
}

static tosac_code unpool_prepare(cpu_ctx *c, void *st)
{
    unpool_prep *p = st;
    p->nk = keep_ints(c, "kernel_shape", p->k, TOSAC_MAX_RANK);
    p->ns = keep_ints(c, "strides", p->s, TOSAC_MAX_RANK);
    p->np = keep_ints(c, "pads", p->pads, 2 * TOSAC_MAX_RANK);
    return TOSAC_OK;
}

static const cpu_op_prep unpool_prep_op = {unpool_prepare, sizeof(unpool_prep), NULL};

/* MaxUnpool(X, I[, output_shape]): X's values placed at MaxPool's flat indices in a zero
 * output whose spatial size defaults to (in - 1) * stride + kernel - pads. */
static tosac_code op_maxunpool(cpu_ctx *c)
{
    const unpool_prep *up = c->prep;
    const tosac_tensor *x, *idx, *os = cpu_opt(c, 2);
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc)
        rc = cpu_req(c, 1, &idx);
    if (rc)
        return rc;
    CPU_CHECK(c, x->rank >= 3 && x->rank <= 2 + CPU_MAX_SP, "input must be [N, C, 1 to 3 spatial dims]");
    CPU_CHECK(c, idx->dtype == TOSAC_DT_I64 && idx->rank == x->rank &&
                     tosac_tensor_numel(idx) == tosac_tensor_numel(x),
              "indices must be int64 of the input's shape");
    int nsp = x->rank - 2, nk = up->nk, ns = up->ns, np = up->np;
    const int64_t *k = nk >= 0 ? up->k : NULL;
    const int64_t *st = ns >= 0 ? up->s : NULL, *pads = np >= 0 ? up->pads : NULL;
    CPU_CHECK(c, k && nk == nsp, "kernel_shape must give %d sizes", nsp);
    CPU_CHECK(c, (!st || ns == nsp) && (!pads || np == 2 * nsp), "strides/pads do not match the rank");
    int64_t ys[TOSAC_MAX_RANK] = {x->shape[0], x->shape[1]};
    for (int i = 0; i < nsp; i++) {
        int64_t s = st ? st[i] : 1;
        int64_t pb = pads ? pads[i] : 0, pe = pads ? pads[nsp + i] : 0;
        CPU_CHECK(c, k[i] >= 1 && s >= 1 && k[i] <= INT32_MAX && s <= INT32_MAX && pb >= 0 &&
                         pe >= 0 && pb <= INT32_MAX && pe <= INT32_MAX,
                  "kernel, strides and pads must be positive and below 2^31");
        ys[2 + i] = (x->shape[2 + i] - 1) * s + k[i] - (pads ? pads[i] + pads[nsp + i] : 0);
        CPU_CHECK(c, ys[2 + i] >= 0, "the pads exceed the output size");
    }
    tosac_tensor *y, def = {0};
    const size_t es = tosac_dtype_size(x->dtype);
    if (!os) {
        if ((rc = cpu_out(c, 0, x->dtype, x->rank, ys, &y)))
            return rc;
        CPU_CHECK(c, kern_max_unpool(es, tosac_tensor_numel(x), x->data, idx->data,
                                     tosac_tensor_numel(y), y->data) == 0,
                  "an index is outside the output");
        return TOSAC_OK;
    }
    /* the indices address the default-sized output; a larger output_shape pads it with zeros
     * at the end of each spatial dim (as ONNX's reference and onnxruntime do) */
    int64_t want[TOSAC_MAX_RANK], before[TOSAC_MAX_RANK] = {0}, after[TOSAC_MAX_RANK];
    int n;
    if ((rc = cpu_ints(c, os, want, TOSAC_MAX_RANK, &n)))
        return rc;
    CPU_CHECK(c, n == x->rank && want[0] == x->shape[0] && want[1] == x->shape[1],
              "output_shape must be [N, C, spatial...] of the input's N and C");
    for (int i = 0; i < x->rank; i++) {
        after[i] = want[i] - ys[i];
        CPU_CHECK(c, after[i] >= 0, "output_shape is smaller than the unpooled size");
    }
    if ((rc = cpu_tensor_temp(c, &def, x->dtype, x->rank, ys, 1)))
        return rc;
    if (kern_max_unpool(es, tosac_tensor_numel(x), x->data, idx->data, tosac_tensor_numel(&def),
                        def.data))
        rc = cpu_fail(c, TOSAC_ERR_INPUT, "an index is outside the output");
    if (!rc && !(rc = cpu_out(c, 0, x->dtype, x->rank, want, &y))) {
        uint8_t zero[16] = {0};
        kern_pad(es, x->rank, ys, before, after, KERN_PAD_CONSTANT, zero, def.data, y->data);
    }
    cpu_tensor_drop(c, &def);
    return rc;
}

const cpu_op_entry cpu_ops_pool[] = {
    {"MaxUnpool", op_maxunpool, 0, &unpool_prep_op},
    {"MaxPool", op_maxpool, CPU_F16_VIA_F32, &pool_prep_op},
    {"AveragePool", op_avgpool, CPU_F16_VIA_F32, &pool_prep_op},
    {"LpPool", op_lppool, CPU_F16_VIA_F32, &pool_prep_op},
    /* the global pools have no attributes */
    {"GlobalMaxPool", op_gmaxpool, CPU_F16_VIA_F32, NULL},
    {"GlobalAveragePool", op_gavgpool, CPU_F16_VIA_F32, NULL},
    {"GlobalLpPool", op_glppool, CPU_F16_VIA_F32, NULL},
    {NULL, NULL, 0, NULL},
};
