/* The quantizer inside If/Loop bodies. The CPU executor runs the bodies during calibration
 * (cpu_plan_set_body_observer), so every body tensor gets a min/max (a Loop body's over every
 * iteration). Each body then gets a plan of its own (quant_plan.c's rules; --exclude, --int16,
 * bias correction, weight rounding and the sensitivity step are the top-level graph's only;
 * the bodies of an If/Loop kept float by --exclude stay float) whose edges take the
 * enclosing graph's parameters:
 *   - a capture, or a Loop body's carried input, alone in its shared-range group takes the
 *     outer value's parameters and no Q/DQ of its own (the outer DQ, moved into the body by
 *     pass_qdq_bodies.c, is its quantization); in a larger group it keeps its own, and the
 *     boundary becomes a requantization (one RESCALE);
 *   - an If branch's output and a Loop body's carried output take the If/Loop output's
 *     parameters (one set: the If output's range covers whichever branch ran, a Loop output's
 *     was merged with every iteration's carried values), through one more Q/DQ pair when the
 *     output shares a group with other body tensors.
 * So every COND_IF / WHILE_LOOP edge is an integer of one scale once the boundary Q/DQ are
 * moved across it (pass_qdq_bodies.c) and folded (pass_fold_qdq.c, in bodies too). */
#include "quant/quant_internal.h"

#include <stdlib.h>
#include <string.h>

static bool control_node(const ir_node *n)
{
    return !n->dead && (ir_node_is(n, "If") || ir_node_is(n, "Loop"));
}

static tosac_code collect(ir_graph *g, int parent, quant_bodies *out, tosac_error *err)
{
    for (int i = 0; i < g->n_nodes; i++) {
        if (!control_node(&g->nodes[i]))
            continue;
        ir_graph *sub;
        for (int k = 0; (sub = ir_node_subgraph(&g->nodes[i], k)); k++) {
            quant_body *grown = realloc(out->b, ((size_t)out->n + 1) * sizeof *grown);
            if (!grown)
                return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
            out->b = grown;
            quant_body *b = &out->b[out->n++];
            memset(b, 0, sizeof *b);
            b->g = sub;
            b->parent = parent;
            b->node = i;
            b->n_seen = sub->n_tensors;
            b->seen = calloc((size_t)sub->n_tensors + 1, sizeof *b->seen);
            b->outer = malloc(((size_t)sub->n_tensors + 1) * sizeof *b->outer);
            if (!b->seen || !b->outer)
                return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
            for (int t = 0; t < sub->n_tensors; t++) {
                quant_range_init(&b->seen[t].range);
                quant_range_init(&b->seen[t].minmax);
                b->seen[t].rank = -1;
                b->outer[t] = sub->tensors[t].outer_id;
            }
            tosac_code rc = collect(sub, out->n - 1, out, err);
            if (rc)
                return rc;
        }
    }
    return TOSAC_OK;
}

tosac_code quant_bodies_collect(ir_graph *g, quant_bodies *out, tosac_error *err)
{
    memset(out, 0, sizeof *out);
    tosac_code rc = collect(g, -1, out, err);
    if (rc)
        quant_bodies_free(out);
    return rc;
}

void quant_bodies_free(quant_bodies *b)
{
    for (int i = 0; i < b->n; i++) {
        free(b->b[i].seen);
        free(b->b[i].outer);
    }
    free(b->b);
    memset(b, 0, sizeof *b);
}

static void observe_body(void *user, const ir_graph *g, int node, int tensor,
                         const tosac_tensor *t)
{
    (void)node;
    quant_bodies *b = user;
    for (int i = 0; i < b->n; i++) {
        if (b->b[i].g != g || tensor >= b->b[i].n_seen)
            continue;
        quant_seen *s = &b->b[i].seen[tensor];
        if (s->rank < 0) {
            s->rank = t->rank;
            memcpy(s->shape, t->shape, sizeof s->shape);
        }
        if (t->dtype == TOSAC_DT_F32) {
            s->is_float = true;
            s->nonfinite +=
                quant_range_observe(&s->minmax, (const float *)t->data, tosac_tensor_numel(t));
        }
        return;
    }
}

