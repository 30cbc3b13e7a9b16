/* The compiler driver: import -> shapes -> passes -> partition -> lower -> program. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/compile_int_io.h"
#include "compile/compile_json.h"
#include "compile/program_internal.h"
#include "cpu/cpu_exec.h"
#include "lower/lower.h"
#include "partition/partition.h"
#include "passes/passes.h"
#include "tosac/compile.h"

typedef struct compile_state {
    tosa_spec spec;
    ir_model *m;
    compile_orig_node *orig;
    int n_orig;
    partition_plan plan;
    tosa_graph **dg;
    char **meta;
    int n_dg;
} compile_state;

static void state_free(compile_state *s)
{
    for (int i = 0; i < s->n_orig; i++) {
        free(s->orig[i].name);
        free(s->orig[i].q_float);
        free(s->orig[i].q_int);
    }
    free(s->orig);
    partition_plan_free(&s->plan);
    for (int i = 0; i < s->n_dg; i++) {
        tosa_graph_free(s->dg ? s->dg[i] : NULL);
        free(s->meta ? s->meta[i] : NULL);
    }
    free(s->dg);
    free(s->meta);
    ir_model_free(s->m);
}

static tosac_code apply_shapes(ir_model *m, const tosac_compile_options *o, tosac_error *err)
{
    for (int i = 0; i < o->n_input_shapes; i++) {
        char name[256];
        int rank;
        int64_t dims[TOSAC_MAX_RANK];
        tosac_code rc = ir_parse_input_shape(o->input_shapes[i], name, sizeof name, &rank, dims,
                                             err);
        if (!rc)
            rc = ir_model_set_input_shape(m, name, rank, dims, err);
        if (rc)
            return rc;
    }
    return ir_model_infer_shapes(m, err);
}

static size_t name_hash(const char *s)
{
    size_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* Every node gets a unique name ("<OpType>_<i>" when it had none or a repeated one) so the
 * report can follow it through the passes (pass-made nodes inherit their origin's name).
 * Earlier nodes' final names are kept in a hash set (node index + 1 per slot). */
static tosac_code name_nodes(ir_graph *g, tosac_error *err)
{
    size_t cap = 64;
    while (cap < (size_t)g->n_nodes * 2 + 2)
        cap *= 2;
    int *set = calloc(cap, sizeof *set);
    if (!set)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    tosac_code rc = TOSAC_OK;
    for (int i = 0; i < g->n_nodes && !rc; i++) {
        ir_node *n = &g->nodes[i];
        bool dup = !n->name || !n->name[0];
        size_t h = dup ? 0 : name_hash(n->name) & (cap - 1);
        for (; !dup && set[h]; h = (h + 1) & (cap - 1))
            dup = strcmp(g->nodes[set[h] - 1].name, n->name) == 0;
        if (dup) {
            char buf[128];
            snprintf(buf, sizeof buf, "%s_%d", n->op_type, i);
            char *nm = strdup(buf);
            if (!nm) {
                rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
                break;
            }
            free(n->name);
            n->name = nm;
            for (h = name_hash(nm) & (cap - 1); set[h]; h = (h + 1) & (cap - 1))
                ;
        }
        set[h] = i + 1;
    }
    free(set);
    return rc;
}

static tosac_code remember_nodes(compile_state *s, tosac_error *err)
{
    ir_graph *g = s->m->graph;
    tosac_code rc = name_nodes(g, err);
    if (rc)
        return rc;
    s->orig = calloc((size_t)g->n_nodes + 1, sizeof *s->orig);
    if (!s->orig)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    for (int i = 0; i < g->n_nodes; i++) {
        s->orig[i].name = strdup(g->nodes[i].name ? g->nodes[i].name : "");
        s->orig[i].op_type = g->nodes[i].op_type;
        s->n_orig++;
        const ir_node *n = &g->nodes[i];
        if (ir_node_is(n, "QuantizeLinear") && n->n_inputs > 0 && n->inputs[0] >= 0 &&
            n->n_outputs > 0 && n->outputs[0] >= 0) {
            s->orig[i].q_float = strdup(g->tensors[n->inputs[0]].name);
            s->orig[i].q_int = strdup(g->tensors[n->outputs[0]].name);
            if (!s->orig[i].q_float || !s->orig[i].q_int)
                return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        }
        if (!s->orig[i].name)
            return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    }
    return TOSAC_OK;
}

