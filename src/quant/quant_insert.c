/* Q/DQ insertion. Weights and biases first (they need the input activation's parameters,
 * read by original tensor id), then one QuantizeLinear -> DequantizeLinear pair after every
 * activation of the plan, every reader switched to the DequantizeLinear output. Constant
 * weights become int8 initializers read through a DequantizeLinear (never float + Q); a8w8
 * biases int32 ones, a16w8 biases stay float. */
#include "quant/quant_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The DequantizeLinear of an integer constant: returns the float tensor id or -1. */
static int add_dq_const(ir_graph *g, const char *base, tosac_dtype qdt, int rank,
                        const int64_t *shape, const void *qdata, int n, const float *scales,
                        const void *zps, int axis, tosac_error *err)
{
    int64_t sn = n;
    int srank = axis >= 0 ? 1 : 0;
    int q = quant_add_const(g, base, "_quantized", qdt, rank, shape, qdata, err);
    int s = q < 0 ? -1 : quant_add_const(g, base, "_scale", TOSAC_DT_F32, srank, &sn, scales, err);
    int z = s < 0 ? -1 : quant_add_const(g, base, "_zero_point", qdt, srank, &sn, zps, err);
    int y = z < 0 ? -1 : quant_add_tensor(g, base, "_dequantized", TOSAC_DT_F32, rank, shape, err);
    if (y < 0)
        return -1;
    int ins[3] = {q, s, z};
    char want[600], name[640];
    snprintf(want, sizeof want, "%s_DequantizeLinear", base);
    quant_node_name(g, want, name, sizeof name);
    int nd = ir_graph_add_node(g, "DequantizeLinear", NULL, name, ins, 3, &y, 1, err);
    if (nd < 0 || (axis >= 0 && ir_node_set_int(g, nd, "axis", axis, err)))
        return -1;
    return y;
}

/* Per-channel int8 weight at slot k of node i; scales (malloc'd, *n_ch values) returned. */
static tosac_code quant_weight(ir_graph *g, int i, int k, const tosac_tensor *w, int axis,
                               const quant_seen *sw, float **scales_out, int *n_ch,
                               tosac_error *err)
{
    int64_t outer = 1, n = 1, inner = 1, total = tosac_tensor_numel(w);
    bool per_tensor = w->rank < 2; /* a rank-1 MatMul B has no output-feature axis */
    *scales_out = NULL;
    *n_ch = 0;
    if (total < 1)
        return TOSAC_OK; /* an empty weight stays as it is */
    if (per_tensor)
        inner = total;
    for (int d = 0; d < w->rank && !per_tensor; d++) {
        if (d < axis)
            outer *= w->shape[d];
        else if (d == axis)
            n = w->shape[d];
        else
            inner *= w->shape[d];
    }
    float *sc = malloc((size_t)n * sizeof *sc);
    int8_t *q = malloc((size_t)(total ? total : 1)), *zp = calloc((size_t)n, 1);
    tosac_code rc = TOSAC_OK;
    if (!sc || !q || !zp) {
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    } else {
        if (sw && sw->wscale && sw->n_wscale == n) /* rounded by quant_weight_round.c */
            memcpy(sc, sw->wscale, (size_t)n * sizeof *sc);
        else
            quant_weight_scales(w->data, outer, n, inner, sc);
        quant_weight_values(w->data, outer, n, inner, sc, q);
        char base[512];
        snprintf(base, sizeof base, "%s", g->tensors[g->nodes[i].inputs[k]].name);
        int y = add_dq_const(g, base, TOSAC_DT_I8, w->rank, w->shape, q, (int)n, sc, zp,
                             per_tensor ? -1 : axis, err);
        rc = y < 0 ? err->code : ir_node_set_input(g, i, k, y, err);
    }
    free(q);
    free(zp);
    if (rc) {
        free(sc);
        return rc;
    }
    *scales_out = sc;
    *n_ch = (int)n;
    return TOSAC_OK;
}

