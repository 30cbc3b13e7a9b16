/* Running a program. The CPU graph is cut, in topological order, into stages: runs of CPU
 * nodes (each a standalone graph planned once on the CPU executor) and TosaDelegate nodes
 * (run on the TOSA interpreter). Values pass between stages by tensor id of the CPU graph.
 * Delegates inside If/Loop/Scan bodies run through the CPU executor's op hook
 * (delegate_hook below), which the executor passes down to every nested body plan. */
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_exec.h"
#include "interp/interp_state.h"
#include "tosac/interp.h"
#include "tosac/onnx.h"
#include "tosac/program.h"

typedef struct stage {
    int delegate;          /* delegate index, or -1 for a CPU segment */
    ir_model *seg;         /* CPU segment: its own copy of the graph */
    cpu_plan *plan;
    int *in, n_in;         /* tensor ids in the program's CPU graph */
    int *out, n_out;
} stage;

struct tosac_program_exec {
    stage *stages;
    int n_stages;
};

static void stage_free(stage *s)
{
    cpu_plan_free(s->plan);
    ir_model_free(s->seg);
    free(s->in);
    free(s->out);
}

void tosac_program_free_run(tosac_program *p)
{
    if (!p || !p->run_)
        return;
    for (int i = 0; i < p->run_->n_stages; i++)
        stage_free(&p->run_->stages[i]);
    free(p->run_->stages);
    free(p->run_);
    p->run_ = NULL;
}

static bool is_delegate(const ir_node *n)
{
    return strcmp(n->domain, IR_DOMAIN_TOSAC) == 0 && strcmp(n->op_type, TOSAC_DELEGATE_OP) == 0;
}

static bool is_const(const ir_graph *g, int t)
{
    tosac_tensor v;
    return ir_graph_const_value(g, t, &v);
}

static bool has(const int *a, int n, int v)
{
    for (int i = 0; i < n; i++)
        if (a[i] == v)
            return true;
    return false;
}

/* The op hook: a TosaDelegate node inside a body runs its TOSA graph on the interpreter. */
static int hook_accepts(void *user, const ir_node *n)
{
    const tosac_program *p = user;
    int64_t idx = ir_node_attr_int(n, "index", -1);
    return is_delegate(n) && idx >= 0 && idx < p->n_delegates;
}

static tosac_code hook_run(void *user, const ir_node *n, const tosac_tensor *const *in, int n_in,
                           tosac_tensor *out, int n_out, tosac_error *err)
{
    const tosac_program *p = user;
    int64_t idx = ir_node_attr_int(n, "index", -1);
    tosac_tensor views[256];
    if (n_in > 256)
        return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "delegate with over 256 inputs");
    for (int i = 0; i < n_in; i++) {
        if (!in[i])
            return tosac_fail(err, TOSAC_ERR_INPUT, "delegate %lld: input %d missing",
                              (long long)idx, i);
        views[i] = *in[i];
        views[i].owns_data = 0; /* borrowed from the executor */
    }
    return tosa_interp_run(p->delegates[idx], views, n_in, out, n_out, err);
}

/* ids of a's tensors in graph b, by name */
static tosac_code ids_by_name(const ir_graph *from, const ir_graph *to, const int *ids, int n,
                              int *out, tosac_error *err)
{
    for (int i = 0; i < n; i++) {
        out[i] = ir_graph_find_tensor(to, from->tensors[ids[i]].name);
        if (out[i] < 0)
            return tosac_fail(err, TOSAC_ERR_INTERNAL, "program: tensor '%s' lost in a segment",
                              from->tensors[ids[i]].name);
    }
    return TOSAC_OK;
}

/* A segment that reads a constant made by a Constant node of another stage takes its own
 * copy of that node: constants are not passed between stages. */
static void pull_in_constant(const ir_graph *g, unsigned char *in_seg, int t)
{
    int pr = t >= 0 ? ir_graph_producer(g, t) : -1;
    if (pr >= 0 && !in_seg[pr] && is_const(g, t))
        in_seg[pr] = 2; /* 2: only here for its value */
}

