/* int64 narrowed to int32 where a delegate would hold it and no value can leave int32.
 *
 * The int64 rule (tosa_spec_keeps_int64, docs/USAGE.md): a spec with EXT-INT64 (TOSA 1.1,
 * with INT or FP: every integer i64 row of the tables needs EXT-INT64 alone) keeps int64 in
 * the delegates and this pass does nothing. Otherwise every int64 value a delegate reads or
 * writes must be int32 there. A value may be narrowed only when its range is known to fit,
 * never on hope:
 *   - constants by their values; ArgMax/ArgMin results, TopK indices, Shape/Size by the
 *     shapes; Cast to int64 from a narrower integer type by that type;
 *   - through Add/Sub/Mul/Neg/Abs/Min/Max/Where/Concat/Gather/layout ops/ReduceSum/CumSum
 *     by interval arithmetic on those ranges (a range that crosses the int32 bounds, such as
 *     2^31-1 plus a 0/1 value, is not narrowed);
 *   - a runtime int64 graph input has no known range: it and what is computed from it stay
 *     int64, so their nodes stay on the CPU; except indices read only by Gather /
 *     GatherElements: a valid index lies in [-K, K) of the gathered axis, so with K < 2^31 the
 *     readers take Cast(Clip(idx, INT32_MIN, INT32_MAX)) to int32 (on the CPU; an index out
 *     of range stays out of range, which GATHER refuses, instead of wrapping into a valid one),
 *     kept only when a reader then lowers.
 * A constant outside int32 read as a value by a node that has a lowering rule and could
 * otherwise be narrowed is a compile error naming it and the spec that would keep it (never
 * silently wrong, never silently slow).
 *
 * The rewrite: narrowed tensors become int32 (constants converted, Casts to int64 cast to
 * int32); every node touching one is trial-lowered exactly as the partitioner will. Then each
 * narrowed tensor is wired so that every node reads and writes what it computes in: a node
 * that will stay on the CPU int64 (the CPU executor runs plain ONNX), every other node
 * int32, and a graph output int64 under its own name; one Cast where a producer and its
 * readers differ. Runs last: the trial must see the final graph. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"
#include "onnxop/onnxop_traits.h"
#include "partition/partition.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

#define ONNX_INT32 6
#define ONNX_INT64 7

typedef struct range {
    bool known;
    double lo, hi;
} range;

static bool fits32(range r) { return r.known && r.lo >= -2147483648.0 && r.hi <= 2147483647.0; }

/* Input slots that are compile-time parameters (shapes, axes, counts), not values. */
static bool control_slot(const ir_node *n, int slot)
{
    const onnxop_traits *t = onnxop_traits_of(n); /* the int_params column */
    return t && onnxop_slot_in(t->int_params, slot);
}

static double max_dim(const ir_tensor *t)
{
    double m = 1;
    for (int d = 0; d < t->rank; d++)
        m = fmax(m, (double)t->shape[d]);
    return m;
}

static range of_const(const ir_graph *g, int t)
{
    range r = {false, 0, 0};
    tosac_tensor v;
    if (!ir_graph_const_value(g, t, &v) || !tosac_dtype_is_int(v.dtype))
        return r;
    int64_t n = tosac_tensor_numel(&v);
    r.known = true;
    r.lo = n ? INFINITY : 0;
    r.hi = n ? -INFINITY : 0;
    for (int64_t i = 0; i < n; i++) {
        double x = (double)tosac_tensor_int_at(&v, i);
        r.lo = fmin(r.lo, x);
        r.hi = fmax(r.hi, x);
    }
    return r;
}

static range span(double a, double b, double c, double d)
{
    range r = {true, fmin(fmin(a, b), fmin(c, d)), fmax(fmax(a, b), fmax(c, d))};
    return r;
}

