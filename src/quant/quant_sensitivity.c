/* Sensitivity: where does quantization destroy the signal? A copy of the float model gets the
 * plan's Q/DQ (fake quantization: every operator still computes in float, only the Q/DQ
 * round), the copy and the float model run side by side on the calibration samples, and
 * every tensor's SQNR against float is measured. Since the operators compute in float, a
 * fall of the SQNR across one node is its inputs' rounding amplified by the node (a Log of
 * a power spectrum spanning many decades: int8 rounds the small powers to zero, the Log makes
 * them -inf). Such a node is kept float with the quantized nodes that feed it, round after
 * round (the float region grows by one layer upstream each round) until its output is no
 * longer destroyed; the user is told which, and --no-keep-float quantizes them anyway.
 * --mixed auto ranks the quantized nodes by the SQNR they lose and raises the worst to int16. */
#include "quant/quant_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_exec.h"
#include "tosac/onnx.h"

tosac_code quant_parse_mixed(const char *s, quant_options *o, tosac_error *err)
{
    if (s && strcmp(s, "auto") == 0) {
        o->mixed_auto = QUANT_MIXED_AUTO_BUDGET;
        return TOSAC_OK;
    }
    if (s && strncmp(s, "auto=", 5) == 0) {
        char *end;
        long n = strtol(s + 5, &end, 10);
        if (end != s + 5 && *end == '\0' && n >= 1 && n <= 1000000) {
            o->mixed_auto = (int)n;
            return TOSAC_OK;
        }
    }
    return tosac_fail(err, TOSAC_ERR_INPUT,
                      "--mixed '%s': expected auto or auto=N (N >= 1 nodes raised to int16)",
                      s ? s : "");
}

typedef struct acc {
    double signal, noise;
    bool broken; /* a non-finite value where float had a finite one */
    bool any;
} acc;

static void acc_add(acc *a, const tosac_tensor *f, const tosac_tensor *q)
{
    if (!f || !q || f->dtype != TOSAC_DT_F32 || q->dtype != TOSAC_DT_F32 ||
        tosac_tensor_numel(f) != tosac_tensor_numel(q))
        return;
    const float *x = f->data, *y = q->data;
    int64_t n = tosac_tensor_numel(f);
    a->any = true;
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(x[i]))
            continue;
        if (!isfinite(y[i])) {
            a->broken = true;
            continue;
        }
        double e = (double)x[i] - y[i];
        a->signal += (double)x[i] * x[i];
        a->noise += e * e;
    }
}

static double acc_db(const acc *a)
{
    if (!a->any)
        return NAN;
    if (a->broken)
        return -INFINITY;
    if (a->noise == 0)
        return INFINITY;
    if (a->signal == 0)
        return NAN; /* an all-zero signal: no ratio to speak of */
    return 10.0 * log10(a->signal / a->noise);
}

/* Per sample: the values of every tensor of g (inputs and all node outputs) by id. */
typedef struct runner {
    ir_graph *g;
    int saved_outputs;
    cpu_plan *plan;
    tosac_tensor *outs;
    int n_out;
    const tosac_tensor **val; /* per tensor id, for the current sample */
} runner;

static tosac_code runner_init(runner *r, ir_model *m, tosac_error *err)
{
    memset(r, 0, sizeof *r);
    r->g = m->graph;
    r->saved_outputs = r->g->n_outputs;
    tosac_code rc = quant_mark_all_outputs(r->g, err);
    int64_t opset = ir_model_opset(m, "");
    if (!rc)
        rc = cpu_plan_create(r->g, opset ? opset : 13, &r->plan, err);
    r->n_out = r->g->n_outputs;
    r->outs = calloc((size_t)r->n_out + 1, sizeof *r->outs);
    r->val = calloc((size_t)r->g->n_tensors + 1, sizeof *r->val);
    if (!rc && (!r->outs || !r->val))
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    return rc;
}

static tosac_code runner_run(runner *r, const tosac_tensor *ins, int n_in, tosac_error *err)
{
    memset(r->val, 0, (size_t)r->g->n_tensors * sizeof *r->val);
    for (int i = 0; i < n_in && i < r->g->n_inputs; i++)
        r->val[r->g->inputs[i]] = &ins[i];
    tosac_code rc = cpu_plan_run(r->plan, ins, n_in, r->outs, r->n_out, err);
    for (int o = 0; o < r->n_out && !rc; o++)
        r->val[r->g->outputs[o]] = &r->outs[o];
    return rc;
}

