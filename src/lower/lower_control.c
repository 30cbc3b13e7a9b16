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
    for (int d = 0; d < cond->rank; d++)
        if (cond->shape[d] != 1)
            return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED,
                              "If: the condition '%s' is not one element", cond->name);
    for (int b = 0; b < 2; b++) {
        if (br[b]->n_inputs != 0)
            return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "If: %s takes inputs",
                              attr_names[b]);
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

/* ---- Loop -> WHILE_LOOP ---- */
/* The loop-carried list of the WHILE_LOOP (its inputs, outputs and both blocks' inputs):
 * [iter (int32, when there is a trip count)], cond, the Loop's carried values, the body's
 * captures. The cond block computes iter < M && cond, the body block runs the ONNX body and
 * gives iter + 1 and the captures back unchanged: the CPU executor's loop, bit for bit
 * (its cond_in is true on every iteration that runs, as is the carried cond here). */
typedef struct loop_plan {
    const ir_graph *body;
    int nv, n_caps, *caps;
    bool use_m, int_cmp;
    int64_t m;
    int cond_rank;                 /* the counter takes the condition's shape */
    int64_t cond_shape[TOSAC_MAX_RANK];
    int nl;                        /* entries of the list */
} loop_plan;

static tosac_code loop_check(lower_ctx *c, const ir_node *n, loop_plan *lp)
{
    const ir_graph *body = lp->body = body_attr(n, "body");
    lp->nv = n->n_inputs - 2;
    if (!body || lp->nv < 0 || body->n_inputs != 2 + lp->nv || body->n_outputs < 1 + lp->nv)
        return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED,
                          "Loop: the body's inputs and outputs do not match the node's");
    int n_scan = body->n_outputs - 1 - lp->nv;
    if (n_scan > 0)
        return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED,
                          "Loop: %d scan output%s (values stacked over the iterations) have no "
                          "WHILE_LOOP form: a WHILE_LOOP's outputs keep the types of its inputs",
                          n_scan, n_scan > 1 ? "s" : "");
    if (n->n_outputs != lp->nv)
        return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED,
                          "Loop: the body's inputs and outputs do not match the node's");
    for (int k = 0; k < lp->nv; k++) {
        const ir_tensor *init = lower_in_ir(c, n, 2 + k), *fin = lower_out_ir(c, n, k);
        const ir_tensor *vin = &body->tensors[body->inputs[2 + k]];
        const ir_tensor *vout = &body->tensors[body->outputs[1 + k]];
        if (!init || !fin || !same_type(init, vin) || !same_type(init, vout) ||
            !same_type(init, fin))
            return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED,
                              "Loop: loop-carried value %d ('%s') changes type or shape between "
                              "iterations; a WHILE_LOOP carries values of one static type",
                              k, vin->name);
    }
    int iter = body->inputs[0];
    if (ir_graph_consumers(body, iter, NULL, 0) > 0 || ir_graph_is_output(body, iter))
        return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED,
                          "Loop: the body reads its int64 iteration number '%s'; tosac lowers "
                          "only bodies that ignore it", body->tensors[iter].name);
    const ir_tensor *cin = &body->tensors[body->inputs[1]];
    const ir_tensor *cout = &body->tensors[body->outputs[0]];
    const ir_tensor *c0 = n->inputs[1] >= 0 ? lower_in_ir(c, n, 1) : cout;
    if (cout->dtype != TOSAC_DT_BOOL || !same_type(cin, cout) || !c0 || !same_type(c0, cout))
        return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED,
                          "Loop: the condition changes type or shape between the node and its "
                          "body; a WHILE_LOOP carries it as one bool value");
    for (int d = 0; d < cout->rank; d++)
        if (cout->shape[d] != 1)
            return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED,
                              "Loop: the condition '%s' is not one element", cout->name);
    lp->cond_rank = cout->rank;
    memcpy(lp->cond_shape, cout->shape, sizeof lp->cond_shape);
    lp->int_cmp = (tosa_spec_features(c->spec) & TOSA_FEAT_INT) != 0;
    bool has_cond = n->inputs[1] >= 0;
    if (n->inputs[0] >= 0) {
        tosac_tensor mv;
        if (!lower_in_const(c, n, 0, &mv) || tosac_tensor_numel(&mv) != 1)
            return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED,
                              "Loop: its trip count M is not a constant; the WHILE_LOOP's int32 "
                              "counter is compared with a constant trip count");
        lp->m = tosac_tensor_int_at(&mv, 0);
        if (lp->m < 0)
            lp->m = 0;
        /* an int32 counter never reaches a trip count beyond int32 before 2^31 iterations,
         * so with a condition the trip count is left out (the CPU's loop would not end
         * either); without one there is nothing to stop the loop */
        lp->use_m = lp->m <= INT32_MAX;
        if (!lp->use_m && !has_cond)
            return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED,
                              "Loop: its trip count M = %lld is not within int32 and there is no "
                              "condition; the WHILE_LOOP's int32 counter cannot count it",
                              (long long)lp->m);
        if (lp->use_m && !lp->int_cmp && lp->m > (INT64_C(1) << 24))
            return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED,
                              "Loop: its trip count M = %lld is beyond 2^24; without PRO-INT the "
                              "counter is compared as float32, exact only up to 2^24",
                              (long long)lp->m);
    } else if (!has_cond) {
        return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "Loop: without M or cond it never ends");
    }
    lp->n_caps = lower_node_captures(c->g, n, NULL, 0);
    lp->nl = (lp->use_m ? 1 : 0) + 1 + lp->nv + lp->n_caps;
    return TOSAC_OK;
}