/* The range of output 0 (or 1 for TopK) of node n from its inputs' ranges. */
static range infer(const ir_graph *g, const ir_node *n, int out_slot, const range *rg)
{
    range none = {false, 0, 0};
    const ir_tensor *x = n->n_inputs && n->inputs[0] >= 0 ? &g->tensors[n->inputs[0]] : NULL;
    range a = n->n_inputs > 0 && n->inputs[0] >= 0 ? rg[n->inputs[0]] : none;
    range b = n->n_inputs > 1 && n->inputs[1] >= 0 ? rg[n->inputs[1]] : none;
    if ((ir_node_is(n, "ArgMax") || ir_node_is(n, "ArgMin")) && x) {
        range r = {true, 0, max_dim(x) - 1};
        return r;
    }
    if (ir_node_is(n, "TopK") && out_slot == 1 && x) {
        range r = {true, 0, max_dim(x) - 1};
        return r;
    }
    if (ir_node_is(n, "Cast") && x && tosac_dtype_is_int(x->dtype) && tosac_dtype_bits(x->dtype) <= 32) {
        range r = {true, tosac_dtype_is_signed(x->dtype) ? -ldexp(1, tosac_dtype_bits(x->dtype) - 1) : 0,
                   ldexp(1, tosac_dtype_bits(x->dtype) - (tosac_dtype_is_signed(x->dtype) ? 1 : 0)) - 1};
        return r;
    }
    if (ir_node_is(n, "Cast") && x && x->dtype == TOSAC_DT_BOOL) {
        range r = {true, 0, 1};
        return r;
    }
    if (onnxop_has(n, ONNXOP_COPIES_VALUES))
        return a;
    if (ir_node_is(n, "Where")) {
        range c = n->n_inputs == 3 && n->inputs[2] >= 0 ? rg[n->inputs[2]] : none;
        return b.known && c.known ? span(b.lo, b.hi, c.lo, c.hi) : none;
    }
    if (!a.known)
        return none;
    if (ir_node_is(n, "Neg"))
        return span(-a.lo, -a.hi, -a.lo, -a.hi);
    if (ir_node_is(n, "Abs")) {
        range r = {true, a.lo <= 0 && a.hi >= 0 ? 0 : fmin(fabs(a.lo), fabs(a.hi)),
                   fmax(fabs(a.lo), fabs(a.hi))};
        return r;
    }
    if (ir_node_is(n, "ReduceSum") || ir_node_is(n, "CumSum")) {
        double k = x ? (double)tosac_shape_numel(x->rank, x->shape) : INFINITY;
        return span(a.lo * k, a.hi * k, a.lo, a.hi);
    }
    if ((ir_node_is(n, "Concat") || ir_node_is(n, "Max") || ir_node_is(n, "Min"))) {
        range r = a;
        for (int i = 1; i < n->n_inputs; i++) {
            range c = n->inputs[i] >= 0 ? rg[n->inputs[i]] : none;
            if (!c.known)
                return none;
            r.lo = fmin(r.lo, c.lo);
            r.hi = fmax(r.hi, c.hi);
        }
        return r;
    }
    if (!b.known)
        return none;
    if (ir_node_is(n, "Add"))
        return span(a.lo + b.lo, a.hi + b.hi, a.lo + b.lo, a.hi + b.hi);
    if (ir_node_is(n, "Sub"))
        return span(a.lo - b.hi, a.hi - b.lo, a.lo - b.hi, a.hi - b.lo);
    if (ir_node_is(n, "Mul"))
        return span(a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi);
    return none;
}

static bool is_i64(const ir_graph *g, int t) { return t >= 0 && g->tensors[t].dtype == TOSAC_DT_I64; }

/* Which int64 tensors may be narrowed: known range in int32, not a graph input, not captured
 * by a body, read only as values. */