static void runner_clear(runner *r)
{
    for (int o = 0; r->outs && o < r->n_out; o++)
        tosac_tensor_free(&r->outs[o]);
}

static void runner_free(runner *r)
{
    runner_clear(r);
    free(r->outs);
    free(r->val);
    cpu_plan_free(r->plan);
    if (r->g)
        r->g->n_outputs = r->saved_outputs;
}

/* The copy of m through its ONNX bytes, and map[t] = the copy's id of m's tensor t (by name). */
static tosac_code copy_model(const ir_model *m, ir_model **out, int *map, tosac_error *err)
{
    void *buf = NULL;
    size_t len = 0;
    tosac_code rc = onnx_export_bytes(m, &buf, &len, err);
    if (!rc)
        rc = onnx_import_bytes(buf, len, NULL, out, err);
    free(buf);
    for (int t = 0; !rc && t < m->graph->n_tensors; t++)
        map[t] = m->graph->tensors[t].name ? ir_graph_find_tensor((*out)->graph,
                                                                   m->graph->tensors[t].name)
                                           : -1;
    return rc;
}

/* p (over m's ids) as a plan over the copy's ids. */
static tosac_code map_plan(const ir_graph *g, const ir_graph *gq, const int *map,
                           const quant_plan *p, quant_plan *pq, tosac_error *err)
{
    memset(pq, 0, sizeof *pq);
    int nt = gq->n_tensors, nn = gq->n_nodes;
    pq->n_tensors = nt;
    pq->n_nodes = nn;
    pq->role = calloc((size_t)nt + 1, sizeof *pq->role);
    pq->group = malloc(((size_t)nt + 1) * sizeof *pq->group);
    pq->qp = calloc((size_t)nt + 1, sizeof *pq->qp);
    pq->wide = calloc((size_t)nt + 1, sizeof *pq->wide);
    pq->narrow = calloc((size_t)nt + 1, sizeof *pq->narrow);
    pq->keep_float = calloc((size_t)nn + 1, sizeof *pq->keep_float);
    pq->int16 = calloc((size_t)nn + 1, sizeof *pq->int16);
    if (!pq->role || !pq->group || !pq->qp || !pq->wide || !pq->narrow || !pq->keep_float ||
        !pq->int16)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    for (int t = 0; t < nt; t++)
        pq->group[t] = t;
    for (int t = 0; t < p->n_tensors; t++) {
        int u = map[t];
        if (u < 0)
            continue;
        pq->role[u] = p->role[t];
        pq->qp[u] = p->qp[t];
        pq->wide[u] = p->wide[t];
        pq->narrow[u] = p->narrow[t];
        int r = map[quant_plan_group(p, t)];
        pq->group[u] = r >= 0 ? r : u;
    }
    /* groups point at their representative directly, so no chain can loop */
    for (int t = 0; t < nt; t++)
        if (pq->group[t] != t && pq->group[pq->group[t]] != pq->group[t])
            pq->group[t] = t;
    for (int i = 0; i < p->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (n->dead || n->n_outputs < 1 || n->outputs[0] < 0 || map[n->outputs[0]] < 0)
            continue;
        int j = ir_graph_producer(gq, map[n->outputs[0]]);
        if (j >= 0 && j < nn) {
            pq->keep_float[j] = p->keep_float[i];
            pq->int16[j] = p->int16[i];
        }
    }
    return TOSAC_OK;
}

