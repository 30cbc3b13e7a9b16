/* Lowering a set of IR nodes into one TOSA graph, and the trial lowering of a single node
 * that the partitioner uses as its support check. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"
#include "lower/validate.h"

/* trial: the graph is only validated, then dropped (lower_ctx.trial). */
static tosac_code lower_nodes(const tosa_spec *spec, const ir_graph *g, const int *nodes,
                              int n_nodes, const int *inputs, int n_inputs, const int *outputs,
                              int n_outputs, bool trial, tosa_graph **out, tosac_error *err)
{
    *out = NULL;
    tosa_graph *tg = tosa_graph_new(spec->major, spec->minor);
    tosa_region *r = tg ? tosa_graph_add_region(tg, "main") : NULL;
    tosa_block *b = r ? tosa_region_add_block(r, "main") : NULL;
    if (!b) {
        tosa_graph_free(tg);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory starting a TOSA graph");
    }
    lower_ctx c;
    tosac_code rc = lower_ctx_init(&c, spec, g, b, err);
    c.trial = trial;
    int *in_idx = calloc((size_t)n_inputs + 1, sizeof *in_idx);
    int *out_idx = calloc((size_t)n_outputs + 1, sizeof *out_idx);
    if (!rc && (!in_idx || !out_idx))
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory lowering");
    for (int i = 0; !rc && i < n_inputs; i++)
        if ((in_idx[i] = lower_declare(&c, inputs[i])) < 0)
            rc = err->code;
    for (int i = 0; !rc && i < n_nodes; i++)
        rc = lower_node(&c, &g->nodes[nodes[i]]);
    for (int i = 0; !rc && i < n_outputs; i++) {
        int t = outputs[i] >= 0 && outputs[i] < c.n_tmap ? c.tmap[outputs[i]] : -1;
        if (t < 0)
            rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "lowering: output '%s' was not produced",
                            outputs[i] >= 0 && outputs[i] < g->n_tensors
                                ? g->tensors[outputs[i]].name : "?");
        out_idx[i] = t;
    }
    if (!rc)
        rc = tosa_block_set_io(b, in_idx, n_inputs, out_idx, n_outputs, err);
    if (!rc)
        rc = lower_cleanup(b, err);
    if (!rc && tosa_spec_is_u55_subset(spec))
        lower_u55_order(b);
    char reason[256];
    if (!rc && !tosa_validate_block(spec, b, reason, sizeof reason))
        rc = tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "%s", reason);
    lower_ctx_fini(&c);
    free(in_idx);
    free(out_idx);
    if (rc) {
        tosa_graph_free(tg);
        return rc ? rc : TOSAC_ERR_INTERNAL;
    }
    *out = tg;
    return TOSAC_OK;
}

tosac_code lower_subgraph(const tosa_spec *spec, const ir_graph *g, const int *nodes, int n_nodes,
                          const int *inputs, int n_inputs, const int *outputs, int n_outputs,
                          tosa_graph **out, tosac_error *err)
{
    return lower_nodes(spec, g, nodes, n_nodes, inputs, n_inputs, outputs, n_outputs, false, out,
                       err);
}

bool lower_trial_node(const tosa_spec *spec, const ir_graph *g, int node, char *reason,
                      size_t len)
{
    const ir_node *n = &g->nodes[node];
    int *ins = malloc(((size_t)n->n_inputs + 1) * sizeof *ins);
    int n_in = 0;
    tosac_error err;
    tosac_error_clear(&err);
    if (!ins) {
        snprintf(reason, len, "out of memory");
        return false;
    }
    for (int i = 0; i < n->n_inputs; i++) {
        int t = n->inputs[i];
        tosac_tensor cv;
        if (t < 0 || ir_graph_const_value(g, t, &cv))
            continue;
        bool dup = false;
        for (int k = 0; k < n_in; k++)
            dup |= ins[k] == t;
        if (!dup)
            ins[n_in++] = t;
    }
    int outs[16], n_out = 0;
    for (int i = 0; i < n->n_outputs && n_out < 16; i++)
        if (n->outputs[i] >= 0)
            outs[n_out++] = n->outputs[i];
    tosa_graph *tg = NULL;
    tosac_code rc = lower_nodes(spec, g, &node, 1, ins, n_in, outs, n_out, true, &tg, &err);
    free(ins);
    tosa_graph_free(tg);
    if (rc) {
        snprintf(reason, len, "%s", err.msg);
        return false;
    }
    if (reason && len)
        reason[0] = '\0';
    return true;
}