/* Makes room for delegates up to index end (new slots NULL). */
static tosac_code reserve_delegates(compile_state *s, int end, tosac_error *err)
{
    if (end <= s->n_dg)
        return TOSAC_OK;
    tosa_graph **dg = realloc(s->dg, ((size_t)end + 1) * sizeof *dg);
    if (dg)
        s->dg = dg;
    char **meta = dg ? realloc(s->meta, ((size_t)end + 1) * sizeof *meta) : NULL;
    if (meta)
        s->meta = meta;
    if (!dg || !meta)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    for (int i = s->n_dg; i < end; i++) {
        s->dg[i] = NULL;
        s->meta[i] = NULL;
    }
    s->n_dg = end;
    return TOSAC_OK;
}

/* Lowers the delegates of plan over g (before g is rewritten) into slots base, base + 1, ...
 * On failure those slots are emptied again (and dropped when they were the last ones). */
static tosac_code lower_delegates(compile_state *s, const ir_graph *g, const partition_plan *pl,
                                  int base, tosac_error *err)
{
    int n = pl->n_parts, old_n = s->n_dg;
    tosac_code rc = reserve_delegates(s, base + n, err);
    for (int k = 0; !rc && k < n; k++) {
        int *nodes = NULL, nn = 0, *ins = NULL, n_in = 0, *outs = NULL, n_out = 0;
        rc = partition_nodes(g, pl, k, &nodes, &nn, err);
        if (!rc)
            rc = partition_io(g, pl, k, &ins, &n_in, &outs, &n_out, err);
        if (!rc)
            rc = lower_subgraph(&s->spec, g, nodes, nn, ins, n_in, outs, n_out, &s->dg[base + k],
                                err);
        if (!rc && !(s->meta[base + k] = compile_delegate_meta(g, ins, n_in, outs, n_out)))
            rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory writing metadata");
        free(nodes);
        free(ins);
        free(outs);
        if (rc)
            rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "lowering delegate %d failed", base + k);
    }
    if (rc) {
        for (int k = base; k < base + n && k < s->n_dg; k++) {
            tosa_graph_free(s->dg[k]);
            free(s->meta[k]);
            s->dg[k] = NULL;
            s->meta[k] = NULL;
        }
        if (s->n_dg == base + n && old_n <= base)
            s->n_dg = old_n;
    }
    return rc;
}

/* Each delegate's nodes become one TosaDelegate node (index base + k, global over the whole
 * program); unread nodes and tensors go. */
static tosac_code rewrite_cpu_graph(ir_graph *g, const partition_plan *pl, int base,
                                    tosac_error *err)
{
    int n_before = g->n_nodes;
    for (int k = 0; k < pl->n_parts; k++) {
        int *ins = NULL, n_in = 0, *outs = NULL, n_out = 0;
        tosac_code rc = partition_io(g, pl, k, &ins, &n_in, &outs, &n_out, err);
        char name[32];
        snprintf(name, sizeof name, "delegate_%d", base + k);
        int node = rc ? -1 : ir_graph_add_node(g, TOSAC_DELEGATE_OP, IR_DOMAIN_TOSAC, name, ins,
                                              n_in, outs, n_out, err);
        free(ins);
        free(outs);
        if (node < 0 || ir_node_set_int(g, node, "index", base + k, err))
            return err->code ? err->code : TOSAC_ERR_INTERNAL;
    }
    for (int i = 0; i < n_before && i < pl->n_nodes; i++)
        if (pl->part[i] >= 0)
            ir_node_kill(g, i);
    /* nodes whose values nobody reads (e.g. Constant nodes only delegates used) */
    for (bool again = true; again;) {
        again = false;
        for (int i = 0; i < g->n_nodes; i++) {
            ir_node *n = &g->nodes[i];
            if (n->dead)
                continue;
            bool used = false;
            for (int o = 0; o < n->n_outputs && !used; o++)
                used = n->outputs[o] >= 0 && (ir_graph_is_output(g, n->outputs[o]) ||
                                              ir_graph_consumers(g, n->outputs[o], NULL, 0) > 0 ||
                                              partition_captured(g, n->outputs[o]));
            if (!used) {
                ir_node_kill(g, i);
                again = true;
            }
        }
    }
    ir_graph_compact(g);
    tosac_code rc = ir_graph_toposort(g, err);
    if (!rc)
        rc = ir_graph_prune_tensors(g, NULL, err);
    return rc;
}