tosac_code quant_sens_measure(ir_model *m, const quant_options *o, const quant_calib *c,
                              const quant_seen *seen, const quant_plan *p, double *raw_db,
                              double *seen_db, tosac_error *err)
{
    ir_graph *g = m->graph;
    int nt = g->n_tensors;
    quant_scheme s = o ? o->scheme : QUANT_A8W8;
    int *map = malloc(((size_t)nt + 1) * sizeof *map);
    int *dq = NULL;
    acc *raw = calloc((size_t)nt + 1, sizeof *raw), *vis = calloc((size_t)nt + 1, sizeof *vis);
    quant_seen *seenq = NULL;
    ir_model *mq = NULL;
    quant_plan pq;
    memset(&pq, 0, sizeof pq);
    runner rf, rq;
    memset(&rf, 0, sizeof rf);
    memset(&rq, 0, sizeof rq);
    tosac_code rc = map && raw && vis ? TOSAC_OK
                                      : tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    if (!rc)
        rc = copy_model(m, &mq, map, err);
    if (!rc)
        rc = map_plan(g, mq->graph, map, p, &pq, err);
    if (!rc && !(seenq = calloc((size_t)mq->graph->n_tensors + 1, sizeof *seenq)))
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    bool wide = s == QUANT_A16W8;
    for (int t = 0; !rc && t < mq->graph->n_tensors; t++)
        seenq[t].rank = -1;
    for (int t = 0; !rc && t < nt; t++) {
        if (map[t] >= 0)
            seenq[map[t]] = seen[t];
        wide |= p->role[t] == QROLE_ACT && p->wide[t];
    }
    if (!rc)
        rc = quant_upgrade_opset(mq, wide ? 21 : 13, seenq, err);
    if (!rc)
        rc = quant_insert(mq->graph, s, &pq, seenq, err);
    /* dq[u]: the DequantizeLinear output readers of the copy's activation u see */
    int nq = mq ? mq->graph->n_tensors : 0;
    if (!rc && !(dq = malloc(((size_t)nq + 1) * sizeof *dq)))
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    for (int u = 0; !rc && u < nq; u++)
        dq[u] = -1;
    for (int i = 0; !rc && i < mq->graph->n_nodes; i++) {
        const ir_node *n = &mq->graph->nodes[i];
        int c;
        if (n->dead || !ir_node_is(n, "QuantizeLinear") || n->inputs[0] < 0 ||
            ir_graph_consumers(mq->graph, n->outputs[0], &c, 1) < 1 ||
            !ir_node_is(&mq->graph->nodes[c], "DequantizeLinear"))
            continue;
        if (dq[n->inputs[0]] < 0) /* the first pair is the tensor's own (requantizations follow) */
            dq[n->inputs[0]] = mq->graph->nodes[c].outputs[0];
    }
    if (!rc)
        rc = runner_init(&rf, m, err);
    if (!rc)
        rc = runner_init(&rq, mq, err);
    if (!rc && o && o->progress)
        o->progress(o->progress_ctx, "sensitivity", 0, c->n_samples);
    for (int k = 0; k < c->n_samples && !rc; k++) {
        const tosac_tensor *ins = &c->tensors[(size_t)k * (size_t)c->n_inputs];
        rc = runner_run(&rf, ins, c->n_inputs, err);
        if (!rc)
            rc = runner_run(&rq, ins, c->n_inputs, err);
        for (int t = 0; t < nt && !rc; t++) {
            int u = map[t];
            if (u < 0 || !rf.val[t])
                continue;
            acc_add(&raw[t], rf.val[t], rq.val[u]);
            acc_add(&vis[t], rf.val[t], rq.val[dq[u] >= 0 ? dq[u] : u]);
        }
        runner_clear(&rf);
        runner_clear(&rq);
        if (!rc && o && o->progress)
            o->progress(o->progress_ctx, "sensitivity", k + 1, c->n_samples);
    }
    for (int t = 0; t < nt && !rc; t++) {
        raw_db[t] = acc_db(&raw[t]);
        seen_db[t] = acc_db(&vis[t]);
    }
    runner_free(&rf);
    runner_free(&rq);
    quant_plan_free(&pq);
    ir_model_free(mq);
    free(seenq);
    free(dq);
    free(map);
    free(raw);
    free(vis);
    return rc;
}

/* The lowest SQNR its readers see among node i's float data inputs (+inf when none). */
static double inputs_db(const ir_graph *g, int i, const double *seen_db)
{
    double lo = INFINITY;
    const ir_node *n = &g->nodes[i];
    for (int k = 0; k < n->n_inputs; k++) {
        int t = n->inputs[k];
        tosac_tensor v;
        if (t < 0 || ir_graph_const_value(g, t, &v) || isnan(seen_db[t]))
            continue;
        lo = fmin(lo, seen_db[t]);
    }
    return lo;
}