static int tmp_like(lower_ctx *c, const char *name, const ir_tensor *t)
{
    return lower_tmp(c, name, t->dtype, t->rank, t->shape);
}

/* A constant of the condition's shape (one element) holding v as dt. */
static int cond_shaped(lower_ctx *c, const loop_plan *lp, const char *name, tosac_dtype dt,
                       int64_t v)
{
    int32_t i = (int32_t)v;
    float f = (float)v;
    uint8_t b = v != 0;
    const void *d = dt == TOSAC_DT_I32 ? (const void *)&i : dt == TOSAC_DT_F32 ? (const void *)&f
                                                                               : (const void *)&b;
    return lower_const(c, name, dt, lp->cond_rank, lp->cond_shape, d);
}

/* cond block: go = (iter < M) && cond, or cond alone. */
static tosac_code loop_cond_block(lower_ctx *c, const ir_node *n, const loop_plan *lp,
                                  const int *list_types, char *name, size_t len)
{
    lower_body bd;
    tosac_code rc = lower_body_begin(c, lp->body, n, "cond", &bd);
    if (rc)
        return rc;
    snprintf(name, len, "%s", bd.name);
    int *ins = malloc(((size_t)lp->nl + 1) * sizeof *ins), go = -1;
    if (!ins)
        rc = tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory lowering Loop");
    /* the list's types, from the calling block's operands */
    for (int k = 0; !rc && k < lp->nl; k++) {
        const tosa_tensor *t = &c->b->tensors[list_types[k]];
        if ((ins[k] = lower_tmp(&bd.c, t->name, t->dtype, t->rank, t->shape)) < 0)
            rc = c->err->code ? c->err->code : TOSAC_ERR_INTERNAL;
    }
    int cond = lp->use_m ? 1 : 0;
    go = rc ? -1 : ins[cond];
    if (!rc && lp->use_m) {
        int iter = ins[0], mt;
        if (lp->int_cmp) {
            mt = cond_shaped(&bd.c, lp, "trip_count", TOSAC_DT_I32, lp->m);
        } else { /* PRO-FP only: GREATER has no int32 form; exact up to 2^24 */
            mt = cond_shaped(&bd.c, lp, "trip_count", TOSAC_DT_F32, lp->m);
            int itf = lower_tmp(&bd.c, "iter_f32", TOSAC_DT_F32, lp->cond_rank, lp->cond_shape);
            rc = itf < 0 ? c->err->code : lower_emit(&bd.c, TOSA_OP_CAST, NULL, &iter, 1, &itf, 1);
            iter = itf;
        }
        int below = lower_tmp(&bd.c, "below_trip_count", TOSAC_DT_BOOL, lp->cond_rank,
                              lp->cond_shape);
        go = lower_tmp(&bd.c, "go", TOSAC_DT_BOOL, lp->cond_rank, lp->cond_shape);
        int gin[2] = {mt, iter}, ain[2] = {below, ins[cond]};
        if (!rc && (mt < 0 || below < 0 || go < 0))
            rc = c->err->code ? c->err->code : TOSAC_ERR_INTERNAL;
        if (!rc)
            rc = lower_emit(&bd.c, TOSA_OP_GREATER, NULL, gin, 2, &below, 1);
        if (!rc)
            rc = lower_emit(&bd.c, TOSA_OP_LOGICAL_AND, NULL, ain, 2, &go, 1);
    }
    if (rc)
        lower_body_abort(&bd);
    else
        rc = lower_body_end(c, &bd, ins, lp->nl, &go, 1);
    free(ins);
    return rc;
}

