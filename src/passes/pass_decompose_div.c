/* Float Div, which TOSA lacks, becomes a multiplication by the reciprocal:
 *   Div(a, constant b)      -> Mul(a, 1/b)            (1/b computed once, in double)
 *   Div(a, b)               -> Mul(a, Reciprocal(b))
 *   DQ(a) -> Div(., DQ(c_q constant)) -> Q   (QDQ graphs)
 *                           -> Mul(., DQ(r_q)) with r = 1/c quantized symmetrically in c_q's
 *                              type (scale max|r| / qmax), so fold_qdq sees a quantized Mul.
 * Integer Div stays (ONNX truncates; the INTDIV rule handles it). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes/pass_util.h"
#include "passes/passes.h"

static tosac_code to_mul(ir_graph *g, int ni, int divisor, tosac_error *err)
{
    const ir_node *n = &g->nodes[ni];
    int in[2] = {n->inputs[0], divisor}, out = n->outputs[0];
    char name[256];
    snprintf(name, sizeof name, "%s", n->name ? n->name : "");
    ir_node_kill(g, ni);
    return ir_graph_add_node(g, "Mul", NULL, name, in, 2, &out, 1, err) < 0 ? err->code
                                                                           : TOSAC_OK;
}

/* 1/b of a float constant as a new f32 constant of b's shape. */
static int reciprocal_const(ir_graph *g, int b, const tosac_tensor *bv, tosac_error *err)
{
    int64_t n = tosac_tensor_numel(bv);
    float *r = malloc((size_t)(n ? n : 1) * sizeof *r);
    if (!r) {
        tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        return -1;
    }
    for (int64_t i = 0; i < n; i++)
        r[i] = (float)(1.0 / tosac_tensor_f64_at(bv, i));
    int t = pass_add_like(g, b, "_recip", TOSAC_DT_F32, err);
    if (t >= 0 && ir_tensor_set_data(g, t, r, (size_t)n * sizeof *r, err))
        t = -1;
    free(r);
    return t;
}

/* DQ(c_q) of a constant: 1/c requantized symmetrically in c_q's type, behind a new DQ. */
static int reciprocal_dq(ir_graph *g, int cq, const char *origin, tosac_error *err)
{
    const ir_tensor *C = &g->tensors[cq];
    tosac_tensor cv;
    if (!C->data || C->quant->n != 1 || (C->dtype != TOSAC_DT_I8 && C->dtype != TOSAC_DT_I16) ||
        !ir_graph_const_value(g, cq, &cv))
        return -2;
    double qmax = C->dtype == TOSAC_DT_I8 ? 127.0 : 32767.0, s = C->quant->scale[0], m = 0;
    int64_t n = tosac_tensor_numel(&cv), zp = C->quant->zero_point[0];
    double *r = malloc((size_t)(n ? n : 1) * sizeof *r);
    void *q = malloc((size_t)(n ? n : 1) * tosac_dtype_size(C->dtype));
    int f = -2;
    if (!r || !q) {
        tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        f = -1;
    }
    for (int64_t i = 0; r && q && i < n; i++) {
        r[i] = 1.0 / (((double)tosac_tensor_int_at(&cv, i) - (double)zp) * s);
        m = isfinite(r[i]) ? fmax(m, fabs(r[i])) : INFINITY;
    }
    if (f == -2 && isfinite(m) && m > 0) {
        float rs = (float)(m / qmax);
        for (int64_t i = 0; i < n; i++) {
            double v = nearbyint(r[i] / rs);
            if (C->dtype == TOSAC_DT_I8)
                ((int8_t *)q)[i] = (int8_t)v;
            else
                ((int16_t *)q)[i] = (int16_t)v;
        }
        int64_t zero = 0;
        int rq = pass_add_like(g, cq, "_recip", C->dtype, err);
        int s_t = rq < 0 ? -1 : pass_add_const(g, g->tensors[rq].name, "_scale", TOSAC_DT_F32, 0, 1, &rs, err);
        int z_t = s_t < 0 ? -1 : pass_add_const(g, g->tensors[rq].name, "_zp", g->tensors[cq].dtype, 0, 1,
                                                &zero, err);
        f = z_t < 0 ? -1 : pass_add_like(g, rq, "_f", TOSAC_DT_F32, err);
        int in[3] = {rq, s_t, z_t};
        if (f < 0 ||
            ir_tensor_set_data(g, rq, q, (size_t)n * tosac_dtype_size(g->tensors[rq].dtype), err) ||
            ir_tensor_set_quant(g, rq, &rs, &zero, 1, -1, g->tensors[rq].dtype, err) ||
            ir_graph_add_node(g, "DequantizeLinear", NULL, origin, in, 3, &f, 1, err) < 0)
            f = -1;
    }
    free(r);
    free(q);
    return f;
}

static tosac_code decompose(ir_graph *g, int ni, tosac_error *err)
{
    const ir_node *n = &g->nodes[ni];
    if (n->n_inputs != 2 || n->n_outputs != 1 || n->inputs[0] < 0 || n->inputs[1] < 0 ||
        !tosac_dtype_is_float(g->tensors[n->outputs[0]].dtype))
        return TOSAC_OK;
    int b = n->inputs[1];
    tosac_tensor bv;
    if (ir_graph_const_value(g, b, &bv)) {
        int r = reciprocal_const(g, b, &bv, err);
        return r < 0 ? err->code : to_mul(g, ni, r, err);
    }
    int p = ir_graph_producer(g, b);
    if (p >= 0 && ir_node_is(&g->nodes[p], "DequantizeLinear")) {
        int cq = g->nodes[p].inputs[0];
        if (g->tensors[cq].quant && g->tensors[cq].data) {
            int r = reciprocal_dq(g, cq, n->name, err);
            if (r == -1)
                return err->code;
            if (r >= 0)
                return to_mul(g, ni, r, err);
        }
    }
    int r = pass_add_like(g, b, "_recip", g->tensors[b].dtype, err);
    if (r < 0 || ir_graph_add_node(g, "Reciprocal", NULL, g->nodes[ni].name, &b, 1, &r, 1, err) < 0)
        return err->code;
    return to_mul(g, ni, r, err);
}

tosac_code pass_decompose_div(ir_graph *g, const pass_ctx *c, tosac_error *err)
{
    (void)c;
    int n = g->n_nodes;
    for (int i = 0; i < n; i++) {
        if (g->nodes[i].dead || !ir_node_is(&g->nodes[i], "Div"))
            continue;
        tosac_code rc = decompose(g, i, err);
        if (rc)
            return rc;
    }
    ir_graph_compact(g);
    return ir_graph_toposort(g, err);
}