static double output_db(const ir_node *n, const double *raw_db)
{
    double lo = NAN;
    for (int o = 0; o < n->n_outputs; o++)
        if (n->outputs[o] >= 0 && !isnan(raw_db[n->outputs[o]]))
            lo = isnan(lo) ? raw_db[n->outputs[o]] : fmin(lo, raw_db[n->outputs[o]]);
    return lo;
}

static bool destroyed(const ir_graph *g, int i, const double *raw_db, const double *seen_db)
{
    double out = output_db(&g->nodes[i], raw_db), in = inputs_db(g, i, seen_db);
    return !isnan(out) && out < QUANT_SENS_FLOOR_DB && in - out >= QUANT_SENS_DROP_DB;
}

/* Keeps float the quantized producers of the tensors that float region around node i reads
 * (walking up through nodes already kept float); returns how many it added. */
static int grow_region(const ir_graph *g, const quant_plan *p, int i, bool *keep, int *stack,
                       bool *visited)
{
    int added = 0, sp = 0;
    memset(visited, 0, (size_t)g->n_nodes * sizeof *visited);
    stack[sp++] = i;
    visited[i] = true;
    while (sp > 0) {
        const ir_node *n = &g->nodes[stack[--sp]];
        for (int k = 0; k < n->n_inputs; k++) {
            int j = n->inputs[k] >= 0 ? ir_graph_producer(g, n->inputs[k]) : -1;
            if (j < 0 || j >= p->n_nodes || visited[j] || g->nodes[j].dead)
                continue;
            visited[j] = true;
            if (keep[j]) {
                stack[sp++] = j;
            } else if (quant_plan_quantizes(p, g, j)) {
                keep[j] = true;
                added++;
            }
        }
    }
    return added;
}

static tosac_code rebuild(const ir_graph *g, quant_scheme s, const quant_seen *seen,
                          const bool *keep, const bool *int16, quant_plan *p, tosac_error *err)
{
    bool control = p->control;
    quant_plan_free(p);
    return quant_plan_build(g, s, seen, keep, int16, control, p, err);
}

typedef struct culprit {
    int node;
    double in_db, out_db;
} culprit;

static void warn_kept(const ir_graph *g, const culprit *cu, int n_cu, const bool *keep0,
                      const bool *keep, quant_scheme s)
{
    quant_names l = {0};
    char detail[200];
    for (int k = 0; k < n_cu; k++) {
        const ir_node *n = &g->nodes[cu[k].node];
        snprintf(detail, sizeof detail, "%s: SQNR %.1f dB at its inputs, %.1f dB at its output",
                 n->op_type, cu[k].in_db, cu[k].out_db);
        quant_names_add(&l, n->name && *n->name ? n->name : "?", detail);
    }
    int more = 0;
    for (int i = 0; i < g->n_nodes; i++)
        more += keep[i] && !keep0[i];
    more -= n_cu;
    char tail[160];
    snprintf(tail, sizeof tail,
             "; kept in float%s%d more node%s feeding them (--no-keep-float quantizes them)",
             more > 0 ? " with " : ", ", more > 0 ? more : 0, more == 1 ? "" : "s");
    if (l.n == 0)
        return;
    tosac_warn("quantize: %s destroys the signal of %d node%s: %s%s%s",
               quant_scheme_name(s), l.n, l.n == 1 ? "" : "s", l.text,
               l.n > QUANT_NAMES_SHOWN ? " and more" : "", tail);
}