static void ignore_top(void *ctx, int tensor, const tosac_tensor *t)
{
    (void)ctx;
    (void)tensor;
    (void)t;
}

static quant_seen *seen_of(quant_bodies *b, quant_seen *top, int i)
{
    return i < 0 ? top : b->b[i].seen;
}

static ir_graph *graph_of(const ir_graph *g, const quant_bodies *b, int i)
{
    return i < 0 ? (ir_graph *)g : b->b[i].g;
}

static void merge_seen(quant_seen *dst, const quant_seen *src)
{
    quant_range_merge(&dst->range, &src->range);
    quant_range_merge(&dst->minmax, &src->minmax);
    dst->is_float |= src->is_float;
}

tosac_code quant_bodies_calibrate(ir_model *m, const quant_options *o, const quant_calib *c,
                                  quant_bodies *b, quant_seen *top, tosac_error *err)
{
    if (b->n == 0)
        return TOSAC_OK;
    tosac_code rc =
        quant_run_pass_deep(m, o, "bodies", c, ignore_top, NULL, observe_body, b, err);
    if (rc)
        return rc;
    for (int i = 0; i < b->n; i++) {
        quant_body *bd = &b->b[i];
        const quant_seen *ps = seen_of(b, top, bd->parent);
        for (int t = 0; t < bd->n_seen; t++) {
            quant_seen *s = &bd->seen[t];
            if (bd->outer[t] >= 0) { /* parents come first: the outer value is complete */
                const quant_seen *os = &ps[bd->outer[t]];
                s->range = os->range;
                s->minmax = os->minmax;
                s->is_float = os->is_float;
                s->rank = os->rank;
                memcpy(s->shape, os->shape, sizeof s->shape);
            } else {
                s->range = s->minmax;
                /* a branch no sample took (or a Loop body never run): its float values are
                 * still activations, at the [-1, 1] of a range never seen (named in the
                 * plan's warning); its edges take the enclosing values' parameters */
                tosac_tensor v;
                if (s->rank < 0 && bd->g->tensors[t].dtype == TOSAC_DT_F32 &&
                    !ir_graph_const_value(bd->g, t, &v))
                    s->is_float = true;
            }
        }
    }
    /* children first, so a nested Loop's iterations reach its enclosing Loop's outputs */
    for (int i = b->n - 1; i >= 0; i--) {
        quant_body *bd = &b->b[i];
        const ir_graph *pg = graph_of(m->graph, b, bd->parent);
        const ir_node *n = &pg->nodes[bd->node];
        if (!ir_node_is(n, "Loop"))
            continue;
        quant_seen *ps = seen_of(b, top, bd->parent);
        for (int k = 0; k < n->n_outputs; k++) {
            int out = n->outputs[k];
            if (out < 0 || 2 + k >= bd->g->n_inputs || 1 + k >= bd->g->n_outputs)
                continue;
            merge_seen(&ps[out], &bd->seen[bd->g->inputs[2 + k]]);
            merge_seen(&ps[out], &bd->seen[bd->g->outputs[1 + k]]);
        }
    }
    return TOSAC_OK;
}

/* True when t is the only activation of its shared-range group. */
static bool alone(const quant_plan *p, int t)
{
    int root = quant_plan_group(p, t);
    for (int u = 0; u < p->n_tensors; u++)
        if (u != t && p->role[u] == QROLE_ACT && quant_plan_group(p, u) == root)
            return false;
    return true;
}

/* The enclosing value's parameters for body tensor t, *ok false when it has none. */
static quant_qparams outer_params(const quant_plan *pp, int t, bool *ok)
{
    quant_qparams none = {0};
    *ok = t >= 0 && t < pp->n_tensors && pp->role[t] == QROLE_ACT;
    return *ok ? pp->qp[t] : none;
}

/* A body edge value read in from outside (capture, carried input): outer's parameters. */
static void force_in(quant_plan *p, int t, const quant_qparams *qp)
{
    if (p->role[t] != QROLE_ACT || !alone(p, t))
        return; /* a requantization after the moved DQ */
    p->qp[t] = *qp;
    p->wide[t] = qp->dtype == TOSAC_DT_I16;
    p->outside[t] = true;
}