static tosac_code plan(const ir_graph *g, unsigned char *narrow, tosac_error *err)
{
    range *rg = calloc((size_t)g->n_tensors + 1, sizeof *rg);
    unsigned char *keep = calloc((size_t)g->n_tensors + 1, 1);
    if (!rg || !keep) {
        free(rg);
        free(keep);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    }
    for (int t = 0; t < g->n_tensors; t++)
        if (is_i64(g, t) && g->tensors[t].data)
            rg[t] = of_const(g, t);
    for (int i = 0; i < g->n_nodes; i++) { /* topological order (toposorted by the caller) */
        const ir_node *n = &g->nodes[i];
        for (int o = 0; !n->dead && o < n->n_outputs; o++)
            if (is_i64(g, n->outputs[o]))
                rg[n->outputs[o]] = infer(g, n, o, rg);
    }
    /* a constant graph output has no producer to write its int32 twin */
    for (int t = 0; t < g->n_tensors; t++)
        narrow[t] = is_i64(g, t) && fits32(rg[t]) && !ir_graph_is_input(g, t) &&
                    g->tensors[t].outer_id < 0 && !(g->tensors[t].data && ir_graph_is_output(g, t));
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        for (int k = 0; !n->dead && k < n->n_inputs; k++)
            if (n->inputs[k] >= 0 && (control_slot(n, k) || ir_node_subgraph(n, 0)))
                narrow[n->inputs[k]] = 0;
        for (int o = 0; !n->dead && ir_node_subgraph(n, 0) && o < n->n_outputs; o++)
            if (n->outputs[o] >= 0)
                narrow[n->outputs[o]] = 0;
        /* values the bodies capture: the bodies read them as the int64 they declare */
        const ir_graph *sub;
        for (int b = 0; !n->dead && (sub = ir_node_subgraph(n, b)); b++)
            for (int t = 0; t < sub->n_tensors; t++)
                if (sub->tensors[t].outer_id >= 0 && sub->tensors[t].outer_id < g->n_tensors)
                    narrow[sub->tensors[t].outer_id] = 0;
    }
    /* a constant is narrowed for a reader that can compute in int32: all its int64 values
     * narrowed too (otherwise it would only be cast back) */
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        bool all = !n->dead;
        for (int k = 0; all && k < n->n_inputs; k++)
            all = !is_i64(g, n->inputs[k]) || control_slot(n, k) || narrow[n->inputs[k]];
        for (int o = 0; all && o < n->n_outputs; o++)
            all = !is_i64(g, n->outputs[o]) || narrow[n->outputs[o]];
        for (int k = 0; !n->dead && k < n->n_inputs; k++)
            if (is_i64(g, n->inputs[k]) && g->tensors[n->inputs[k]].data && !control_slot(n, k))
                keep[n->inputs[k]] |= all;
    }
    for (int t = 0; t < g->n_tensors; t++)
        if (g->tensors[t].data && !keep[t])
            narrow[t] = 0;
    free(keep);
    free(rg);
    return TOSAC_OK;
}

/* The exact value range of int64 constant t (for the message: doubles round past 2^53). */
static void const_extremes(const ir_graph *g, int t, int64_t *lo, int64_t *hi)
{
    tosac_tensor v;
    *lo = *hi = 0;
    if (!ir_graph_const_value(g, t, &v))
        return;
    for (int64_t i = 0, n = tosac_tensor_numel(&v); i < n; i++) {
        int64_t x = tosac_tensor_int_at(&v, i);
        *lo = i == 0 || x < *lo ? x : *lo;
        *hi = i == 0 || x > *hi ? x : *hi;
    }
}

/* An int64 constant outside int32 that is the only thing keeping a node with a lowering rule
 * in int64: a compile error naming the spec that would keep it. */
static tosac_code check_constants(const ir_graph *g, const tosa_spec *spec,
                                  const unsigned char *narrow, tosac_error *err)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (n->dead || !lower_find_rule(n->domain, n->op_type))
            continue;
        int bad = -1;
        bool others_ok = true;
        for (int k = 0; k < n->n_inputs; k++) {
            int t = n->inputs[k];
            if (!is_i64(g, t) || control_slot(n, k) || narrow[t])
                continue;
            if (g->tensors[t].data && !fits32(of_const(g, t)))
                bad = t;
            else
                others_ok = false;
        }
        if (bad < 0 || !others_ok)
            continue;
        int64_t lo, hi;
        const_extremes(g, bad, &lo, &hi);
        char desc[160], fix[256];
        partition_no_int64(spec, fix, sizeof fix);
        return tosac_fail(err, TOSAC_ERR_UNSUPPORTED,
                          "int64 constant '%s' (values %lld..%lld, read by %s) does not fit "
                          "int32 and %s", g->tensors[bad].name, (long long)lo, (long long)hi,
                          ir_node_desc(g, i, desc, sizeof desc), fix);
    }
    return TOSAC_OK;
}