/* Builds the CPU segment of nodes in_seg[] (node flags over the copy g). */
static tosac_code build_segment(const ir_graph *orig, ir_graph *g, unsigned char *in_seg,
                                stage *s, tosac_error *err)
{
    for (int ni = 0; ni < g->n_nodes; ni++) {
        const ir_node *n = &g->nodes[ni];
        if (in_seg[ni] != 1)
            continue;
        for (int i = 0; i < n->n_inputs; i++)
            pull_in_constant(g, in_seg, n->inputs[i]);
        ir_graph *sub;
        for (int k = 0; (sub = ir_node_subgraph(n, k)); k++)
            for (int t = 0; t < sub->n_tensors; t++)
                pull_in_constant(g, in_seg, sub->tensors[t].outer_id);
    }
    int cap = g->n_tensors + 1;
    int *ins = malloc((size_t)cap * sizeof *ins), *outs = malloc((size_t)cap * sizeof *outs);
    int n_in = 0, n_out = 0;
    if (!ins || !outs) {
        free(ins);
        free(outs);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory planning a program");
    }
    for (int ni = 0; ni < g->n_nodes; ni++) {
        const ir_node *n = &g->nodes[ni];
        if (!in_seg[ni])
            continue;
        for (int i = 0; i < n->n_inputs; i++) {
            int t = n->inputs[i], pr = t >= 0 ? ir_graph_producer(g, t) : -1;
            if (t >= 0 && !is_const(g, t) && (pr < 0 || !in_seg[pr]) && !has(ins, n_in, t))
                ins[n_in++] = t;
        }
        ir_graph *sub;
        for (int k = 0; (sub = ir_node_subgraph(n, k)); k++)
            for (int t = 0; t < sub->n_tensors; t++) {
                int o = sub->tensors[t].outer_id, pr = o >= 0 ? ir_graph_producer(g, o) : -1;
                if (o >= 0 && !is_const(g, o) && (pr < 0 || !in_seg[pr]) && !has(ins, n_in, o))
                    ins[n_in++] = o;
            }
        for (int o = 0; o < n->n_outputs && in_seg[ni] == 1; o++) {
            int t = n->outputs[o];
            if (t < 0)
                continue;
            bool needed = ir_graph_is_output(g, t);
            int cnt = ir_graph_consumers(g, t, NULL, 0);
            int *who = cnt ? malloc((size_t)cnt * sizeof *who) : NULL;
            ir_graph_consumers(g, t, who, cnt);
            for (int c = 0; c < cnt && !needed; c++)
                needed = !in_seg[who[c]];
            free(who);
            if (needed)
                outs[n_out++] = t;
        }
    }
    for (int ni = 0; ni < g->n_nodes; ni++)
        if (!in_seg[ni])
            ir_node_kill(g, ni);
    ir_graph_compact(g);
    g->n_inputs = 0;
    g->n_outputs = 0;
    tosac_code rc = TOSAC_OK;
    for (int i = 0; !rc && i < n_in; i++)
        rc = ir_graph_mark_input(g, ins[i], err);
    for (int i = 0; !rc && i < n_out; i++)
        rc = ir_graph_mark_output(g, outs[i], err);
    s->in = malloc(((size_t)n_in + 1) * sizeof *s->in);
    s->out = malloc(((size_t)n_out + 1) * sizeof *s->out);
    if (!rc && (!s->in || !s->out))
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory planning a program");
    s->n_in = n_in;
    s->n_out = n_out;
    if (!rc)
        rc = ids_by_name(g, orig, ins, n_in, s->in, err);
    if (!rc)
        rc = ids_by_name(g, orig, outs, n_out, s->out, err);
    free(ins);
    free(outs);
    return rc;
}