/* Every node left on the CPU (bodies included) needs a CPU implementation: an operator neither
 * the spec nor the CPU executor has is the model's problem (exit 2), not a program that later
 * fails the read-back check as an internal error. */
static tosac_code check_cpu_runnable(const ir_graph *g, const tosa_spec *spec, tosac_error *err)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (strcmp(n->domain, IR_DOMAIN_TOSAC) == 0 && strcmp(n->op_type, TOSAC_DELEGATE_OP) == 0)
            continue;
        bool onnx = strcmp(n->domain, "") == 0 || strcmp(n->domain, "ai.onnx") == 0;
        if (!onnx || !cpu_op_supported(n->op_type)) {
            char sp[64];
            tosa_spec_to_string(spec, sp, sizeof sp);
            return tosac_fail(err, TOSAC_ERR_UNSUPPORTED,
                              "node '%s': operator %s%s%s is neither in %s nor supported on the CPU",
                              n->name, onnx ? "" : n->domain, onnx ? "" : ".", n->op_type, sp);
        }
        const ir_graph *sub;
        for (int k = 0; (sub = ir_node_subgraph(n, k)); k++) {
            tosac_code rc = check_cpu_runnable(sub, spec, err);
            if (rc)
                return rc;
        }
    }
    return TOSAC_OK;
}

/* The CPU-side nodes of plan over g (pass_unfold_cpu restores their ONNX form). */
static tosac_code unfold_cpu(ir_graph *g, const partition_plan *pl, tosac_error *err)
{
    unsigned char *cpu = calloc((size_t)g->n_nodes + 1, 1);
    if (!cpu)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    for (int i = 0; i < g->n_nodes; i++)
        cpu[i] = pl->part[i] < 0;
    tosac_code rc = pass_unfold_cpu(g, cpu, err);
    free(cpu);
    return rc;
}

static tosac_code compile_bodies(compile_state *s, ir_graph *g, const partition_plan *pl,
                                 int depth, tosac_error *err);

/* Partitions and lowers one If/Loop/Scan body. A body whose delegates cannot be lowered (a
 * case the trial lowering accepted but the whole subgraph does not) stays on the CPU. */
static tosac_code compile_body(compile_state *s, ir_graph *body, int depth, tosac_error *err)
{
    partition_plan pl;
    memset(&pl, 0, sizeof pl);
    tosac_code rc = partition_graph(&s->spec, body, &pl, err);
    int base = s->n_dg;
    if (!rc && pl.n_parts > 0) {
        rc = lower_delegates(s, body, &pl, base, err);
        if (rc == TOSAC_ERR_INTERNAL && s->n_dg == base) {
            tosac_error_clear(err);
            pl.n_parts = 0;
            for (int i = 0; i < pl.n_nodes; i++)
                pl.part[i] = -1;
            rc = TOSAC_OK;
        }
    }
    /* a body's Q/DQ were folded too (pipeline.c): its CPU nodes get float semantics back */
    if (!rc && pl.n_nodes > 0)
        rc = unfold_cpu(body, &pl, err);
    if (!rc && pl.n_parts > 0)
        rc = rewrite_cpu_graph(body, &pl, base, err);
    partition_plan_free(&pl);
    if (!rc)
        rc = compile_bodies(s, body, NULL, depth + 1, err);
    return rc;
}

