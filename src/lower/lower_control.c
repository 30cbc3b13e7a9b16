/* Control flow (EXT-CONTROLFLOW, "+cf"): ONNX If as COND_IF and ONNX Loop as WHILE_LOOP.
 *
 * A TOSA body sees only its block inputs, so every tensor an ONNX body captures from the
 * outer scope becomes an explicit operand (constants too: a CONST of the calling block). Both
 * COND_IF branches take the same input list, so a capture only one branch has is a stand-in
 * input of the other. The bodies are lowered by the rules of their nodes into blocks of their
 * own (lower_body_*); a body node without a legal form keeps the whole If/Loop on the CPU,
 * where the CPU executor runs it as before. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"

static const ir_graph *body_attr(const ir_node *n, const char *name)
{
    const ir_attr *a = ir_node_attr(n, name);
    return a && a->kind == IR_ATTR_GRAPH ? a->g : NULL;
}

/* The validator's words (partition_reason.c turns them into "If: control flow need +cf"). */
static tosac_code need_cf(lower_ctx *c, const char *tosa_name)
{
    if (tosa_spec_has_ext(c->spec, TOSA_EXT_CONTROLFLOW))
        return TOSAC_OK;
    return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "%s:  needs EXT-CONTROLFLOW", tosa_name);
}

static bool same_type(const ir_tensor *a, const ir_tensor *b)
{
    if (a->dtype != b->dtype || a->rank != b->rank)
        return false;
    for (int d = 0; d < a->rank; d++)
        if (a->shape[d] != b->shape[d])
            return false;
    return true;
}

/* The tensor of body sub capturing parent tensor id, -1 when sub does not capture it. */
static int local_capture(const ir_graph *sub, int id)
{
    for (int t = 0; t < sub->n_tensors; t++)
        if (sub->tensors[t].outer_id == id)
            return t;
    return -1;
}

/* Declares block inputs for caps[0..n) (parent tensor ids) in body bd: the body's capture
 * tensor, or a stand-in of the same type when the body does not read it. */
static tosac_code declare_captures(lower_ctx *c, lower_body *bd, const int *caps, int n,
                                   int *ins)
{
    for (int k = 0; k < n; k++) {
        int local = local_capture(bd->c.g, caps[k]);
        const ir_tensor *t = &c->g->tensors[caps[k]];
        ins[k] = local >= 0 ? lower_declare(&bd->c, local)
                            : lower_tmp(&bd->c, t->name, t->dtype, t->rank, t->shape);
        if (ins[k] < 0)
            return c->err->code ? c->err->code : TOSAC_ERR_INTERNAL;
    }
    return TOSAC_OK;
}

/* The block tensors of the body's graph outputs [first, first + n). */
static tosac_code body_outputs(lower_body *bd, int first, int n, int *outs)
{
    for (int o = 0; o < n; o++)
        if ((outs[o] = lower_tensor(&bd->c, bd->c.g->outputs[first + o])) < 0)
            return bd->c.err->code ? bd->c.err->code : TOSAC_ERR_INTERNAL;
    return TOSAC_OK;
}

/* ---- If -> COND_IF ---- */

static tosac_code lower_if(lower_ctx *c, const ir_node *n)
{
    tosac_code rc = need_cf(c, "COND_IF");
    if (rc)
        return rc;
    const char *attr_names[2] = {"then_branch", "else_branch"}, *what[2] = {"then", "else"};
    const ir_graph *br[2] = {body_attr(n, attr_names[0]), body_attr(n, attr_names[1])};
    if (!br[0] || !br[1])
        return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "If without both branches");
    const ir_tensor *cond = lower_in_ir(c, n, 0);
    if (!cond || cond->dtype != TOSAC_DT_BOOL)
        return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "If: the condition is not a bool tensor");
    for (int b = 0; b < 2; b++) {
        if (br[b]->n_outputs != n->n_outputs)
            return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED,
                              "If: %s has %d outputs, the If %d", attr_names[b],
                              br[b]->n_outputs, n->n_outputs);
        for (int o = 0; o < n->n_outputs; o++) {
            const ir_tensor *want = lower_out_ir(c, n, o);
            const ir_tensor *have = &br[b]->tensors[br[b]->outputs[o]];
            if (!want || !same_type(want, have))
                return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED,
                                  "If: output %d of %s ('%s') differs in type or shape from "
                                  "the If's ('%s'); COND_IF needs both branches to give the "
                                  "outputs' one static type",
                                  o, attr_names[b], have->name, want ? want->name : "?");
        }
    }
    int n_caps = lower_node_captures(c->g, n, NULL, 0);
    size_t slots = (size_t)n_caps + (size_t)n->n_outputs + 2;
    int *caps = malloc(slots * sizeof *caps), *ops = malloc(slots * sizeof *ops);
    int *bins = malloc(slots * sizeof *bins), *bouts = malloc(slots * sizeof *bouts);
    char names[2][sizeof ((lower_body *)0)->name];
    if (!caps || !ops || !bins || !bouts)
        rc = tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory lowering If");
    if (!rc) {
        lower_node_captures(c->g, n, caps, n_caps);
        ops[0] = lower_in(c, n, 0);
        if (ops[0] < 0)
            rc = c->err->code ? c->err->code : TOSAC_ERR_INTERNAL;
    }
    for (int k = 0; !rc && k < n_caps; k++)
        if ((ops[1 + k] = lower_tensor(c, caps[k])) < 0)
            rc = c->err->code ? c->err->code : TOSAC_ERR_INTERNAL;
    for (int b = 0; !rc && b < 2; b++) {
        lower_body bd;
        rc = lower_body_begin(c, br[b], n, what[b], &bd);
        if (rc)
            break;
        snprintf(names[b], sizeof names[b], "%s", bd.name);
        rc = declare_captures(c, &bd, caps, n_caps, bins);
        if (!rc)
            rc = lower_body_nodes(&bd);
        if (!rc)
            rc = body_outputs(&bd, 0, n->n_outputs, bouts);
        if (rc)
            lower_body_abort(&bd);
        else
            rc = lower_body_end(c, &bd, bins, n_caps, bouts, n->n_outputs);
    }
    for (int o = 0; !rc && o < n->n_outputs; o++)
        if ((bouts[o] = lower_out(c, n, o)) < 0)
            rc = c->err->code ? c->err->code : TOSAC_ERR_INTERNAL;
    if (!rc) {
        tosa_attr at;
        memset(&at, 0, sizeof at);
        at.then_graph = names[0];
        at.else_graph = names[1];
        rc = lower_emit(c, TOSA_OP_COND_IF, &at, ops, 1 + n_caps, bouts, n->n_outputs);
    }
    free(caps);
    free(ops);
    free(bins);
    free(bouts);
    return rc;
}

const lower_rule lower_rules_control[] = {
    {IR_DOMAIN_ONNX, "If", lower_if},
    {NULL, NULL, NULL},
};