static tosac_code plan(tosac_program *p, tosac_error *err)
{
    const ir_graph *g = p->cpu->graph;
    int nn = g->n_nodes > 0 ? g->n_nodes : 1;
    int *order = malloc((size_t)nn * sizeof *order), n_order = 0;
    unsigned char *flags = calloc((size_t)nn, 1);
    tosac_program_exec *ex = calloc(1, sizeof *ex);
    void *bytes = NULL;
    size_t len = 0;
    tosac_code rc = !order || !flags || !ex ? tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory")
                                            : ir_graph_topo_order(g, order, &n_order, err);
    if (!rc)
        ex->stages = calloc((size_t)n_order + 1, sizeof *ex->stages);
    if (!rc && !ex->stages)
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    if (!rc)
        rc = onnx_export_bytes(p->cpu, &bytes, &len, err);
    int64_t opset = ir_model_opset(p->cpu, "");
    cpu_hook hook = {hook_accepts, hook_run, p};
    for (int k = 0; !rc && k < n_order;) {
        stage *s = &ex->stages[ex->n_stages++];
        const ir_node *n = &g->nodes[order[k]];
        if (is_delegate(n)) {
            int64_t idx = ir_node_attr_int(n, "index", -1);
            if (idx < 0 || idx >= p->n_delegates) {
                rc = tosac_fail(err, TOSAC_ERR_INPUT, "program: delegate index %lld out of "
                                "range", (long long)idx);
                break;
            }
            s->delegate = (int)idx;
            s->in = malloc(((size_t)n->n_inputs + 1) * sizeof *s->in);
            s->out = malloc(((size_t)n->n_outputs + 1) * sizeof *s->out);
            if (!s->in || !s->out) {
                rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
                break;
            }
            memcpy(s->in, n->inputs, (size_t)n->n_inputs * sizeof *s->in);
            memcpy(s->out, n->outputs, (size_t)n->n_outputs * sizeof *s->out);
            s->n_in = n->n_inputs;
            s->n_out = n->n_outputs;
            k++;
            continue;
        }
        s->delegate = -1;
        memset(flags, 0, (size_t)nn);
        while (k < n_order && !is_delegate(&g->nodes[order[k]]))
            flags[order[k++]] = 1;
        rc = onnx_import_bytes(bytes, len, NULL, &s->seg, err);
        if (!rc && s->seg->graph->n_nodes != g->n_nodes)
            rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "program: segment copy differs");
        if (!rc)
            rc = build_segment(g, s->seg->graph, flags, s, err);
        if (!rc)
            rc = cpu_plan_create_ex(s->seg->graph, opset, &hook, &s->plan, err);
    }
    free(bytes);
    free(order);
    free(flags);
    p->run_ = ex;
    if (rc)
        tosac_program_free_run(p);
    return rc;
}

/* A TosaDelegate node's values against its delegate's main block: the interpreter binds
 * them exactly (count, dtype, and every static dimension). */
static tosac_code check_delegate_io(const tosac_program *p, const ir_graph *g, const ir_node *n,
                                    tosac_error *err)
{
    int64_t idx = ir_node_attr_int(n, "index", -1);
    if (idx < 0 || idx >= p->n_delegates)
        return tosac_fail(err, TOSAC_ERR_INPUT, "program: delegate index %lld out of range",
                          (long long)idx);
    const tosa_block *b = tosa_graph_main_block(p->delegates[idx]);
    if (!b)
        return tosac_fail(err, TOSAC_ERR_INPUT, "delegate %lld has no main block",
                          (long long)idx);
    if (n->n_inputs != b->n_inputs || n->n_outputs != b->n_outputs)
        return tosac_fail(err, TOSAC_ERR_INPUT,
                          "delegate %lld: the CPU graph passes %d inputs and takes %d outputs, "
                          "its graph has %d and %d", (long long)idx, n->n_inputs, n->n_outputs,
                          b->n_inputs, b->n_outputs);
    for (int i = 0; i < n->n_inputs + n->n_outputs; i++) {
        bool in = i < n->n_inputs;
        int k = in ? i : i - n->n_inputs, id = in ? n->inputs[k] : n->outputs[k];
        const tosa_tensor *bt = &b->tensors[in ? b->inputs[k] : b->outputs[k]];
        const ir_tensor *t = id >= 0 && id < g->n_tensors ? &g->tensors[id] : NULL;
        bool ok = t && (t->dtype == TOSAC_DT_UNKNOWN || t->dtype == bt->dtype) &&
                  (t->rank < 0 || t->rank == bt->rank);
        for (int d = 0; ok && t->rank >= 0 && d < t->rank; d++)
            ok = t->shape[d] < 0 || t->shape[d] == bt->shape[d];
        if (ok)
            continue;
        char a[96] = "(missing)", c[96];
        if (t)
            ir_tensor_type_str(t, a, sizeof a);
        snprintf(c, sizeof c, "%s", tosac_dtype_name(bt->dtype));
        tosac_shape_str(bt->rank, bt->shape, c + strlen(c), sizeof c - strlen(c));
        return tosac_fail(err, TOSAC_ERR_INPUT,
                          "delegate %lld: %s %d '%s' is %s in the CPU graph but %s in the "
                          "delegate", (long long)idx, in ? "input" : "output", k,
                          t ? t->name : "?", a, c);
    }
    return TOSAC_OK;
}