/* A Cast named like origin, the node it serves (passes.h). */
static tosac_code add_cast(ir_graph *g, int from, int to, int onnx_to, const char *origin,
                           tosac_error *err)
{
    int k = ir_graph_add_node(g, "Cast", NULL, origin, &from, 1, &to, 1, err);
    return k < 0 ? err->code : ir_node_set_int(g, k, "to", onnx_to, err);
}

/* Narrowed tensors become int32: constants converted, Casts to int64 cast to int32. */
static tosac_code retype(ir_graph *g, const unsigned char *narrow, int n_tensors, tosac_error *err)
{
    for (int t = 0; t < n_tensors; t++) {
        if (!narrow[t])
            continue;
        ir_tensor *it = &g->tensors[t];
        it->dtype = TOSAC_DT_I32;
        if (!it->data) {
            int p = ir_graph_producer(g, t);
            if (p >= 0 && ir_node_is(&g->nodes[p], "Cast") &&
                ir_node_set_int(g, p, "to", ONNX_INT32, err))
                return err->code;
            continue;
        }
        int64_t n = (int64_t)(it->nbytes / sizeof(int64_t));
        int32_t *v = malloc((size_t)(n ? n : 1) * sizeof *v);
        if (!v)
            return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        for (int64_t i = 0; i < n; i++)
            v[i] = (int32_t)((const int64_t *)it->data)[i];
        tosac_code rc = ir_tensor_set_data(g, t, v, (size_t)n * sizeof *v, err);
        free(v);
        if (rc)
            return rc;
    }
    return TOSAC_OK;
}

static bool touches(const ir_node *n, const unsigned char *narrow, int n_tensors)
{
    for (int k = 0; k < n->n_inputs; k++)
        if (n->inputs[k] >= 0 && n->inputs[k] < n_tensors && narrow[n->inputs[k]])
            return true;
    for (int o = 0; o < n->n_outputs; o++)
        if (n->outputs[o] >= 0 && n->outputs[o] < n_tensors && narrow[n->outputs[o]])
            return true;
    return false;
}

/* The nodes (of the first n_nodes) that will stay on the CPU: those touching a narrowed
 * tensor whose trial lowering fails, exactly as the partitioner will try them. Casts are
 * not tried: a Cast reads any integer type, and a narrowed one writes int32 wherever it
 * runs. */
static void find_cpu_nodes(const tosa_spec *spec, const ir_graph *g, const unsigned char *narrow,
                           int n_tensors, unsigned char *cpu)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        char why[256];
        cpu[i] = !n->dead && !ir_node_is(n, "Cast") && touches(n, narrow, n_tensors) &&
                 !lower_trial_node(spec, g, i, why, sizeof why);
    }
}

/* Points the input slots of readers who[0..cnt) that read t and are (wide) or are not
 * (!wide) CPU nodes at tensor to. */
static void retarget(ir_graph *g, const int *who, int cnt, int t, int to, bool wide,
                     const unsigned char *cpu, int n_nodes)
{
    for (int c = 0; c < cnt; c++) {
        ir_node *n = &g->nodes[who[c]];
        if ((who[c] < n_nodes && cpu[who[c]]) != wide)
            continue;
        for (int k = 0; k < n->n_inputs; k++)
            if (n->inputs[k] == t)
                n->inputs[k] = to;
    }
}

/* Wires narrowed tensor t so that every node reads and writes the type it computes in:
 * a CPU node int64 (plain ONNX), any other node int32, and a graph output keeps its name and
 * int64. A producer and its readers on different sides get one Cast between them; the
 * CPU readers of a narrowed constant get an int64 copy of it. */
