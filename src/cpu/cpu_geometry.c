/* Output-size arithmetic of the windowed operators, as the ONNX operator docs give it. */
#include "cpu/cpu_geometry.h"

#include <string.h>

/* Reads an INTS attribute of exactly nsp values (or dflt when absent). */
static tosac_code spatial_attr(cpu_ctx *c, const char *name, int nsp, int64_t dflt, int64_t *v,
                               int64_t minv)
{
    int n;
    const int64_t *a = cpu_attr_ints(c, name, &n);
    for (int i = 0; i < nsp; i++)
        v[i] = dflt;
    if (!a)
        return TOSAC_OK;
    CPU_CHECK(c, n == nsp, "%s has %d values for %d spatial dims", name, n, nsp);
    for (int i = 0; i < nsp; i++) {
        CPU_CHECK(c, a[i] >= minv && a[i] < ((int64_t)1 << 31), "%s[%d] = %lld is out of range",
                  name, i, (long long)a[i]);
        v[i] = a[i];
    }
    return TOSAC_OK;
}

static tosac_code common(cpu_ctx *c, const tosac_tensor *x, const int64_t *kshape, cpu_geom *g)
{
    memset(g, 0, sizeof *g);
    CPU_CHECK(c, x->rank >= 3 && x->rank <= 2 + CPU_MAX_SP,
              "input must be [N, C, 1 to 3 spatial dims], got rank %d", x->rank);
    g->nsp = x->rank - 2;
    for (int i = 0; i < g->nsp; i++)
        g->in[i] = x->shape[2 + i];
    tosac_code rc;
    if (kshape)
        memcpy(g->k, kshape, (size_t)g->nsp * sizeof(int64_t));
    else {
        int n;
        CPU_CHECK(c, cpu_attr_ints(c, "kernel_shape", &n), "kernel_shape is required");
        if ((rc = spatial_attr(c, "kernel_shape", g->nsp, 1, g->k, 1)))
            return rc;
    }
    for (int i = 0; i < g->nsp; i++)
        CPU_CHECK(c, g->k[i] >= 1, "kernel size %lld must be positive", (long long)g->k[i]);
    if ((rc = spatial_attr(c, "strides", g->nsp, 1, g->s, 1)) ||
        (rc = spatial_attr(c, "dilations", g->nsp, 1, g->d, 1)))
        return rc;
    int n;
    const int64_t *pads = cpu_attr_ints(c, "pads", &n);
    if (pads) {
        CPU_CHECK(c, n == 2 * g->nsp, "pads has %d values for %d spatial dims", n, g->nsp);
        for (int i = 0; i < g->nsp; i++) {
            CPU_CHECK(c, pads[i] >= 0 && pads[g->nsp + i] >= 0 && pads[i] < ((int64_t)1 << 31) &&
                             pads[g->nsp + i] < ((int64_t)1 << 31),
                      "pads must be non-negative and small");
            g->pb[i] = pads[i];
            g->pe[i] = pads[g->nsp + i];
        }
    }
    return TOSAC_OK;
}

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
    int r = cpu_decl_rank(c, 0);
    if (r < 3 || r > 2 + CPU_MAX_SP)
        return TOSAC_OK; /* not known yet: eval parses against the value */
    tosac_code rc = onnx_window_parse(c->node, r - 2, &p->w, c->err);
    p->w.ceil_mode = 0;
    p->have_w = !rc;
    return rc;
}

const cpu_op_prep cpu_prep_conv = {conv_prepare, sizeof(cpu_conv_prep)};

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
    tosac_code rc = common(c, x, kshape, g);
    if (rc)
        return rc;
    int64_t opad[CPU_MAX_SP];
    if ((rc = spatial_attr(c, "output_padding", g->nsp, 0, opad, 0)))
        return rc;
    const char *ap = cpu_attr_s(c, "auto_pad", "NOTSET");
    int n;
    const int64_t *oshape = cpu_attr_ints(c, "output_shape", &n);
    if (oshape) {
        /* output_shape may list only the spatial dims or the full shape */
        CPU_CHECK(c, n == g->nsp || n == g->nsp + 2, "output_shape has %d values", n);
        oshape += n - g->nsp;
    }
    int same = strncmp(ap, "SAME", 4) == 0;
    for (int i = 0; i < g->nsp; i++) {
        int64_t ext = (g->k[i] - 1) * g->d[i] + 1;
        int64_t full = g->s[i] * (g->in[i] - 1) + opad[i] + ext;
        if (oshape || same) {
            int64_t want = oshape ? oshape[i] : g->in[i] * g->s[i];
            int64_t total = full - want;
            if (total < 0)
                total = 0;
            if (strcmp(ap, "SAME_UPPER") == 0) {
                g->pb[i] = total / 2;
                g->pe[i] = total - total / 2;
            } else {
                g->pb[i] = total - total / 2;
                g->pe[i] = total / 2;
            }
            g->out[i] = want;
        } else {
            g->out[i] = full - g->pb[i] - g->pe[i];
        }
        CPU_CHECK(c, g->out[i] > 0, "output size %lld is not positive", (long long)g->out[i]);
    }
    return TOSAC_OK;
}