static tosac_code quant_bias(ir_graph *g, int i, int k, const tosac_tensor *b, float s_in,
                             const float *sw, int n_sw, tosac_error *err)
{
    int64_t n = tosac_tensor_numel(b);
    if ((n_sw != 1 && n != n_sw) || b->rank < 1 || (b->rank == 2 && b->shape[0] != 1) ||
        b->rank > 2)
        return TOSAC_OK; /* not a per-channel vector: stays float */
    float *sc = malloc((size_t)n * sizeof *sc);
    int32_t *q = malloc((size_t)n * sizeof *q), *zp = calloc((size_t)n, sizeof *zp);
    tosac_code rc = TOSAC_OK;
    int64_t bad;
    if (!sc || !q || !zp) {
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    } else if ((bad = quant_bias_values(b->data, n, s_in, sw, n_sw, sc, q)) >= 0) {
        char desc[200];
        double v = ((const float *)b->data)[bad];
        rc = tosac_fail(err, TOSAC_ERR_INPUT,
                        "bias '%s' of %s: element %lld (%g) is %.4g steps of its scale %g, "
                        "beyond the int32 of a8w8 (the input and weight ranges are too narrow "
                        "for it; a16w8 keeps biases in int48)",
                        g->tensors[g->nodes[i].inputs[k]].name,
                        ir_node_desc(g, i, desc, sizeof desc), (long long)bad, v,
                        v / (double)sc[bad], (double)sc[bad]);
    } else {
        char base[512];
        snprintf(base, sizeof base, "%s", g->tensors[g->nodes[i].inputs[k]].name);
        int y = add_dq_const(g, base, TOSAC_DT_I32, b->rank, b->shape, q, (int)n, sc, zp,
                             b->rank - 1, err);
        rc = y < 0 ? err->code : ir_node_set_input(g, i, k, y, err);
    }
    free(sc);
    free(q);
    free(zp);
    return rc;
}

/* A constant operand (quant_const_act_slot): per tensor like an activation, at its own range
 * or, where it shares the output's (quant_const_shares_output), the output's parameters. */
static tosac_code quant_const_act(ir_graph *g, quant_scheme s, const quant_plan *p, int i, int k,
                                  const tosac_tensor *v, tosac_error *err)
{
    quant_qparams qp;
    const ir_node *n = &g->nodes[i];
    int out = n->n_outputs ? n->outputs[0] : -1;
    if (quant_const_shares_output(n, k) && out >= 0 && out < p->n_tensors &&
        p->role[out] == QROLE_ACT) {
        qp = p->qp[out];
    } else {
        quant_range r;
        quant_range_init(&r);
        quant_range_observe(&r, v->data, tosac_tensor_numel(v));
        quant_act_params(s, &r, &qp);
    }
    int64_t total = tosac_tensor_numel(v);
    size_t esz = tosac_dtype_size(qp.dtype);
    void *q = malloc((size_t)(total ? total : 1) * esz);
    if (!q)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    int64_t qmin = qp.dtype == TOSAC_DT_I16 ? INT16_MIN : INT8_MIN;
    int64_t qmax = qp.dtype == TOSAC_DT_I16 ? INT16_MAX : INT8_MAX;
    for (int64_t e = 0; e < total; e++) {
        int64_t x = quant_value(((const float *)v->data)[e], qp.scale, qp.zero_point, qmin, qmax);
        if (esz == 2)
            ((int16_t *)q)[e] = (int16_t)x;
        else
            ((int8_t *)q)[e] = (int8_t)x;
    }
    int16_t zp16 = (int16_t)qp.zero_point;
    int8_t zp8 = (int8_t)qp.zero_point;
    char base[512];
    snprintf(base, sizeof base, "%s", g->tensors[n->inputs[k]].name);
    int y = add_dq_const(g, base, qp.dtype, v->rank, v->shape, q, 1, &qp.scale,
                         esz == 2 ? (const void *)&zp16 : (const void *)&zp8, -1, err);
    free(q);
    return y < 0 ? err->code : ir_node_set_input(g, i, k, y, err);
}

/* True when node i reads activation t through an int8 requantization: t is int16 (an --int16
 * neighbour) and i an int8 operator outside t's shared-range group. */
static bool reads_narrowed(const quant_plan *p, const ir_graph *g, int i, int t)
{
    if (t < 0 || t >= p->n_tensors || !p->wide[t] || p->narrow[t].dtype != TOSAC_DT_I8 ||
        i >= p->n_nodes || !quant_plan_quantizes(p, g, i) || p->int16[i])
        return false;
    const ir_node *n = &g->nodes[i];
    int y = n->n_outputs ? n->outputs[0] : -1;
    return !(y >= 0 && y < p->n_tensors && p->role[y] == QROLE_ACT &&
             quant_plan_group(p, y) == quant_plan_group(p, t));
}

