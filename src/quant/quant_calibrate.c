/* Calibration: runs the float model with the CPU executor on every sample and records, per
 * tensor of the top-level graph, the min/max it took and the range of the chosen observer
 * (moving average in the same pass; the histogram methods in a second pass, the histograms
 * spanning the first pass's min/max). The executor frees intermediate values
 * after their last use, so for the calibration runs every node output is made a graph output
 * (the model's own outputs stay first) and the original output list is restored afterwards.
 * Non-finite values are left out of the ranges, and the tensors that had them named in a
 * warning. */
#include "quant/quant_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_exec.h"

/* Pass 1: shapes, min/max and the moving-average range of every float tensor. */
static void observe(void *ctx, int tensor, const tosac_tensor *t)
{
    quant_seen *s = &((quant_seen *)ctx)[tensor];
    if (s->rank < 0) {
        s->rank = t->rank;
        memcpy(s->shape, t->shape, sizeof s->shape);
    }
    if (t->dtype != TOSAC_DT_F32)
        return;
    s->is_float = true;
    s->nonfinite += quant_range_observe(&s->minmax, (const float *)t->data, tosac_tensor_numel(t));
    quant_ema_observe(&s->range, (const float *)t->data, tosac_tensor_numel(t));
}

typedef struct hist_pass {
    quant_hist **h; /* per tensor; NULL where none is needed */
} hist_pass;

/* Pass 2 of the histogram methods. */
static void observe_hist(void *ctx, int tensor, const tosac_tensor *t)
{
    quant_hist *h = ((hist_pass *)ctx)->h[tensor];
    if (h && t->dtype == TOSAC_DT_F32)
        quant_hist_observe(h, (const float *)t->data, tosac_tensor_numel(t));
}

/* NaN / inf values (a log of 0, an attention mask) are left out of ranges; say where. */
static void warn_nonfinite(const ir_graph *g, const quant_seen *seen)
{
    quant_names l = {0};
    for (int t = 0; t < g->n_tensors; t++) {
        char detail[64];
        if (!seen[t].nonfinite)
            continue;
        snprintf(detail, sizeof detail, "%lld value%s", (long long)seen[t].nonfinite,
                 seen[t].nonfinite == 1 ? "" : "s");
        quant_names_add(&l, g->tensors[t].name, detail);
    }
    quant_names_warn(&l, "non-finite values (NaN or inf)",
                     "; their ranges come from the finite values only");
}

/* Makes every node output (Constant nodes aside) a graph output for the calibration runs. */
tosac_code quant_mark_all_outputs(ir_graph *g, tosac_error *err)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (n->dead || ir_node_is(n, "Constant"))
            continue;
        for (int o = 0; o < n->n_outputs; o++) {
            int t = g->nodes[i].outputs[o];
            if (t >= 0 && !ir_graph_is_output(g, t)) {
                tosac_code rc = ir_graph_mark_output(g, t, err);
                if (rc)
                    return rc;
            }
        }
    }
    return TOSAC_OK;
}

tosac_code quant_run_pass(ir_model *m, const quant_options *o, const char *pass,
                          const quant_calib *c, quant_visit_fn visit, void *ctx,
                          tosac_error *err)
{
    return quant_run_pass_deep(m, o, pass, c, visit, ctx, NULL, NULL, err);
}

tosac_code quant_run_pass_deep(ir_model *m, const quant_options *o, const char *pass,
                               const quant_calib *c, quant_visit_fn visit, void *ctx,
                               cpu_observer body_fn, void *body_ctx, tosac_error *err)
{
    ir_graph *g = m->graph;
    int saved = g->n_outputs;
    tosac_code rc = quant_mark_all_outputs(g, err);
    int64_t opset = ir_model_opset(m, "");
    cpu_plan *plan = NULL;
    if (!rc)
        rc = cpu_plan_create(g, opset ? opset : 13, &plan, err);
    if (!rc && body_fn)
        cpu_plan_set_body_observer(plan, body_fn, body_ctx);
    int n_out = g->n_outputs;
    tosac_tensor *outs = rc ? NULL : calloc((size_t)n_out + 1, sizeof *outs);
    if (!rc && !outs)
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    if (!rc && o && o->progress)
        o->progress(o->progress_ctx, pass, 0, c->n_samples);
    for (int s = 0; s < c->n_samples && !rc; s++) {
        const tosac_tensor *ins = &c->tensors[(size_t)s * (size_t)c->n_inputs];
        for (int i = 0; i < c->n_inputs; i++)
            visit(ctx, g->inputs[i], &ins[i]);
        rc = cpu_plan_run(plan, ins, c->n_inputs, outs, n_out, err);
        for (int o = 0; o < n_out && !rc; o++)
            visit(ctx, g->outputs[o], &outs[o]);
        for (int o = 0; o < n_out && !rc; o++)
            tosac_tensor_free(&outs[o]);
        if (!rc && o && o->progress)
            o->progress(o->progress_ctx, pass, s + 1, c->n_samples);
    }
    free(outs);
    cpu_plan_free(plan);
    g->n_outputs = saved;
    return rc;
}

