/* Bias correction (Nagel et al., "Data-Free Quantization", sec. 4.2, with the input means
 * measured on the calibration samples): rounding a layer's weights shifts its output's mean
 * by (Wq - W) E[x] per output channel; depthwise layers, whose channels sum only 9 products,
 * keep most of that shift, and it adds up over mobilenet's 17 blocks. The bias of each
 * quantized Conv/Gemm with constant weights and bias absorbs the shift: b' = b - (Wq - W) E[x]
 * (E[x] per input channel; padding's zeros are counted as the mean, a small error at the
 * borders only). */
#include "quant/quant_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The tensor whose per-channel mean node n's bias correction needs, or -1: input 0 of a Conv,
 * or of a Gemm with transA = 0, with constant weights and a constant bias. */
static int corrected_input(const ir_graph *g, const ir_node *n)
{
    tosac_tensor v;
    if (n->dead || n->n_inputs < 3 || n->inputs[0] < 0 || n->inputs[1] < 0 || n->inputs[2] < 0)
        return -1;
    if (!ir_node_is(n, "Conv") && !(ir_node_is(n, "Gemm") && !ir_node_attr_int(n, "transA", 0)))
        return -1;
    if (!quant_bias_slot(n, 2) || !quant_const_f32(g, n->inputs[1], &v) ||
        !quant_const_f32(g, n->inputs[2], &v))
        return -1;
    return n->inputs[0];
}

typedef struct mean_pass {
    const ir_graph *g;
    quant_seen *seen;
    double **sum;
    int64_t *count;
} mean_pass;

static void observe_mean(void *ctx, int tensor, const tosac_tensor *t)
{
    mean_pass *mp = ctx;
    quant_seen *s = &mp->seen[tensor];
    if (!mp->sum[tensor] || t->dtype != TOSAC_DT_F32 || t->rank < 2 || t->shape[1] != s->n_mean)
        return;
    /* channels on axis 1: [N, C, spatial...] for a Conv, [M, K] for a Gemm */
    int64_t c = t->shape[1], outer = t->shape[0], inner = 1;
    for (int d = 2; d < t->rank; d++)
        inner *= t->shape[d];
    const float *x = t->data;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t ch = 0; ch < c; ch++) {
            const float *p = x + (o * c + ch) * inner;
            double acc = 0;
            for (int64_t i = 0; i < inner; i++)
                acc += isfinite(p[i]) ? p[i] : 0.0;
            mp->sum[tensor][ch] += acc;
        }
    mp->count[tensor] += outer * inner;
}

tosac_code quant_channel_means(ir_model *m, const quant_options *o, const quant_calib *c,
                               quant_seen *seen, tosac_error *err)
{
    ir_graph *g = m->graph;
    int nt = g->n_tensors;
    mean_pass mp = {g, seen, calloc((size_t)nt + 1, sizeof *mp.sum),
                    calloc((size_t)nt + 1, sizeof *mp.count)};
    tosac_code rc = mp.sum && mp.count ? TOSAC_OK
                                       : tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    bool any = false;
    for (int i = 0; !rc && i < g->n_nodes; i++) {
        int x = corrected_input(g, &g->nodes[i]);
        if (x < 0 || mp.sum[x] || seen[x].rank < 2 || seen[x].shape[1] < 1)
            continue;
        seen[x].n_mean = seen[x].shape[1];
        if (!(mp.sum[x] = calloc((size_t)seen[x].n_mean, sizeof **mp.sum)))
            rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        any = true;
    }
    if (!rc && any)
        rc = quant_run_pass(m, o, "means", c, observe_mean, &mp, err);
    for (int t = 0; t < nt && mp.sum; t++) {
        if (!rc && mp.sum[t] && mp.count[t] > 0) {
            for (int64_t ch = 0; ch < seen[t].n_mean; ch++)
                mp.sum[t][ch] /= (double)mp.count[t];
            seen[t].mean = mp.sum[t]; /* owned by seen from here (quant_seen_free) */
        } else {
            free(mp.sum[t]);
            seen[t].n_mean = 0;
        }
    }
    free(mp.sum);
    free(mp.count);
    return rc;
}

void quant_seen_free(quant_seen *seen, int n)
{
    for (int t = 0; seen && t < n; t++) {
        free(seen[t].mean);
        free(seen[t].wscale);
    }
}

bool quant_bias_correction(const ir_graph *g, int i, const tosac_tensor *w, const float *sw,
                           int n_sw, const quant_seen *seen, double *corr)
{
    const ir_node *n = &g->nodes[i];
    /* the weights were replaced by their DequantizeLinear already: no constness check here */
    int x = n->n_inputs >= 3 ? n->inputs[0] : -1;
    if (x < 0 || !seen[x].mean)
        return false;
    const double *mean = seen[x].mean;
    int64_t nm = seen[x].n_mean;
    if (ir_node_is(n, "Conv")) {
        if (w->rank < 3)
            return false;
        int64_t oc = w->shape[0], icg = w->shape[1], k = 1;
        for (int d = 2; d < w->rank; d++)
            k *= w->shape[d];
        int64_t group = ir_node_attr_int(n, "group", 1);
        if (n_sw != oc || group < 1 || oc % group || icg * group != nm)
            return false;
        const float *wv = w->data;
        for (int64_t o = 0; o < oc; o++) {
            int64_t gi = o / (oc / group);
            double acc = 0;
            for (int64_t j = 0; j < icg * k; j++) {
                float v = wv[o * icg * k + j];
                double e = (double)quant_value(v, sw[o], 0, -127, 127) * sw[o] - v;
                acc += e * mean[gi * icg + j / k];
            }
            corr[o] = acc;
        }
        return true;
    }
    /* Gemm: W [N, K] (transB) or [K, N] */
    if (w->rank != 2)
        return false;
    bool tb = ir_node_attr_int(n, "transB", 0) != 0;
    int64_t nn = tb ? w->shape[0] : w->shape[1], kk = tb ? w->shape[1] : w->shape[0];
    if (n_sw != nn || kk != nm)
        return false;
    const float *wv = w->data;
    for (int64_t o = 0; o < nn; o++) {
        double acc = 0;
        for (int64_t j = 0; j < kk; j++) {
            float v = tb ? wv[o * kk + j] : wv[j * nn + o];
            double e = (double)quant_value(v, sw[o], 0, -127, 127) * sw[o] - v;
            acc += e * mean[j];
        }
        corr[o] = acc;
    }
    return true;
}
