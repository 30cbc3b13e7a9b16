/* Error-compensating weight rounding (GPTQ: Frantar et al., "GPTQ: Accurate Post-Training
 * Quantization for Generative Pre-trained Transformers", 2022; the Optimal Brain Surgeon
 * update of LeCun/Hassibi applied one input column at a time). Rounding each weight to the
 * nearest step is optimal for the weights alone, not for the layer's output: with the input
 * covariance H = sum x x^T of a layer (measured on the calibration samples), the output error
 * of one output channel is e^T H e for the weight error e, and correlated inputs (the pixels of
 * a 3x3 window) let the error of one weight be cancelled by the next ones. Quantizing the
 * inputs in order and moving the not yet quantized weights by -e_i U[i, j] / U[i, i] (U the
 * upper Cholesky factor of H^-1) minimises that error greedily. The per-channel scales stay
 * max|w| / 127 of the float weights; the result is written back as the float weights q * s,
 * and the scales are recorded in seen[w].wscale, so quant_insert reproduces q exactly.
 * On mobilenet_v2 (random weights, a network that amplifies its first layers' error ~20 dB
 * on the way to the logits) it is the bulk of what int8 weights cost: bench/RESULTS.md. */
#include "quant/quant_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onnxop/onnxop_window.h"

/* One layer whose weights are rounded: a 2-D Conv (any group) or a Gemm with transA = 0. */
typedef struct wr_layer {
    int node, x, w;
    bool conv;
    int64_t oc, groups, icg, kh, kw, k; /* k = icg * kh * kw: one group's patch length */
    int64_t in_c, in_h, in_w, out_h, out_w, sh, sw, dh, dw, ph, pw;
    double *h; /* groups x k x k, upper triangles filled while accumulating */
} wr_layer;

typedef struct wr_pass {
    wr_layer *l;
    int n;
    double *patch;
} wr_pass;

/* Layer setup from node i, or false when node i is not one this step rounds. */
static bool wr_setup(const ir_graph *g, const quant_seen *seen, int n_seen, int i, wr_layer *l)
{
    const ir_node *n = &g->nodes[i];
    tosac_tensor w;
    memset(l, 0, sizeof *l);
    l->node = i;
    if (n->dead || n->n_inputs < 2 || n->inputs[0] < 0 || n->inputs[0] >= n_seen)
        return false;
    l->x = n->inputs[0];
    l->w = n->inputs[1];
    /* rewritten in place: an initializer read by this node alone */
    if (l->w < 0 || l->w >= n_seen || !quant_const_f32(g, l->w, &w) || !g->tensors[l->w].data ||
        ir_graph_consumers(g, l->w, NULL, 0) != 1 || ir_graph_is_output(g, l->w))
        return false;
    const quant_seen *sx = &seen[l->x];
    if (ir_node_is(n, "Conv")) {
        onnx_window win;
        tosac_error e = {0};
        int64_t in[2], ks[2], out[2], pb[2], pe[2];
        if (w.rank != 4 || sx->rank != 4 || onnx_window_parse(n, 2, &win, &e))
            return false;
        l->conv = true;
        l->oc = w.shape[0];
        l->icg = w.shape[1];
        l->kh = ks[0] = w.shape[2];
        l->kw = ks[1] = w.shape[3];
        l->groups = ir_node_attr_int(n, "group", 1);
        l->in_c = sx->shape[1];
        in[0] = l->in_h = sx->shape[2];
        in[1] = l->in_w = sx->shape[3];
        if (l->groups < 1 || l->oc % l->groups || l->icg * l->groups != l->in_c ||
            onnx_window_forward(n, &win, in, ks, out, pb, pe, &e))
            return false;
        l->out_h = out[0];
        l->out_w = out[1];
        l->sh = win.s[0];
        l->sw = win.s[1];
        l->dh = win.d[0];
        l->dw = win.d[1];
        l->ph = pb[0];
        l->pw = pb[1];
        l->k = l->icg * l->kh * l->kw;
    } else if (ir_node_is(n, "Gemm") && !ir_node_attr_int(n, "transA", 0)) {
        if (w.rank != 2 || sx->rank != 2)
            return false;
        bool tb = ir_node_attr_int(n, "transB", 0) != 0;
        l->oc = tb ? w.shape[0] : w.shape[1];
        l->k = tb ? w.shape[1] : w.shape[0];
        l->groups = 1;
        if (sx->shape[1] != l->k)
            return false;
    } else {
        return false;
    }
    /* k^3 work and groups * k^2 doubles: beyond 2048 inputs or 2^24 doubles (128 MB) the layer
     * rounds to nearest (k <= 2048 and groups <= 2^40 keep the product below 2^63) */
    return l->k >= 1 && l->k <= 2048 && l->oc >= 1 && l->groups * l->k * l->k <= ((int64_t)1 << 24);
}