/* --mixed auto: the quantized nodes losing the most SQNR (inputs seen -> output seen). */
static int pick_int16(const ir_graph *g, const quant_plan *p, const double *seen_db, int want,
                      bool *int16)
{
    int n_q = 0, n = g->n_nodes < p->n_nodes ? g->n_nodes : p->n_nodes;
    double *loss = malloc(((size_t)n + 1) * sizeof *loss);
    if (!loss)
        return -1;
    for (int i = 0; i < n; i++) {
        loss[i] = NAN;
        if (!quant_plan_quantizes(p, g, i) || int16[i])
            continue;
        double out = output_db(&g->nodes[i], seen_db), in = inputs_db(g, i, seen_db);
        if (isnan(out) || !isfinite(in) || !isfinite(out))
            continue;
        loss[i] = in - out;
        n_q++;
    }
    if (want == QUANT_MIXED_AUTO_BUDGET)
        want = (int)ceil(QUANT_MIXED_AUTO_FRACTION * n_q);
    int picked = 0;
    for (; picked < want; picked++) {
        int best = -1;
        for (int i = 0; i < n; i++)
            if (!isnan(loss[i]) && (best < 0 || loss[i] > loss[best]))
                best = i;
        if (best < 0)
            break;
        int16[best] = true;
        loss[best] = NAN;
    }
    free(loss);
    return picked;
}

tosac_code quant_sens_apply(ir_model *m, const quant_options *o, const quant_calib *c,
                            const quant_seen *seen, bool *keep, bool *int16, quant_plan *p,
                            tosac_error *err)
{
    ir_graph *g = m->graph;
    int nt = g->n_tensors, nn = g->n_nodes;
    quant_scheme s = o ? o->scheme : QUANT_A8W8;
    bool auto_float = !(o && o->no_keep_float);
    int mixed = o && s == QUANT_A8W8 ? o->mixed_auto : 0;
    if (!auto_float && !mixed)
        return TOSAC_OK;
    double *raw_db = malloc(((size_t)nt + 1) * sizeof *raw_db);
    double *seen_db = malloc(((size_t)nt + 1) * sizeof *seen_db);
    bool *keep0 = malloc((size_t)nn + 1), *visited = malloc((size_t)nn + 1);
    int *stack = malloc(((size_t)nn + 1) * sizeof *stack);
    culprit *cu = malloc(((size_t)nn + 1) * sizeof *cu);
    tosac_code rc = raw_db && seen_db && keep0 && visited && stack && cu
                        ? TOSAC_OK
                        : tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    int n_cu = 0;
    if (!rc)
        memcpy(keep0, keep, (size_t)nn);
    for (int round = 0; !rc && auto_float && round < QUANT_SENS_ROUNDS; round++) {
        rc = quant_sens_measure(m, o, c, seen, p, raw_db, seen_db, err);
        int grown = 0;
        for (int i = 0; !rc && i < nn; i++) {
            if (g->nodes[i].dead || !destroyed(g, i, raw_db, seen_db))
                continue;
            bool known = false;
            for (int k = 0; k < n_cu; k++)
                known |= cu[k].node == i;
            if (!known)
                cu[n_cu++] = (culprit){i, inputs_db(g, i, seen_db),
                                       output_db(&g->nodes[i], raw_db)};
            if (!keep[i] && quant_plan_quantizes(p, g, i)) {
                keep[i] = true;
                grown++;
            }
            grown += grow_region(g, p, i, keep, stack, visited);
        }
        if (rc || !grown)
            break;
        rc = rebuild(g, s, seen, keep, int16, p, err);
    }
    if (!rc)
        warn_kept(g, cu, n_cu, keep0, keep, s);
    if (!rc && mixed) {
        rc = quant_sens_measure(m, o, c, seen, p, raw_db, seen_db, err);
        bool *before = rc ? NULL : malloc((size_t)nn + 1);
        int picked = !before ? -1 : (memcpy(before, int16, (size_t)nn),
                                     pick_int16(g, p, seen_db, mixed, int16));
        if (!rc && picked < 0)
            rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        if (!rc)
            rc = rebuild(g, s, seen, keep, int16, p, err);
        quant_names l = {0};
        for (int i = 0; !rc && i < nn; i++)
            if (int16[i] && !before[i])
                quant_names_add(&l, g->nodes[i].name ? g->nodes[i].name : "?",
                                g->nodes[i].op_type);
        if (!rc)
            tosac_warn("quantize: --mixed auto raised %d node%s to int16 activations: %s%s",
                       l.n, l.n == 1 ? "" : "s", l.text,
                       l.n > QUANT_NAMES_SHOWN ? " and more" : "");
        free(before);
    }
    free(raw_db);
    free(seen_db);
    free(keep0);
    free(visited);
    free(stack);
    free(cu);
    return rc;
}