static tosac_code wire(ir_graph *g, int t, const unsigned char *cpu, int n_nodes, tosac_error *err)
{
    int cnt = ir_graph_consumers(g, t, NULL, 0);
    int *who = malloc(((size_t)cnt + 1) * sizeof *who);
    if (!who)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    ir_graph_consumers(g, t, who, cnt);
    bool wide = false, narrow = false;
    for (int c = 0; c < cnt; c++) {
        bool on_cpu = who[c] < n_nodes && cpu[who[c]];
        wide |= on_cpu;
        narrow |= !on_cpu;
    }
    int p = ir_graph_producer(g, t), k = 0;
    const char *origin = p >= 0 ? g->nodes[p].name : cnt ? g->nodes[who[0]].name : "";
    tosac_code rc = TOSAC_OK;
    if (g->tensors[t].data) {
        if (wide) { /* an int64 copy of the constant for the CPU readers */
            size_t n = g->tensors[t].nbytes / sizeof(int32_t);
            int64_t *v = malloc((n ? n : 1) * sizeof *v);
            char name[320];
            ir_graph_unique_name(g, g->tensors[t].name, name, sizeof name);
            if (!v) {
                free(who);
                return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
            }
            for (size_t i = 0; i < n; i++)
                v[i] = ((const int32_t *)g->tensors[t].data)[i];
            k = ir_graph_add_const_owned(g, name, TOSAC_DT_I64, g->tensors[t].rank,
                                         g->tensors[t].shape, v, n * sizeof *v, err);
            if (k >= 0)
                retarget(g, who, cnt, t, k, true, cpu, n_nodes);
        }
    } else if (p >= 0 && ir_node_is(&g->nodes[p], "Cast") && !narrow) {
        /* nothing computes in int32 (a lone CAST delegate would only be cast back) */
        g->tensors[t].dtype = TOSAC_DT_I64;
        rc = ir_node_set_int(g, p, "to", ONNX_INT64, err);
    } else if (p >= 0 && p < n_nodes && cpu[p]) {
        /* the producer writes int64: its delegated readers get a narrowing Cast */
        g->tensors[t].dtype = TOSAC_DT_I64;
        if (narrow && (k = pass_add_like(g, t, "_i32", TOSAC_DT_I32, err)) >= 0 &&
            !(rc = add_cast(g, t, k, ONNX_INT32, origin, err)))
            retarget(g, who, cnt, t, k, false, cpu, n_nodes);
    } else if (p >= 0 && ir_graph_is_output(g, t)) {
        /* the user still gets int64 under the output's name, from an int32 twin */
        if ((k = pass_add_like(g, t, "_i32", TOSAC_DT_I32, err)) >= 0) {
            for (int o = 0; o < g->nodes[p].n_outputs; o++)
                if (g->nodes[p].outputs[o] == t)
                    g->nodes[p].outputs[o] = k;
            g->tensors[t].dtype = TOSAC_DT_I64;
            if (!(rc = add_cast(g, k, t, ONNX_INT64, origin, err)))
                retarget(g, who, cnt, t, k, false, cpu, n_nodes);
        }
    } else if (wide && (k = pass_add_like(g, t, "_i64", TOSAC_DT_I64, err)) >= 0 &&
               !(rc = add_cast(g, t, k, ONNX_INT64, origin, err))) {
        /* CPU readers get int64 back */
        retarget(g, who, cnt, t, k, true, cpu, n_nodes);
    }
    free(who);
    return k < 0 ? err->code : rc;
}

/* n reads t as its indices only (slot 1), over an axis of a static size below 2^31. */
static bool index_reader(const ir_graph *g, const ir_node *n, int t)
{
    if (n->dead || !(ir_node_is(n, "Gather") || ir_node_is(n, "GatherElements")) ||
        n->n_inputs != 2 || n->inputs[1] != t || n->inputs[0] == t || n->inputs[0] < 0)
        return false;
    const ir_tensor *x = &g->tensors[n->inputs[0]];
    int64_t a = ir_node_attr_int(n, "axis", 0);
    a += a < 0 ? x->rank : 0;
    return x->rank >= 1 && a >= 0 && a < x->rank && x->shape[a] >= 0 &&
           x->shape[a] <= INT32_MAX;
}