/* Every TosaDelegate node of g and of its bodies. */
static tosac_code check_delegate_nodes(const tosac_program *p, const ir_graph *g, int depth,
                                       tosac_error *err)
{
    if (depth > 64)
        return tosac_fail(err, TOSAC_ERR_INPUT, "program: bodies nested over 64 deep");
    tosac_code rc = TOSAC_OK;
    for (int i = 0; !rc && i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (is_delegate(n))
            rc = check_delegate_io(p, g, n, err);
        ir_graph *sub;
        for (int k = 0; !rc && (sub = ir_node_subgraph(n, k)); k++)
            rc = check_delegate_nodes(p, sub, depth + 1, err);
    }
    return rc;
}

tosac_code tosac_program_prepare(tosac_program *p, tosac_error *err)
{
    tosac_code rc = check_delegate_nodes(p, p->cpu->graph, 0, err);
    for (int i = 0; !rc && i < p->n_delegates; i++) {
        interp_state *st = NULL;
        tosac_error e;
        tosac_error_clear(&e);
        if (interp_prepare(p->delegates[i], &st, &e))
            rc = tosac_fail(err, e.code, "delegate %d does not load on the interpreter: %s", i,
                            e.msg);
        interp_state_free(st);
    }
    if (!rc && !p->run_)
        rc = plan(p, err);
    return rc;
}

static tosac_code copy_into(tosac_tensor *dst, const tosac_tensor *src, tosac_error *err)
{
    tosac_code rc = tosac_tensor_alloc(dst, src->dtype, src->rank, src->shape, err);
    if (!rc && src->nbytes)
        memcpy(dst->data, src->data, src->nbytes);
    return rc;
}

tosac_code tosac_program_run(tosac_program *p, const tosac_tensor *inputs, int n_inputs,
                             tosac_tensor *outputs, int n_outputs, tosac_error *err)
{
    const ir_graph *g = p->cpu->graph;
    if (n_inputs != g->n_inputs || n_outputs != g->n_outputs)
        return tosac_fail(err, TOSAC_ERR_INPUT, "program takes %d inputs and gives %d outputs",
                          g->n_inputs, g->n_outputs);
    tosac_code rc = p->run_ ? TOSAC_OK : plan(p, err);
    if (rc)
        return rc;
    int nt = g->n_tensors > 0 ? g->n_tensors : 1;
    tosac_tensor *vals = calloc((size_t)nt, sizeof *vals);
    unsigned char *have = calloc((size_t)nt, 1);
    tosac_tensor ins[256], outs[256];
    if (!vals || !have)
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory running a program");
    for (int i = 0; !rc && i < n_inputs; i++) {
        /* a view: the caller owns the data */
        vals[g->inputs[i]] = inputs[i];
        vals[g->inputs[i]].owns_data = 0;
        have[g->inputs[i]] = 1;
    }
    for (int si = 0; !rc && si < p->run_->n_stages; si++) {
        stage *s = &p->run_->stages[si];
        if (s->n_in > 256 || s->n_out > 256) {
            rc = tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "program stage with over 256 values");
            break;
        }
        for (int i = 0; !rc && i < s->n_in; i++) {
            if (!have[s->in[i]])
                rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "program: '%s' is not computed "
                                "before it is read", g->tensors[s->in[i]].name);
            else
                ins[i] = vals[s->in[i]];
        }
        if (rc)
            break;
        memset(outs, 0, sizeof outs);
        rc = s->delegate >= 0
                 ? tosa_interp_run(p->delegates[s->delegate], ins, s->n_in, outs, s->n_out, err)
                 : cpu_plan_run(s->plan, ins, s->n_in, outs, s->n_out, err);
        for (int i = 0; !rc && i < s->n_out; i++) {
            if (have[s->out[i]])
                tosac_tensor_free(&vals[s->out[i]]);
            vals[s->out[i]] = outs[i];
            have[s->out[i]] = 1;
        }
    }
    for (int i = 0; !rc && i < n_outputs; i++) {
        int t = g->outputs[i];
        tosac_tensor cv;
        if (have[t])
            rc = copy_into(&outputs[i], &vals[t], err);
        else if (ir_graph_const_value(g, t, &cv))
            rc = copy_into(&outputs[i], &cv, err);
        else
            rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "program: output '%s' was not computed",
                            g->tensors[t].name);
        if (rc)
            for (int k = 0; k < i; k++)
                tosac_tensor_free(&outputs[k]);
    }
    for (int i = 0; vals && i < g->n_tensors; i++)
        if (have[i])
            tosac_tensor_free(&vals[i]);
    free(vals);
    free(have);
    return rc;
}
