/* MaxPool, AveragePool, LpPool and their global forms. */
#include "cpu/cpu_internal.h"

#include "cpu/cpu_geometry.h"
#include "kernels/pool.h"

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
    cpu_geom g;
    if (global) {
        g.nsp = x->rank - 2;
        for (int i = 0; i < g.nsp; i++) {
            g.in[i] = g.k[i] = x->shape[2 + i];
            g.out[i] = g.s[i] = g.d[i] = 1;
            g.pb[i] = g.pe[i] = 0;
        }
    } else if ((rc = cpu_geom_forward(c, x, NULL, (int)cpu_attr_i(c, "ceil_mode", 0), &g))) {
        return rc;
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
    p.count_include_pad = (int)cpu_attr_i(c, "count_include_pad", 0);
    p.p = (double)cpu_attr_i(c, "p", 2);
    p.storage_order = (int)cpu_attr_i(c, "storage_order", 0);
    int64_t ys[TOSAC_MAX_RANK] = {x->shape[0], x->shape[1]};
    for (int i = 0; i < g.nsp; i++)
        ys[2 + i] = g.out[i];
    tosac_tensor *y, *ind = NULL;
    if ((rc = cpu_out(c, 0, x->dtype, x->rank, ys, &y)))
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

const cpu_op_entry cpu_ops_pool[] = {
    {"MaxPool", op_maxpool, CPU_F16_VIA_F32},
    {"AveragePool", op_avgpool, CPU_F16_VIA_F32},
    {"LpPool", op_lppool, CPU_F16_VIA_F32},
    {"GlobalMaxPool", op_gmaxpool, CPU_F16_VIA_F32},
    {"GlobalAveragePool", op_gavgpool, CPU_F16_VIA_F32},
    {"GlobalLpPool", op_glppool, CPU_F16_VIA_F32},
    {NULL, NULL, 0},
};