/* Recurses into the bodies of g's control-flow nodes (of those left on the CPU by pl when
 * pl is given: others are delegated whole). */
static tosac_code compile_bodies(compile_state *s, ir_graph *g, const partition_plan *pl,
                                 int depth, tosac_error *err)
{
    if (depth > 32)
        return TOSAC_OK; /* absurd nesting stays on the CPU */
    tosac_code rc = TOSAC_OK;
    for (int i = 0; !rc && i < g->n_nodes; i++) {
        if (pl && i < pl->n_nodes && pl->part[i] >= 0)
            continue;
        ir_graph *sub;
        for (int k = 0; !rc && (sub = ir_node_subgraph(&g->nodes[i], k)); k++)
            rc = compile_body(s, sub, depth, err);
    }
    return rc;
}

tosac_code tosac_compile_model(ir_model *m, const tosac_compile_options *o, tosac_program **out,
                               char **report, tosac_error *err)
{
    *out = NULL;
    if (report)
        *report = NULL;
    compile_state s;
    memset(&s, 0, sizeof s);
    s.m = m;
    tosac_code rc = tosa_spec_parse(o->spec ? o->spec : "", &s.spec, err);
    /* nothing would be computed: a program with no outputs is a mistake, not a delegate */
    m->graph->onnx_opset = ir_model_opset(m, ""); /* what the lowering reads (lower_ctx.opset) */
    if (!rc && m->graph->n_outputs == 0)
        rc = tosac_fail(err, TOSAC_ERR_INPUT, "the model has no graph outputs: nothing to compile");
    if (!rc)
        rc = apply_shapes(m, o, err);
    if (!rc && o->int_io)
        rc = compile_int_io(m->graph, err);
    if (!rc)
        rc = remember_nodes(&s, err);
    pass_ctx pc = {&s.spec, ir_model_opset(m, "")};
    if (!rc)
        rc = passes_run(m->graph, &pc, err);
    if (!rc)
        rc = partition_graph(&s.spec, m->graph, &s.plan, err);
    /* the top level's delegates keep indices 0..n-1 (the report names them); the bodies'
     * follow. Compiling a body changes only that body, not the top-level nodes. */
    if (!rc)
        rc = reserve_delegates(&s, s.plan.n_parts, err);
    if (!rc)
        rc = compile_bodies(&s, m->graph, &s.plan, 0, err);
    char *rep = NULL;
    if (!rc && !(rep = compile_report(&s.spec, s.orig, s.n_orig, m->graph, &s.plan,
                                      s.n_dg - s.plan.n_parts)))
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory writing the report");
    if (!rc)
        rc = unfold_cpu(m->graph, &s.plan, err);
    if (!rc)
        rc = lower_delegates(&s, m->graph, &s.plan, 0, err);
    if (!rc)
        rc = rewrite_cpu_graph(m->graph, &s.plan, 0, err);
    if (!rc)
        rc = check_cpu_runnable(m->graph, &s.spec, err);
    if (!rc)
        rc = ir_model_set_opset(s.m, IR_DOMAIN_TOSAC, 1, err);
    tosac_program *p = NULL;
    if (!rc && !(p = calloc(1, sizeof *p)))
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    if (rc) {
        free(rep);
        state_free(&s);
        return rc;
    }
    p->cpu = s.m;
    p->n_delegates = s.n_dg;
    p->delegates = s.dg;
    p->meta = s.meta;
    p->report = strdup(rep); /* kept in the program for `tosac inspect` (NULL if no memory) */
    s.m = NULL;
    s.dg = NULL;
    s.meta = NULL;
    s.n_dg = 0;
    state_free(&s);
    *out = p;
    if (report)
        *report = rep;
    else
        free(rep);
    return TOSAC_OK;
}
