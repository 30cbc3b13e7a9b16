/* The CPU side of the windowed operators' geometry: the rules are the operator-semantics
 * layer's (src/onnxop/onnxop_window.c); here the kernels' int32 bounds and their params. */
#include "cpu/cpu_geometry.h"

#include <string.h>

tosac_code cpu_geom_window(cpu_ctx *c, const tosac_tensor *x, onnx_window *w)
{
    CPU_CHECK(c, x->rank >= 3 && x->rank <= 2 + CPU_MAX_SP,
              "input must be [N, C, 1 to 3 spatial dims], got rank %d", x->rank);
    return onnx_window_parse(c->node, x->rank - 2, w, c->err);
}

tosac_code cpu_geom_forward_w(cpu_ctx *c, const onnx_window *w, const tosac_tensor *x,
                              const int64_t *kshape, cpu_geom *g)
{
    memset(g, 0, sizeof *g);
    CPU_CHECK(c, x->rank == 2 + w->nsp, "input rank %d, the node's attributes are for %d "
              "spatial dims", x->rank, w->nsp);
    g->nsp = w->nsp;
    for (int i = 0; i < g->nsp; i++)
        g->in[i] = x->shape[2 + i];
    tosac_code rc = onnx_window_forward(c->node, w, g->in, kshape, g->out, g->pb, g->pe, c->err);
    if (rc)
        return rc;
    /* the kernels' parameters are int32 */
    for (int i = 0; i < g->nsp; i++) {
        g->k[i] = kshape ? kshape[i] : w->k[i];
        g->s[i] = w->s[i];
        g->d[i] = w->d[i];
        CPU_CHECK(c, g->k[i] < ((int64_t)1 << 31) && g->s[i] < ((int64_t)1 << 31) &&
                         g->d[i] < ((int64_t)1 << 31) && g->pb[i] < ((int64_t)1 << 31) &&
                         g->pe[i] < ((int64_t)1 << 31),
                  "kernel, stride, dilation or pads beyond 2^31");
    }
    return TOSAC_OK;
}

static tosac_code conv_prepare(cpu_ctx *c, void *st)
{
    cpu_conv_prep *p = st;
    p->group = cpu_attr_i(c, "group", 1);
    CPU_CHECK(c, p->group >= 1, "group must be at least 1, got %lld", (long long)p->group);
    int r = cpu_decl_rank(c, 0);
    if (r < 3 || r > 2 + CPU_MAX_SP)
        return TOSAC_OK; /* not known yet: eval parses against the value */
    tosac_code rc = onnx_window_parse(c->node, r - 2, &p->w, c->err);
    p->w.ceil_mode = 0;
    p->have_w = !rc;
    return rc;
}

const cpu_op_prep cpu_prep_conv = {conv_prepare, sizeof(cpu_conv_prep), NULL};

tosac_code cpu_geom_forward(cpu_ctx *c, const tosac_tensor *x, const int64_t *kshape,
                            int ceil_mode, cpu_geom *g)
{
    onnx_window w;
    tosac_code rc = cpu_geom_window(c, x, &w);
    if (rc)
        return rc;
    w.ceil_mode = ceil_mode;
    return cpu_geom_forward_w(c, &w, x, kshape, g);
}

tosac_code cpu_geom_transpose(cpu_ctx *c, const tosac_tensor *x, const int64_t *kshape,
                              cpu_geom *g)
{
    onnx_window w;
    tosac_code rc = cpu_geom_window(c, x, &w);
    return rc ? rc : cpu_geom_transpose_w(c, &w, x, kshape, g);
}

tosac_code cpu_geom_transpose_w(cpu_ctx *c, const onnx_window *w, const tosac_tensor *x,
                                const int64_t *kshape, cpu_geom *g)
{
    memset(g, 0, sizeof *g);
    CPU_CHECK(c, x->rank == 2 + w->nsp, "input rank %d, the node's attributes are for %d "
              "spatial dims", x->rank, w->nsp);
    g->nsp = w->nsp;
    for (int i = 0; i < g->nsp; i++)
        g->in[i] = x->shape[2 + i];
    tosac_code rc = onnx_window_transpose(c->node, w, g->in, kshape, g->out, g->pb, g->pe, c->err);
    if (rc)
        return rc;
    for (int i = 0; i < g->nsp; i++) {
        g->k[i] = kshape[i];
        g->s[i] = w->s[i];
        g->d[i] = w->d[i];
        CPU_CHECK(c, g->k[i] < ((int64_t)1 << 31) && g->s[i] < ((int64_t)1 << 31) &&
                         g->d[i] < ((int64_t)1 << 31) && g->pb[i] < ((int64_t)1 << 31) &&
                         g->pe[i] < ((int64_t)1 << 31) && g->out[i] < ((int64_t)1 << 31),
                  "kernel, stride, dilation, pads or output size beyond 2^31");
    }
    return TOSAC_OK;
}