static bool uses_histogram(quant_calib_method m)
{
    return m == QUANT_CALIB_PERCENTILE || m == QUANT_CALIB_MSE || m == QUANT_CALIB_ENTROPY;
}

/* The method's range of every float tensor from its histogram (a second pass). */
static tosac_code histogram_ranges(ir_model *m, const quant_options *o, quant_calib_method method,
                                   const quant_calib *c, quant_seen *seen, tosac_error *err)
{
    int nt = m->graph->n_tensors;
    hist_pass hp = {calloc((size_t)nt + 1, sizeof *hp.h)};
    tosac_code rc = hp.h ? TOSAC_OK : tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    for (int t = 0; t < nt && !rc; t++) {
        /* a constant tensor keeps its one value exact (and named as degenerate by the plan) */
        if (!seen[t].is_float || !seen[t].minmax.seen || seen[t].minmax.lo == seen[t].minmax.hi)
            continue;
        if (!(hp.h[t] = malloc(sizeof *hp.h[t])))
            rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        else if (!quant_hist_init(hp.h[t], &seen[t].minmax)) {
            free(hp.h[t]);
            hp.h[t] = NULL;
        }
    }
    if (!rc)
        rc = quant_run_pass(m, o, "histograms", c, observe_hist, &hp, err);
    double pct = o && o->percentile > 0 ? o->percentile : QUANT_PERCENTILE_DEFAULT;
    quant_scheme s = o ? o->scheme : QUANT_A8W8;
    for (int t = 0; t < nt && !rc; t++) {
        quant_hist *h = hp.h[t];
        if (!h)
            continue;
        if (method == QUANT_CALIB_PERCENTILE)
            quant_hist_percentile(h, pct, &seen[t].range);
        else if (method == QUANT_CALIB_MSE)
            quant_hist_mse(h, s, &seen[t].range);
        else
            quant_hist_entropy(h, s, &seen[t].range);
    }
    for (int t = 0; hp.h && t < nt; t++)
        free(hp.h[t]);
    free(hp.h);
    return rc;
}

tosac_code quant_calibrate(ir_model *m, const quant_options *o, const quant_calib *c,
                           quant_seen *seen, tosac_error *err)
{
    ir_graph *g = m->graph;
    if (c->n_samples < 1)
        return tosac_fail(err, TOSAC_ERR_INPUT, "no calibration samples given");
    if (c->n_inputs != g->n_inputs)
        return tosac_fail(err, TOSAC_ERR_INPUT,
                          "calibration samples have %d inputs, the model has %d", c->n_inputs,
                          g->n_inputs);
    for (int t = 0; t < g->n_tensors; t++) {
        memset(&seen[t], 0, sizeof seen[t]);
        quant_range_init(&seen[t].range);
        quant_range_init(&seen[t].minmax);
        seen[t].rank = -1;
    }
    quant_calib_method method = o ? o->method : QUANT_CALIB_DEFAULT;
    if (method == QUANT_CALIB_DEFAULT)
        method = QUANT_CALIB_DEFAULT_IS;
    tosac_code rc = quant_run_pass(m, o, "calibration", c, observe, seen, err);
    if (!rc)
        warn_nonfinite(g, seen);
    /* the moving average is in .range already; min/max and the histograms replace it */
    for (int t = 0; !rc && method == QUANT_CALIB_MINMAX && t < g->n_tensors; t++)
        seen[t].range = seen[t].minmax;
    if (!rc && uses_histogram(method)) {
        for (int t = 0; t < g->n_tensors; t++)
            seen[t].range = seen[t].minmax;
        rc = histogram_ranges(m, o, method, c, seen, err);
    }
    return rc;
}
