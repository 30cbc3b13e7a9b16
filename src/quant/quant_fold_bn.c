/* BatchNormalization folding: Conv -> BatchNormalization (inference form, constant
 * statistics) becomes one Conv with W'[m] = W[m] * k[m], B'[m] = B[m] * k[m] + shift[m]
 * (onnxop_norm.h: the arithmetic pass_fold_bn shares). Folding before calibration is what lets the weights be quantized
 * per channel with the BN scale inside them (a float BN between an int8 conv and its
 * quantized output would need its own Q/DQ and lose precision). A BN that does not follow a
 * Conv alone is decomposed into a per-channel Mul + Add (quant_decompose.c). */
#include "quant/quant_internal.h"

#include "onnxop/onnxop_norm.h"

#include <stdlib.h>
#include <string.h>

static int in(const ir_node *n, int k) { return k < n->n_inputs ? n->inputs[k] : -1; }

/* The Conv feeding BN node b alone, or -1. */
static int foldable_conv(const ir_graph *g, int b)
{
    const ir_node *bn = &g->nodes[b];
    if (bn->n_inputs < 5 || ir_node_attr_int(bn, "training_mode", 0) != 0)
        return -1;
    for (int o = 1; o < bn->n_outputs; o++)
        if (bn->outputs[o] >= 0)
            return -1; /* training outputs requested */
    int x = in(bn, 0);
    int c = x >= 0 ? ir_graph_producer(g, x) : -1;
    if (c < 0 || !ir_node_is(&g->nodes[c], "Conv") || ir_graph_is_output(g, x) ||
        ir_graph_consumers(g, x, NULL, 0) != 1)
        return -1;
    return c;
}

static tosac_code fold(ir_graph *g, int c, int b, tosac_error *err)
{
    tosac_tensor w, bias = {0}, p[4];
    const ir_node *bn = &g->nodes[b], *cv = &g->nodes[c];
    int wid = in(cv, 1), bid = in(cv, 2);
    if (!quant_const_f32(g, wid, &w) || w.rank < 1 || w.shape[0] < 1)
        return TOSAC_OK;
    int64_t m = w.shape[0];
    if (bid >= 0 && (!quant_const_f32(g, bid, &bias) || tosac_tensor_numel(&bias) != m))
        return TOSAC_OK;
    for (int k = 0; k < 4; k++)
        if (!quant_const_f32(g, in(bn, k + 1), &p[k]) || tosac_tensor_numel(&p[k]) != m)
            return TOSAC_OK;
    int64_t per = tosac_tensor_numel(&w) / m;
    float *nw = malloc((size_t)(m * per) * sizeof *nw), *nb = malloc((size_t)m * sizeof *nb);
    double *k = malloc((size_t)m * sizeof *k), *shift = malloc((size_t)m * sizeof *shift);
    if (!nw || !nb || !k || !shift) {
        free(nw);
        free(nb);
        free(k);
        free(shift);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    }
    onnx_bn_affine(&p[0], &p[1], &p[2], &p[3], onnx_bn_epsilon(bn), m, k, shift);
    const float *wd = w.data, *bd = bias.data;
    for (int64_t o = 0; o < m; o++) {
        for (int64_t i = 0; i < per; i++)
            nw[o * per + i] = (float)onnx_bn_fold_weight(wd[o * per + i], k[o]);
        nb[o] = (float)onnx_bn_fold_bias(bd ? bd[o] : 0.0, k[o], shift[o]);
    }
    free(k);
    free(shift);
    char base[512];
    snprintf(base, sizeof base, "%s", g->tensors[wid].name);
    int rank = w.rank;
    int64_t wshape[TOSAC_MAX_RANK];
    memcpy(wshape, w.shape, sizeof wshape);
    int nwid = quant_add_const(g, base, "_bnfold", TOSAC_DT_F32, rank, wshape, nw, err);
    snprintf(base, sizeof base, "%s", g->tensors[in(&g->nodes[b], 0)].name);
    int nbid = nwid < 0 ? -1 : quant_add_const(g, base, "_bias_bnfold", TOSAC_DT_F32, 1, &m, nb, err);
    free(nw);
    free(nb);
    if (nbid < 0)
        return err->code;
    /* the Conv now writes the BN's output and takes the folded constants */
    ir_node *cvn = &g->nodes[c];
    cvn->inputs[1] = nwid;
    if (cvn->n_inputs >= 3) {
        cvn->inputs[2] = nbid;
    } else {
        tosac_code rc = quant_node_append_input(g, c, nbid, err);
        if (rc)
            return rc;
    }
    g->nodes[c].outputs[0] = g->nodes[b].outputs[0];
    ir_node_kill(g, b);
    return TOSAC_OK;
}

tosac_code quant_fold_batchnorm(ir_graph *g, tosac_error *err)
{
    for (int b = 0; b < g->n_nodes; b++) {
        if (g->nodes[b].dead || !ir_node_is(&g->nodes[b], "BatchNormalization"))
            continue;
        int c = foldable_conv(g, b);
        if (c < 0)
            continue;
        tosac_code rc = fold(g, c, b, err);
        if (rc)
            return rc;
    }
    return TOSAC_OK;
}