static void add_outer(double *h, const double *p, int64_t k)
{
    for (int64_t a = 0; a < k; a++) {
        double pa = p[a];
        if (pa == 0.0)
            continue; /* ReLU outputs and padding: many zeros */
        double *row = h + a * k;
        for (int64_t b = a; b < k; b++)
            row[b] += pa * p[b];
    }
}

static void conv_patches(const wr_layer *l, const float *x, int64_t batch, double *p)
{
    for (int64_t nb = 0; nb < batch; nb++)
        for (int64_t gi = 0; gi < l->groups; gi++)
            for (int64_t oy = 0; oy < l->out_h; oy++)
                for (int64_t ox = 0; ox < l->out_w; ox++) {
                    int64_t e = 0;
                    for (int64_t c = 0; c < l->icg; c++) {
                        const float *plane = x + ((nb * l->in_c) + gi * l->icg + c) * l->in_h * l->in_w;
                        for (int64_t ky = 0; ky < l->kh; ky++) {
                            int64_t iy = oy * l->sh - l->ph + ky * l->dh;
                            for (int64_t kx = 0; kx < l->kw; kx++, e++) {
                                int64_t ix = ox * l->sw - l->pw + kx * l->dw;
                                float v = iy >= 0 && iy < l->in_h && ix >= 0 && ix < l->in_w
                                              ? plane[iy * l->in_w + ix] : 0.0f;
                                p[e] = isfinite(v) ? v : 0.0;
                            }
                        }
                    }
                    add_outer(l->h + gi * l->k * l->k, p, l->k);
                }
}

static void observe_cov(void *ctx, int tensor, const tosac_tensor *t)
{
    wr_pass *wp = ctx;
    if (t->dtype != TOSAC_DT_F32)
        return;
    for (int j = 0; j < wp->n; j++) {
        wr_layer *l = &wp->l[j];
        if (l->x != tensor)
            continue;
        if (l->conv && t->rank == 4 && t->shape[1] == l->in_c && t->shape[2] == l->in_h &&
            t->shape[3] == l->in_w) {
            conv_patches(l, t->data, t->shape[0], wp->patch);
        } else if (!l->conv && t->rank == 2 && t->shape[1] == l->k) {
            const float *x = t->data;
            for (int64_t r = 0; r < t->shape[0]; r++) {
                for (int64_t e = 0; e < l->k; e++)
                    wp->patch[e] = isfinite(x[r * l->k + e]) ? x[r * l->k + e] : 0.0;
                add_outer(l->h, wp->patch, l->k);
            }
        }
    }
}

/* In place: a (k x k, symmetric positive definite) -> its lower Cholesky factor L (a = L L^T);
 * false when a pivot is not positive. */
static bool cholesky(double *a, int64_t k)
{
    for (int64_t j = 0; j < k; j++) {
        double d = a[j * k + j];
        for (int64_t t = 0; t < j; t++)
            d -= a[j * k + t] * a[j * k + t];
        if (!(d > 0))
            return false;
        d = sqrt(d);
        a[j * k + j] = d;
        for (int64_t i = j + 1; i < k; i++) {
            double s = a[i * k + j];
            for (int64_t t = 0; t < j; t++)
                s -= a[i * k + t] * a[j * k + t];
            a[i * k + j] = s / d;
        }
        for (int64_t i = 0; i < j; i++)
            a[i * k + j] = 0.0;
    }
    return true;
}

bool quant_round_factor(double *h, int64_t k, double *work)
{
    /* symmetrise, drop dead inputs' zero rows, damp by 1% of the mean diagonal (as GPTQ) */
    double mean = 0;
    for (int64_t a = 0; a < k; a++) {
        for (int64_t b = 0; b < a; b++)
            h[a * k + b] = h[b * k + a];
        mean += h[a * k + a];
    }
    mean /= (double)k;
    if (!(mean > 0) || !isfinite(mean))
        return false;
    for (int64_t a = 0; a < k; a++)
        h[a * k + a] += h[a * k + a] > 0 ? 0.01 * mean : mean;
    /* U = R^-1 for H = R R^T with R upper (then H^-1 = U^T U): with P the order reversal,
     * P H P = L L^T (L lower), R = P L P and U = P L^-1 P, i.e. L^-1 with its elements in
     * reverse order. Row-wise loops: every inner loop runs over contiguous memory. */
    int64_t kk = k * k;
    for (int64_t e = 0; e < kk; e++)
        work[e] = h[kk - 1 - e];
    if (!cholesky(work, k))
        return false;
    memset(h, 0, (size_t)kk * sizeof *h);
    for (int64_t i = 0; i < k; i++) { /* row i of X = L^-1: (e_i - sum_t<i L[i,t] X[t,:]) / L[i,i] */
        double *x = h + i * k;
        x[i] = 1.0;
        for (int64_t t = 0; t < i; t++) {
            double l = work[i * k + t];
            const double *xt = h + t * k;
            for (int64_t c = 0; c <= t; c++)
                x[c] -= l * xt[c];
        }
        for (int64_t c = 0; c <= i; c++)
            x[c] /= work[i * k + i];
    }
    for (int64_t e = 0; e < kk / 2; e++) {
        double v = h[e];
        h[e] = h[kk - 1 - e];
        h[kk - 1 - e] = v;
    }
    return true;
}