/* Runtime int64 index inputs (see the top). Clip takes int64 bounds from opset 12. */
static tosac_code narrow_index_inputs(ir_graph *g, const pass_ctx *c, tosac_error *err)
{
    for (int i = 0; c->opset >= 12 && i < g->n_inputs; i++) {
        int t = g->inputs[i];
        if (!is_i64(g, t) || ir_graph_is_output(g, t) || g->tensors[t].outer_id >= 0)
            continue;
        int cnt = ir_graph_consumers(g, t, NULL, 0);
        int *who = malloc(((size_t)cnt + 1) * sizeof *who);
        if (!who)
            return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        ir_graph_consumers(g, t, who, cnt);
        bool all = cnt > 0;
        for (int k = 0; all && k < cnt; k++)
            all = index_reader(g, &g->nodes[who[k]], t);
        if (!all) {
            free(who);
            continue;
        }
        const int64_t lim[2] = {INT32_MIN, INT32_MAX};
        char origin[256];
        snprintf(origin, sizeof origin, "%s", g->nodes[who[0]].name);
        int lo = pass_add_const(g, g->tensors[t].name, "_min", TOSAC_DT_I64, 0, 1, &lim[0], err);
        int hi = lo < 0 ? -1 : pass_add_const(g, g->tensors[t].name, "_max", TOSAC_DT_I64, 0, 1,
                                              &lim[1], err);
        int cl = hi < 0 ? -1 : pass_add_like(g, t, "_clip", TOSAC_DT_I64, err);
        int nt = cl < 0 ? -1 : pass_add_like(g, t, "_i32", TOSAC_DT_I32, err);
        int ci[3] = {t, lo, hi};
        int kc = nt < 0 ? -1 : ir_graph_add_node(g, "Clip", NULL, origin, ci, 3, &cl, 1, err);
        tosac_code rc = kc < 0 ? err->code : add_cast(g, cl, nt, ONNX_INT32, origin, err);
        bool lowers = false;
        for (int k = 0; !rc && k < cnt; k++) {
            char why[256];
            g->nodes[who[k]].inputs[1] = nt;
            lowers |= lower_trial_node(c->spec, g, who[k], why, sizeof why);
        }
        if (!rc && !lowers) { /* nothing gained: the readers keep the int64 input */
            for (int k = 0; k < cnt; k++)
                g->nodes[who[k]].inputs[1] = t;
            ir_node_kill(g, kc);
            ir_node_kill(g, g->n_nodes - 1);
        }
        free(who);
        if (rc)
            return rc;
    }
    return TOSAC_OK;
}

tosac_code pass_narrow_int64(ir_graph *g, const pass_ctx *c, tosac_error *err)
{
    if (tosa_spec_keeps_int64(c->spec))
        return TOSAC_OK; /* the validator decides what a delegate may hold */
    tosac_code rc = ir_graph_toposort(g, err);
    if (rc)
        return rc;
    int n_tensors = g->n_tensors, n_nodes = g->n_nodes;
    unsigned char *narrow = calloc((size_t)n_tensors + 1, 1);
    unsigned char *cpu = calloc((size_t)n_nodes + 1, 1);
    rc = narrow && cpu ? plan(g, narrow, err)
                       : tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    if (!rc)
        rc = check_constants(g, c->spec, narrow, err);
    if (!rc)
        rc = retype(g, narrow, n_tensors, err);
    if (!rc)
        find_cpu_nodes(c->spec, g, narrow, n_tensors, cpu);
    for (int t = 0; !rc && t < n_tensors; t++)
        if (narrow[t])
            rc = wire(g, t, cpu, n_nodes, err);
    if (!rc)
        rc = narrow_index_inputs(g, c, err);
    free(narrow);
    free(cpu);
    return rc ? rc : ir_graph_toposort(g, err);
}
