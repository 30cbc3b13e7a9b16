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
    /* the bodies the main block's COND_IF / WHILE_LOOP call follow it in region 0 (validated
     * when they were made); b moves with the region's blocks */
    if (!rc && c.pending)
        rc = tosa_region_take_blocks(r, &c.pending->regions[0], err);
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

int lower_node_captures(const ir_graph *g, const ir_node *n, int *ids, int cap)
{
    int cnt = 0;
    const ir_graph *sub;
    for (int k = 0; (sub = ir_node_subgraph(n, k)); k++)
        for (int t = 0; t < sub->n_tensors; t++) {
            int o = sub->tensors[t].outer_id;
            if (o < 0 || o >= g->n_tensors)
                continue;
            /* counted once: at its first capture over the bodies (ids may be NULL) */
            bool dup = false;
            const ir_graph *prev;
            for (int j = 0; j <= k && !dup && (prev = ir_node_subgraph(n, j)); j++)
                for (int u = 0; u < (j < k ? prev->n_tensors : t) && !dup; u++)
                    dup = prev->tensors[u].outer_id == o;
            if (dup)
                continue;
            if (cnt < cap)
                ids[cnt] = o;
            cnt++;
        }
    return cnt;
}

/* True when region 0 of pending (NULL: none) or the main block has a block named name. */
static bool block_taken(const tosa_graph *pending, const char *name)
{
    if (strcmp(name, "main") == 0)
        return true;
    for (int i = 0; pending && i < pending->regions[0].n_blocks; i++)
        if (strcmp(pending->regions[0].blocks[i].name, name) == 0)
            return true;
    return false;
}

tosac_code lower_body_begin(lower_ctx *parent, const ir_graph *sub, const ir_node *n,
                            const char *what, lower_body *bd)
{
    memset(bd, 0, sizeof *bd);
    char base[200];
    bool top = strcmp(parent->block_name, "main") == 0;
    snprintf(base, sizeof base, "%s%s%s_%s", top ? "" : parent->block_name, top ? "" : "_",
             n->name && *n->name ? n->name : n->op_type, what);
    snprintf(bd->name, sizeof bd->name, "%s", base);
    for (int k = 1; block_taken(parent->pending, bd->name); k++)
        snprintf(bd->name, sizeof bd->name, "%s_%d", base, k);
    bd->tg = tosa_graph_new(parent->spec->major, parent->spec->minor);
    tosa_region *r = bd->tg ? tosa_graph_add_region(bd->tg, "main") : NULL;
    tosa_block *b = r ? tosa_region_add_block(r, bd->name) : NULL;
    if (!b) {
        tosa_graph_free(bd->tg);
        bd->tg = NULL;
        return tosac_fail(parent->err, TOSAC_ERR_INTERNAL, "out of memory starting a body");
    }
    tosac_code rc = lower_ctx_init(&bd->c, parent->spec, sub, b, parent->err);
    bd->c.block_name = bd->name;
    if (rc)
        lower_body_abort(bd);
    return rc;
}

tosac_code lower_body_nodes(lower_body *bd)
{
    const ir_graph *g = bd->c.g;
    int *order = malloc(((size_t)g->n_nodes + 1) * sizeof *order), n_order = 0;
    if (!order)
        return tosac_fail(bd->c.err, TOSAC_ERR_INTERNAL, "out of memory lowering a body");
    tosac_code rc = ir_graph_topo_order(g, order, &n_order, bd->c.err);
    for (int i = 0; !rc && i < n_order; i++)
        if (!g->nodes[order[i]].dead)
            rc = lower_node(&bd->c, &g->nodes[order[i]]);
    free(order);
    return rc;
}

void lower_body_abort(lower_body *bd)
{
    if (bd->tg)
        lower_ctx_fini(&bd->c);
    tosa_graph_free(bd->tg);
    bd->tg = NULL;
}

tosac_code lower_body_end(lower_ctx *parent, lower_body *bd, const int *ins, int n_in,
                          const int *outs, int n_out)
{
    tosac_error *err = parent->err;
    tosa_block *b = bd->c.b;
    tosac_code rc = tosa_block_set_io(b, ins, n_in, outs, n_out, err);
    if (!rc)
        rc = lower_cleanup(b, err);
    char reason[256];
    if (!rc && !tosa_validate_block(parent->spec, b, reason, sizeof reason))
        rc = tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "%s", reason);
    if (!rc && !parent->pending) {
        parent->pending = tosa_graph_new(parent->spec->major, parent->spec->minor);
        if (!parent->pending || !tosa_graph_add_region(parent->pending, "pending"))
            rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory lowering a body");
    }
    tosa_region *dst = rc ? NULL : &parent->pending->regions[0];
    for (int i = 0; !rc && bd->c.pending && i < bd->c.pending->regions[0].n_blocks; i++)
        if (block_taken(parent->pending, bd->c.pending->regions[0].blocks[i].name))
            rc = tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "two bodies would be named '%s'",
                            bd->c.pending->regions[0].blocks[i].name);
    if (!rc)
        rc = tosa_region_take_blocks(dst, &bd->tg->regions[0], err);
    if (!rc && bd->c.pending)
        rc = tosa_region_take_blocks(dst, &bd->c.pending->regions[0], err);
    lower_body_abort(bd);
    return rc;
}

bool lower_trial_node(const tosa_spec *spec, const ir_graph *g, int node, char *reason,
                      size_t len)
{
    const ir_node *n = &g->nodes[node];
    int n_caps = lower_node_captures(g, n, NULL, 0);
    int *ins = malloc(((size_t)n->n_inputs + (size_t)n_caps + 1) * sizeof *ins);
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
    /* what its bodies capture is read too (COND_IF / WHILE_LOOP operands) */
    int *caps = ins + n_in;
    lower_node_captures(g, n, caps, n_caps);
    for (int i = 0; i < n_caps; i++) {
        tosac_tensor cv;
        bool dup = ir_graph_const_value(g, caps[i], &cv);
        for (int k = 0; k < n_in && !dup; k++)
            dup = ins[k] == caps[i];
        if (!dup)
            ins[n_in++] = caps[i];
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