/* The float bias b - corr as a new constant read at slot k of node i (*out: its value). */
static tosac_code corrected_bias(ir_graph *g, int i, int k, const tosac_tensor *b,
                                 const double *corr, tosac_tensor *out, tosac_error *err)
{
    int64_t n = tosac_tensor_numel(b);
    float *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    if (!v)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    for (int64_t c = 0; c < n; c++)
        v[c] = (float)((double)((const float *)b->data)[c] - corr[c]);
    int t = quant_add_const(g, g->tensors[g->nodes[i].inputs[k]].name, "_corrected",
                            TOSAC_DT_F32, b->rank, b->shape, v, err);
    free(v);
    tosac_code rc = t < 0 ? err->code : ir_node_set_input(g, i, k, t, err);
    if (!rc && !quant_const_f32(g, t, out))
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "corrected bias of node %d not constant", i);
    return rc;
}

static tosac_code quant_node_consts(ir_graph *g, quant_scheme s, const quant_plan *p,
                                    const quant_seen *seen, int i, tosac_error *err)
{
    float *sw = NULL;
    double *corr = NULL;
    int n_sw = 0;
    tosac_code rc = TOSAC_OK;
    int x = g->nodes[i].n_inputs ? g->nodes[i].inputs[0] : -1;
    bool have_in = x >= 0 && x < p->n_tensors && p->role[x] == QROLE_ACT;
    float s_in = !have_in ? 0.0f : reads_narrowed(p, g, i, x) ? p->narrow[x].scale : p->qp[x].scale;
    s = quant_plan_node_scheme(p, s, i);
    for (int k = 0; k < g->nodes[i].n_inputs && !rc; k++) {
        tosac_tensor v;
        int axis;
        if (!quant_const_f32(g, g->nodes[i].inputs[k], &v))
            continue;
        if (quant_weight_slot(&g->nodes[i], k, v.rank, &axis)) {
            free(sw);
            sw = NULL;
            int wt = g->nodes[i].inputs[k];
            rc = quant_weight(g, i, k, &v, axis, seen && wt < p->n_tensors ? &seen[wt] : NULL,
                              &sw, &n_sw, err);
            free(corr);
            corr = NULL;
            if (!rc && sw && seen && (corr = malloc(((size_t)n_sw + 1) * sizeof *corr)) &&
                !quant_bias_correction(g, i, &v, sw, n_sw, seen, corr)) {
                free(corr);
                corr = NULL;
            }
        } else if (quant_bias_slot(&g->nodes[i], k)) {
            if (corr && sw && tosac_tensor_numel(&v) == n_sw)
                rc = corrected_bias(g, i, k, &v, corr, &v, err);
            /* a16w8 accumulates in int48, which no ONNX DequantizeLinear holds: the bias
             * stays float and the compiler quantizes it (lower_bias) */
            if (!rc && sw && have_in && s == QUANT_A8W8)
                rc = quant_bias(g, i, k, &v, s_in, sw, n_sw, err);
        } else if (quant_const_act_slot(&g->nodes[i], k)) {
            rc = quant_const_act(g, s, p, i, k, &v, err);
        }
    }
    free(sw);
    free(corr);
    return rc;
}

/* Q -> DQ after t (named after tensor name_of + suffix; *dq_out, if given, gets the DQ output):
 * the readers `only` lists (n_only >= 0) are switched to the DQ output, or all of them
 * (n_only < 0: activation t of the plan; a graph output keeps its name on the DQ output). */
