/* Calibration: runs the float model with the CPU executor on every sample and records, per
 * tensor of the top-level graph, the min/max it took. The executor frees intermediate values
 * after their last use, so for the calibration runs every node output is made a graph output
 * (the model's own outputs stay first) and the original output list is restored afterwards.
 * Non-finite values are left out of the ranges, and the tensors that had them named in a
 * warning. */
#include "quant/quant_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_exec.h"

static void observe(quant_seen *s, const tosac_tensor *t)
{
    if (s->rank < 0) {
        s->rank = t->rank;
        memcpy(s->shape, t->shape, sizeof s->shape);
    }
    if (t->dtype != TOSAC_DT_F32)
        return;
    s->is_float = true;
    s->nonfinite += quant_range_observe(&s->range, (const float *)t->data, tosac_tensor_numel(t));
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
static tosac_code mark_outputs(ir_graph *g, tosac_error *err)
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

static tosac_code run_all(ir_model *m, const quant_calib *c, quant_seen *seen, tosac_error *err)
{
    ir_graph *g = m->graph;
    int64_t opset = ir_model_opset(m, "");
    cpu_plan *plan = NULL;
    tosac_code rc = cpu_plan_create(g, opset ? opset : 13, &plan, err);
    if (rc)
        return rc;
    int n_out = g->n_outputs;
    tosac_tensor *outs = calloc((size_t)n_out + 1, sizeof *outs);
    if (!outs)
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    for (int s = 0; s < c->n_samples && !rc; s++) {
        const tosac_tensor *ins = &c->tensors[(size_t)s * (size_t)c->n_inputs];
        for (int i = 0; i < c->n_inputs; i++)
            observe(&seen[g->inputs[i]], &ins[i]);
        rc = cpu_plan_run(plan, ins, c->n_inputs, outs, n_out, err);
        for (int o = 0; o < n_out && !rc; o++)
            observe(&seen[g->outputs[o]], &outs[o]);
        for (int o = 0; o < n_out && !rc; o++)
            tosac_tensor_free(&outs[o]);
    }
    free(outs);
    cpu_plan_free(plan);
    return rc;
}

tosac_code quant_calibrate(ir_model *m, const quant_calib *c, quant_seen *seen,
                           tosac_error *err)
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
        seen[t].rank = -1;
    }
    int saved = g->n_outputs;
    tosac_code rc = mark_outputs(g, err);
    if (!rc)
        rc = run_all(m, c, seen, err);
    g->n_outputs = saved;
    if (!rc)
        warn_nonfinite(g, seen);
    return rc;
}