/* body block: the ONNX body, then iter + 1 and the captures passed on. */
static tosac_code loop_body_block(lower_ctx *c, const ir_node *n, const loop_plan *lp,
                                  char *name, size_t len)
{
    lower_body bd;
    tosac_code rc = lower_body_begin(c, lp->body, n, "body", &bd);
    if (rc)
        return rc;
    snprintf(name, len, "%s", bd.name);
    const ir_graph *body = lp->body;
    int *ins = malloc(((size_t)lp->nl + 1) * sizeof *ins);
    int *outs = malloc(((size_t)lp->nl + 1) * sizeof *outs);
    int p = 0;
    if (!ins || !outs)
        rc = tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory lowering Loop");
    if (!rc && lp->use_m && (ins[p++] = lower_tmp(&bd.c, "iter", TOSAC_DT_I32, lp->cond_rank,
                                                  lp->cond_shape)) < 0)
        rc = c->err->code;
    for (int k = 0; !rc && k < 1 + lp->nv; k++)
        if ((ins[p++] = lower_declare(&bd.c, body->inputs[1 + k])) < 0)
            rc = c->err->code;
    if (!rc)
        rc = declare_captures(c, &bd, lp->caps, lp->n_caps, ins + p);
    if (!rc)
        rc = lower_body_nodes(&bd);
    p = 0;
    if (!rc && lp->use_m) {
        int one = cond_shaped(&bd.c, lp, "one", TOSAC_DT_I32, 1);
        int next = lower_tmp(&bd.c, "iter_next", TOSAC_DT_I32, lp->cond_rank, lp->cond_shape);
        int ain[2] = {ins[0], one};
        rc = one < 0 || next < 0 ? c->err->code
                                 : lower_emit(&bd.c, TOSA_OP_ADD, NULL, ain, 2, &next, 1);
        outs[p++] = next;
    }
    if (!rc)
        rc = body_outputs(&bd, 0, 1 + lp->nv, outs + p);
    for (int k = 0; !rc && k < lp->n_caps; k++)
        outs[p + 1 + lp->nv + k] = ins[p + 1 + lp->nv + k];
    if (rc)
        lower_body_abort(&bd);
    else
        rc = lower_body_end(c, &bd, ins, lp->nl, outs, lp->nl);
    free(ins);
    free(outs);
    return rc;
}

static tosac_code lower_loop(lower_ctx *c, const ir_node *n)
{
    tosac_code rc = need_cf(c, "WHILE_LOOP");
    loop_plan lp;
    memset(&lp, 0, sizeof lp);
    if (!rc)
        rc = loop_check(c, n, &lp);
    if (rc)
        return rc;
    size_t slots = (size_t)lp.nl + 1;
    lp.caps = malloc(((size_t)lp.n_caps + 1) * sizeof *lp.caps);
    int *ops = malloc(slots * sizeof *ops), *outs = malloc(slots * sizeof *outs);
    if (!lp.caps || !ops || !outs)
        rc = tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory lowering Loop");
    if (!rc)
        lower_node_captures(c->g, n, lp.caps, lp.n_caps);
    int p = 0;
    const ir_tensor *cond_t = &lp.body->tensors[lp.body->outputs[0]];
    if (!rc && lp.use_m) {
        ops[p] = cond_shaped(c, &lp, "iter0", TOSAC_DT_I32, 0);
        outs[p++] = lower_tmp(c, "iter", TOSAC_DT_I32, lp.cond_rank, lp.cond_shape);
    }
    if (!rc) {
        ops[p] = n->inputs[1] >= 0 ? lower_in(c, n, 1)
                                   : cond_shaped(c, &lp, "cond0", TOSAC_DT_BOOL, 1);
        outs[p++] = tmp_like(c, "cond", cond_t);
    }
    for (int k = 0; !rc && k < lp.nv; k++, p++) {
        ops[p] = lower_in(c, n, 2 + k);
        outs[p] = lower_out(c, n, k);
    }
    for (int k = 0; !rc && k < lp.n_caps; k++, p++) {
        ops[p] = lower_tensor(c, lp.caps[k]);
        outs[p] = tmp_like(c, c->g->tensors[lp.caps[k]].name, &c->g->tensors[lp.caps[k]]);
    }
    for (int k = 0; !rc && k < lp.nl; k++)
        if (ops[k] < 0 || outs[k] < 0)
            rc = c->err->code ? c->err->code : TOSAC_ERR_INTERNAL;
    char cname[256], bname[256];
    if (!rc)
        rc = loop_cond_block(c, n, &lp, ops, cname, sizeof cname);
    if (!rc)
        rc = loop_body_block(c, n, &lp, bname, sizeof bname);
    if (!rc) {
        tosa_attr at;
        memset(&at, 0, sizeof at);
        at.cond_graph = cname;
        at.body_graph = bname;
        rc = lower_emit(c, TOSA_OP_WHILE_LOOP, &at, ops, lp.nl, outs, lp.nl);
    }
    free(lp.caps);
    free(ops);
    free(outs);
    return rc;
}

const lower_rule lower_rules_control[] = {
    /* no table preconditions: the rules check their bodies and carried values themselves */
    {IR_DOMAIN_ONNX, "Loop", lower_loop, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {IR_DOMAIN_ONNX, "If", lower_if, LOWER_PRE_NONE, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