tosac_code quant_pair(ir_graph *g, int t, int name_of, const char *suffix,
                             const quant_qparams *qp, const int *only, int n_only, int *dq_out,
                             tosac_error *err)
{
    char base[512], fresh[600];
    snprintf(base, sizeof base, "%s%s", g->tensors[name_of].name, suffix);
    bool keep_name = n_only < 0 && ir_graph_is_output(g, t) && !ir_graph_is_input(g, t);
    if (keep_name) {
        char want[600];
        snprintf(want, sizeof want, "%s_float", base);
        ir_graph_unique_name(g, want, fresh, sizeof fresh);
        tosac_code rc = ir_graph_rename_tensor(g, t, fresh, err);
        if (rc)
            return rc;
    }
    int rank = g->tensors[t].rank;
    int64_t shape[TOSAC_MAX_RANK];
    memcpy(shape, g->tensors[t].shape, sizeof shape);
    float sc = qp->scale;
    int16_t zp16 = (int16_t)qp->zero_point;
    int8_t zp8 = (int8_t)qp->zero_point;
    const void *zp = qp->dtype == TOSAC_DT_I16 ? (const void *)&zp16 : (const void *)&zp8;
    int s = quant_add_const(g, base, "_scale", TOSAC_DT_F32, 0, NULL, &sc, err);
    int z = s < 0 ? -1 : quant_add_const(g, base, "_zero_point", qp->dtype, 0, NULL, zp, err);
    int q = z < 0 ? -1 : quant_add_tensor(g, base, "_quantized", qp->dtype, rank, shape, err);
    int y = -1;
    if (q >= 0)
        y = keep_name ? ir_graph_add_tensor(g, base, TOSAC_DT_F32, rank, shape, err)
                      : quant_add_tensor(g, base, "_dequantized", TOSAC_DT_F32, rank, shape, err);
    if (y < 0)
        return err->code;
    for (int d = 0; d < rank; d++)
        if (g->tensors[t].dim_param[d] &&
            (ir_tensor_set_dim_param(g, q, d, g->tensors[t].dim_param[d], err) ||
             ir_tensor_set_dim_param(g, y, d, g->tensors[t].dim_param[d], err)))
            return err->code;
    if (n_only < 0)
        ir_graph_replace_uses(g, t, y);
    for (int r = 0; r < n_only; r++)
        for (int k = 0; k < g->nodes[only[r]].n_inputs; k++)
            if (g->nodes[only[r]].inputs[k] == t) {
                tosac_code rc = ir_node_set_input(g, only[r], k, y, err);
                if (rc)
                    return rc;
            }
    int qin[3] = {t, s, z}, dqin[3] = {q, s, z};
    char node[640];
    snprintf(fresh, sizeof fresh, "%s_QuantizeLinear", base);
    quant_node_name(g, fresh, node, sizeof node);
    if (ir_graph_add_node(g, "QuantizeLinear", NULL, node, qin, 3, &q, 1, err) < 0)
        return err->code;
    snprintf(fresh, sizeof fresh, "%s_DequantizeLinear", base);
    quant_node_name(g, fresh, node, sizeof node);
    if (ir_graph_add_node(g, "DequantizeLinear", NULL, node, dqin, 3, &y, 1, err) < 0)
        return err->code;
    if (dq_out)
        *dq_out = y;
    return TOSAC_OK;
}

tosac_code quant_insert(ir_graph *g, quant_scheme s, const quant_plan *p, const quant_seen *seen,
                        tosac_error *err)
{
    int n_nodes = g->n_nodes;
    for (int i = 0; i < n_nodes; i++) {
        if (!quant_plan_quantizes(p, g, i))
            continue;
        tosac_code rc = quant_node_consts(g, s, p, seen, i, err);
        if (rc)
            return rc;
    }
    /* the int8 readers of an int16 tensor, found before the Q/DQ pairs rewire them */
    int *readers = malloc(((size_t)n_nodes + 1) * sizeof *readers);
    if (!readers)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    tosac_code rc = TOSAC_OK;
    for (int t = 0; t < p->n_tensors && !rc; t++) {
        if (p->role[t] != QROLE_ACT || (p->outside && p->outside[t]))
            continue;
        int n_narrow = 0;
        for (int i = 0; i < n_nodes && p->wide[t]; i++)
            for (int k = 0; k < g->nodes[i].n_inputs; k++)
                if (g->nodes[i].inputs[k] == t && reads_narrowed(p, g, i, t)) {
                    readers[n_narrow++] = i;
                    break;
                }
        int dq = -1;
        rc = quant_pair(g, t, t, "", &p->qp[t], NULL, -1, &dq, err);
        if (rc || !n_narrow)
            continue;
        /* int16 -> int8 for them: DQ -> Q -> DQ, one RESCALE once folded */
        rc = quant_pair(g, dq, t, "_int8", &p->narrow[t], readers, n_narrow, NULL, err);
    }
    free(readers);
    return rc;
}