void quant_round_row(const double *u, int64_t k, double *w, float scale, int8_t *q)
{
    for (int64_t i = 0; i < k; i++) {
        int64_t v = quant_value((float)w[i], scale, 0, -127, 127);
        q[i] = (int8_t)v;
        double e = (w[i] - (double)v * scale) / u[i * k + i];
        if (!isfinite(e))
            continue; /* a non-finite weight (rounded to 0) carries nothing */
        for (int64_t j = i + 1; j < k; j++)
            w[j] -= e * u[i * k + j];
    }
}

/* Rounds layer l's weights with its accumulated covariance; a group whose covariance has no
 * factor (nothing observed) rounds to nearest. */
static tosac_code wr_apply(ir_graph *g, quant_seen *seen, wr_layer *l, tosac_error *err)
{
    ir_tensor *wt = &g->tensors[l->w];
    float *wd = wt->data;
    int64_t k = l->k, oc = l->oc;
    bool tb = l->conv || ir_node_attr_int(&g->nodes[l->node], "transB", 0) != 0;
    float *sc = malloc((size_t)oc * sizeof *sc);
    double *work = malloc((size_t)(k * k) * sizeof *work), *row = malloc((size_t)k * sizeof *row);
    int8_t *q = malloc((size_t)k);
    if (!sc || !work || !row || !q) {
        free(sc);
        free(work);
        free(row);
        free(q);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    }
    /* the scales quant_insert would take: axis 0 ([oc, k]) or axis 1 of a [k, oc] Gemm B */
    if (tb)
        quant_weight_scales(wd, 1, oc, k, sc);
    else
        quant_weight_scales(wd, k, oc, 1, sc);
    for (int64_t gi = 0; gi < l->groups; gi++) {
        double *h = l->h + gi * k * k;
        if (!quant_round_factor(h, k, work)) { /* U = I: each weight to its nearest step */
            memset(h, 0, (size_t)(k * k) * sizeof *h);
            for (int64_t e = 0; e < k; e++)
                h[e * k + e] = 1.0;
        }
        int64_t per = oc / l->groups;
        for (int64_t o = gi * per; o < (gi + 1) * per; o++) {
            for (int64_t e = 0; e < k; e++)
                row[e] = tb ? wd[o * k + e] : wd[e * oc + o];
            quant_round_row(h, k, row, sc[o], q);
            for (int64_t e = 0; e < k; e++)
                *(tb ? &wd[o * k + e] : &wd[e * oc + o]) = (float)q[e] * sc[o];
        }
    }
    free(work);
    free(row);
    free(q);
    free(seen[l->w].wscale);
    seen[l->w].wscale = sc;
    seen[l->w].n_wscale = oc;
    return TOSAC_OK;
}

tosac_code quant_round_weights(ir_model *m, const quant_options *o, const quant_calib *c,
                               quant_seen *seen, int n_seen, const quant_plan *p,
                               tosac_error *err)
{
    ir_graph *g = m->graph;
    wr_pass wp = {calloc((size_t)g->n_nodes + 1, sizeof *wp.l), 0, NULL};
    if (!wp.l)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    tosac_code rc = TOSAC_OK;
    int64_t kmax = 1;
    for (int i = 0; i < g->n_nodes && !rc; i++) {
        wr_layer *l = &wp.l[wp.n];
        if (i >= p->n_nodes || !quant_plan_quantizes(p, g, i) || !wr_setup(g, seen, n_seen, i, l))
            continue;
        if (!(l->h = calloc((size_t)(l->groups * l->k * l->k), sizeof *l->h)))
            rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        kmax = l->k > kmax ? l->k : kmax;
        wp.n++;
    }
    if (!rc && wp.n && !(wp.patch = malloc((size_t)kmax * sizeof *wp.patch)))
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    if (!rc && wp.n)
        rc = quant_run_pass(m, o, "weights", c, observe_cov, &wp, err);
    for (int j = 0; j < wp.n && !rc; j++)
        rc = wr_apply(g, seen, &wp.l[j], err);
    for (int j = 0; j < wp.n; j++)
        free(wp.l[j].h);
    free(wp.l);
    free(wp.patch);
    return rc;
}