/* Plans body i against its parent's plan pp; *pair (per output slot) gets the parameters of
 * a boundary pair the output needs after its own, pair_on[slot] set. */
static tosac_code plan_body(const ir_graph *top, quant_scheme s, const quant_bodies *b, int i,
                            const quant_plan *pp, quant_plan *p, quant_qparams *pair,
                            bool *pair_on, tosac_error *err)
{
    const quant_body *bd = &b->b[i];
    ir_graph *g = bd->g;
    tosac_code rc = quant_plan_build(g, s, bd->seen, NULL, NULL, true, p, err);
    if (rc)
        return rc;
    if (!(p->outside = calloc((size_t)p->n_tensors + 1, sizeof *p->outside)))
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    const ir_node *n = &graph_of(top, b, bd->parent)->nodes[bd->node];
    bool loop = ir_node_is(n, "Loop"), ok;
    for (int t = 0; t < g->n_tensors; t++) {
        quant_qparams qp = outer_params(pp, bd->outer[t], &ok);
        if (bd->outer[t] >= 0 && ok)
            force_in(p, t, &qp);
    }
    for (int k = 0; loop && k < n->n_outputs && 2 + k < g->n_inputs; k++) {
        quant_qparams qp = outer_params(pp, n->outputs[k], &ok);
        if (ok)
            force_in(p, g->inputs[2 + k], &qp);
    }
    int first = loop ? 1 : 0;
    for (int o = first; o < g->n_outputs; o++) {
        int t = g->outputs[o], y = o - first < n->n_outputs ? n->outputs[o - first] : -1;
        pair_on[o] = false;
        quant_qparams qp = outer_params(pp, y, &ok);
        if (!ok || t < 0 || p->role[t] != QROLE_ACT)
            continue;
        if (bd->outer[t] >= 0 || ir_graph_is_input(g, t)) {
            p->role[t] = QROLE_NONE; /* passed through: the edge stays float */
            continue;
        }
        if (alone(p, t)) {
            p->qp[t] = qp;
            p->wide[t] = qp.dtype == TOSAC_DT_I16;
        } else {
            pair[o] = qp;
            pair_on[o] = true;
        }
    }
    return TOSAC_OK;
}

/* Body i lies below a top-level If/Loop that stays float (--exclude, by name or "If"). */
static bool kept_float(const quant_plan *top, const quant_bodies *b, int i)
{
    while (b->b[i].parent >= 0)
        i = b->b[i].parent;
    int n = b->b[i].node;
    return top->keep_float && n < top->n_nodes && top->keep_float[n];
}

tosac_code quant_bodies_insert(ir_graph *g, quant_scheme s, const quant_plan *top,
                               quant_bodies *b, tosac_error *err)
{
    if (b->n == 0)
        return TOSAC_OK;
    quant_plan *plans = calloc((size_t)b->n, sizeof *plans);
    if (!plans)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    tosac_code rc = TOSAC_OK;
    for (int i = 0; i < b->n && !rc; i++) {
        if (kept_float(top, b, i))
            continue; /* its edges stayed float too (mark_control) */
        ir_graph *bg = b->b[i].g;
        int no = bg->n_outputs;
        quant_qparams *pair = calloc((size_t)no + 1, sizeof *pair);
        bool *pair_on = calloc((size_t)no + 1, sizeof *pair_on);
        if (!pair || !pair_on)
            rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        const quant_plan *pp = b->b[i].parent < 0 ? top : &plans[b->b[i].parent];
        if (!rc)
            rc = plan_body(g, s, b, i, pp, &plans[i], pair, pair_on, err);
        if (!rc)
            rc = quant_insert(bg, s, &plans[i], NULL, err);
        for (int o = 0; o < no && !rc; o++)
            if (pair_on[o])
                rc = quant_pair(bg, bg->outputs[o], bg->outputs[o], "_boundary", &pair[o], NULL,
                                -1, NULL, err);
        free(pair);
        free(pair_on);
    }
    for (int i = 0; i < b->n; i++)
        quant_plan_free(&plans[i]);
    free(plans);
    /* children first: pruning a body renumbers only its own tensors */
    for (int i = b->n - 1; i >= 0 && !rc; i--)
        rc = quant_cleanup(b->b[i].g, err);
    return rc;
}
