/* Read-only IR views of the program's CPU graphs, built in the arena: the records' strings,
 * ids, constants and lists are used in place; only the ir_* structs are laid out anew. Init
 * checks here what running relies on: nodes in topological order, every operator resolved,
 * every TosaDelegate node bound to its delegate, every value's planned buffer inside the
 * planned region. */
#include <string.h>

#include "runtime/rt_internal.h"
#include "tosac/program.h"

_Static_assert(sizeof(int) == sizeof(int32_t), "the view uses the records' int32 ids as int");

#define NEW(rt, type, n) ((type *)tosac_arena_alloc(&(rt)->state, sizeof(type) * (size_t)(n), 16))

static tosac_code oom(tosac_error *err)
{
    return tosac_fail(err, TOSAC_ERR_INPUT, "the arena is too small for the runtime's state");
}

static void const_tensor(const rt_program *p, uint32_t c, tosac_tensor *t)
{
    const rt_const_rec *r = rt_constant(p, c);
    memset(t, 0, sizeof *t);
    t->dtype = (tosac_dtype)r->dtype;
    t->rank = r->rank;
    for (int d = 0; d < r->rank; d++)
        t->shape[d] = r->shape[d];
    t->data = (void *)rt_constant_data(p, c);
    t->nbytes = (size_t)r->nbytes;
}

static tosac_code build_attr(tosac_rt *rt, const rt_attr_rec *r, ir_attr *a, tosac_error *err)
{
    const rt_program *p = &rt->prog;
    memset(a, 0, sizeof *a);
    a->name = (char *)rt_str(p, r->name);
    a->kind = (ir_attr_kind)r->kind;
    a->n = (int)r->n;
    switch (r->kind) {
    case RT_ATTR_FLOAT: a->f = r->f; break;
    case RT_ATTR_INT: a->i = r->i; break;
    case RT_ATTR_STRING: a->s = (char *)rt_str(p, r->at); break;
    case RT_ATTR_TENSOR: const_tensor(p, r->at, &a->t); break;
    case RT_ATTR_GRAPH: a->g = &rt->graphs[r->at].g; break;
    case RT_ATTR_FLOATS: a->floats = (float *)rt_attr_floats(p, r); break;
    case RT_ATTR_INTS: a->ints = (int64_t *)rt_attr_ints(p, r); break;
    case RT_ATTR_STRINGS:
        if (!(a->strings = NEW(rt, char *, r->n ? r->n : 1)))
            return oom(err);
        for (uint32_t k = 0; k < r->n; k++)
            a->strings[k] = (char *)rt_str(p, (rt_str_ref)rt_attr_ids(p, r)[k]);
        break;
    case RT_ATTR_TENSORS:
        if (!(a->tensors = NEW(rt, tosac_tensor, r->n ? r->n : 1)))
            return oom(err);
        for (uint32_t k = 0; k < r->n; k++)
            const_tensor(p, (uint32_t)rt_attr_ids(p, r)[k], &a->tensors[k]);
        break;
    case RT_ATTR_GRAPHS:
        if (!(a->graphs = NEW(rt, ir_graph *, r->n ? r->n : 1)))
            return oom(err);
        for (uint32_t k = 0; k < r->n; k++)
            a->graphs[k] = &rt->graphs[rt_attr_ids(p, r)[k]].g;
        break;
    default: break;
    }
    return TOSAC_OK;
}

/* Tensors and their value descriptions: constants point at their data, planned values at
 * their buffer in the planned region. */
static tosac_code build_tensors(tosac_rt *rt, rt_gview *G, tosac_error *err)
{
    const rt_program *p = &rt->prog;
    int nt = G->g.n_tensors;
    G->g.tensors = NEW(rt, ir_tensor, nt ? nt : 1);
    G->vals = NEW(rt, tosac_tensor, nt ? nt : 1);
    G->cap = NEW(rt, size_t, nt ? nt : 1);
    if (!G->g.tensors || !G->vals || !G->cap)
        return oom(err);
    memset(G->vals, 0, sizeof *G->vals * (size_t)(nt ? nt : 1));
    for (int t = 0; t < nt; t++) {
        const rt_tensor_rec *r = rt_graph_tensor(p, (uint32_t)G->index, (uint32_t)t);
        ir_tensor *it = &G->g.tensors[t];
        tosac_tensor *v = &G->vals[t];
        memset(it, 0, sizeof *it);
        it->name = (char *)rt_str(p, r->name);
        it->dtype = (tosac_dtype)r->dtype;
        it->rank = r->rank;
        for (int d = 0; d < TOSAC_MAX_RANK; d++)
            it->shape[d] = d < r->rank ? r->shape[d] : 0;
        it->outer_id = (r->flags & RT_TENSOR_CAPTURE) ? r->outer_id : -1;
        G->cap[t] = 0;
        if (r->flags & RT_TENSOR_CONST) {
            const_tensor(p, (uint32_t)r->const_ref, v);
            it->data = v->data;
            it->nbytes = v->nbytes;
            continue;
        }
        int64_t off = rt_plan_cpu_offset(p, (uint32_t)G->index, (uint32_t)t);
        if (off < 0 || it->outer_id >= 0) /* a capture reads the enclosing graph's value */
            continue;
        int ok = r->rank >= 0;
        uint64_t bytes = ok ? rt_shape_bytes(r->dtype, r->rank, r->shape, &ok) : 0;
        if (!ok || (uint64_t)off > rt->planned_bytes || bytes > rt->planned_bytes - (uint64_t)off)
            return tosac_fail(err, TOSAC_ERR_INPUT, "plan: value '%s' of graph %d has no static "
                              "size or lies outside the planned region", it->name, G->index);
        v->dtype = it->dtype;
        v->rank = it->rank;
        memcpy(v->shape, it->shape, sizeof v->shape);
        v->data = rt->planned + off;
        v->nbytes = (size_t)bytes;
        G->cap[t] = (size_t)bytes;
    }
    return TOSAC_OK;
}

static tosac_code build_nodes(tosac_rt *rt, rt_gview *G, tosac_error *err)
{
    const rt_program *p = &rt->prog;
    int nn = G->g.n_nodes;
    G->g.nodes = NEW(rt, ir_node, nn ? nn : 1);
    G->ops = NEW(rt, const cpu_op_entry *, nn ? nn : 1);
    G->delegate = NEW(rt, int, nn ? nn : 1);
    G->step = NEW(rt, int, nn ? nn : 1);
    G->prep = NEW(rt, void *, nn ? nn : 1);
    G->pblk = NEW(rt, void *, nn ? nn : 1);
    G->pbytes = NEW(rt, size_t, nn ? nn : 1);
    if (!G->g.nodes || !G->ops || !G->delegate || !G->step || !G->prep || !G->pblk ||
        !G->pbytes)
        return oom(err);
    memset(G->pblk, 0, sizeof(void *) * (size_t)(nn ? nn : 1));
    memset(G->pbytes, 0, sizeof(size_t) * (size_t)(nn ? nn : 1));
    for (int k = 0; k < nn; k++) {
        const rt_node_rec *r = rt_graph_node(p, (uint32_t)G->index, (uint32_t)k);
        ir_node *n = &G->g.nodes[k];
        memset(n, 0, sizeof *n);
        n->name = (char *)rt_str(p, r->name);
        n->op_type = rt_str(p, r->op_type);
        n->domain = rt_str(p, r->domain);
        n->n_inputs = (int)r->n_inputs;
        n->inputs = (int *)&p->ids[r->inputs_at];
        n->n_outputs = (int)r->n_outputs;
        n->outputs = (int *)&p->ids[r->outputs_at];
        n->n_attrs = (int)r->n_attrs;
        n->attrs = NEW(rt, ir_attr, r->n_attrs ? r->n_attrs : 1);
        if (!n->attrs)
            return oom(err);
        for (uint32_t a = 0; a < r->n_attrs; a++) {
            tosac_code rc = build_attr(rt, rt_node_attr(p, r, a), &n->attrs[a], err);
            if (rc)
                return rc;
        }
        G->delegate[k] = -1;
        G->ops[k] = NULL;
    }
    return TOSAC_OK;
}

static const char *node_name(const ir_node *n) { return n->name[0] ? n->name : "?"; }

static bool is_delegate_node(const ir_node *n)
{
    return strcmp(n->domain, IR_DOMAIN_TOSAC) == 0 && strcmp(n->op_type, TOSAC_DELEGATE_OP) == 0;
}

/* The operator's prepare step (cpu_internal.h) once, its state in the arena: what depends only
 * on the program is checked here, at init, never at invoke. */
static tosac_code prepare_op(tosac_rt *rt, rt_gview *G, int k, tosac_error *err)
{
    const cpu_op_entry *e = G->ops[k];
    G->prep[k] = NULL;
    if (!e->prep)
        return TOSAC_OK;
    void *st = tosac_arena_alloc(&rt->state, e->prep->size ? e->prep->size : 1, 16);
    if (!st)
        return oom(err);
    cpu_ctx c;
    memset(&c, 0, sizeof c);
    c.g = &G->g;
    c.node = &G->g.nodes[k];
    c.opset = rt->opset;
    c.err = err;
    tosac_code rc = cpu_prepare(&c, e, st);
    G->prep[k] = st;
    return rc;
}

/* Every node's implementation: its delegate, or the resolver's operator. */
static tosac_code resolve_ops(tosac_rt *rt, rt_gview *G, const tosac_rt_options *o,
                              tosac_error *err)
{
    for (int k = 0; k < G->g.n_nodes; k++) {
        const ir_node *n = &G->g.nodes[k];
        if (G->delegate[k] >= 0)
            continue;
        if (is_delegate_node(n))
            return tosac_fail(err, TOSAC_ERR_INPUT, "graph %d: TosaDelegate node '%s' has no "
                              "DELEGATE section", G->index, node_name(n));
        if (strcmp(n->domain, "") != 0 && strcmp(n->domain, "ai.onnx") != 0)
            return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "node '%s': operator %s of domain "
                              "'%s' is not supported by the runtime", node_name(n), n->op_type,
                              n->domain);
        G->ops[k] = o->resolve(n->op_type);
        if (!G->ops[k])
            return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "node '%s': operator %s is not in "
                              "the runtime's operator table", node_name(n), n->op_type);
        if (n->n_inputs > CPU_MAX_IO || n->n_outputs > CPU_MAX_IO)
            return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "node '%s' (%s): more than %d inputs "
                              "or outputs", node_name(n), n->op_type, CPU_MAX_IO);
        tosac_code rc = prepare_op(rt, G, k, err);
        if (rc)
            return rc;
    }
    return TOSAC_OK;
}

/* Nodes run in file order: each input must be a graph input, a constant, a capture or the
 * output of an earlier node (and each value produced once). */
static tosac_code check_order(tosac_rt *rt, rt_gview *G, tosac_error *err)
{
    size_t mark = rt->state.used;
    int nt = G->g.n_tensors;
    unsigned char *known = NEW(rt, unsigned char, nt ? nt : 1);
    if (!known)
        return oom(err);
    memset(known, 0, (size_t)(nt ? nt : 1));
    for (int i = 0; i < G->g.n_inputs; i++)
        known[G->g.inputs[i]] = 1;
    for (int t = 0; t < nt; t++)
        if (G->g.tensors[t].data || G->g.tensors[t].outer_id >= 0)
            known[t] = 1;
    tosac_code rc = TOSAC_OK;
    for (int k = 0; k < G->g.n_nodes && !rc; k++) {
        const ir_node *n = &G->g.nodes[k];
        for (int i = 0; i < n->n_inputs && !rc; i++)
            if (n->inputs[i] >= 0 && !known[n->inputs[i]])
                rc = tosac_fail(err, TOSAC_ERR_INPUT, "graph %d: node '%s' reads '%s' before "
                                "it is computed (nodes must be in execution order)", G->index,
                                node_name(n), G->g.tensors[n->inputs[i]].name);
        const ir_graph *sub;
        for (int b = 0; !rc && (sub = ir_node_subgraph(n, b)); b++) {
            if (((const rt_gview *)sub)->parent != G)
                rc = tosac_fail(err, TOSAC_ERR_INPUT, "graph %d: a body of node '%s' belongs "
                                "to another graph", G->index, node_name(n));
            for (int t = 0; t < sub->n_tensors && !rc; t++) {
                int o = sub->tensors[t].outer_id;
                if (o >= nt || (o >= 0 && !known[o]))
                    rc = tosac_fail(err, TOSAC_ERR_INPUT, "graph %d: a body of node '%s' "
                                    "captures a value computed after it", G->index,
                                    node_name(n));
            }
        }
        for (int i = 0; i < n->n_outputs && !rc; i++) {
            int t = n->outputs[i];
            if (t >= 0 && known[t])
                rc = tosac_fail(err, TOSAC_ERR_INPUT, "graph %d: value '%s' has more than one "
                                "producer", G->index, G->g.tensors[t].name);
            else if (t >= 0)
                known[t] = 1;
        }
    }
    for (int i = 0; i < G->g.n_outputs && !rc; i++)
        if (!known[G->g.outputs[i]])
            rc = tosac_fail(err, TOSAC_ERR_INPUT, "graph %d: output '%s' is never computed",
                            G->index, G->g.tensors[G->g.outputs[i]].name);
    rt->state.used = mark; /* the marks were only needed here */
    return rc;
}

/* Binds each DELEGATE section to its TosaDelegate node. */
static tosac_code bind_delegates(tosac_rt *rt, tosac_error *err)
{
    const rt_program *p = &rt->prog;
    for (uint32_t d = 0; d < p->n_delegates; d++) {
        rt_delegate_view v = rt_program_delegate(p, d);
        int gi = v.rec->graph, ni = v.rec->node;
        if (gi < 0 || gi >= rt->n_graphs || ni < 0 || ni >= rt->graphs[gi].g.n_nodes)
            return tosac_fail(err, TOSAC_ERR_INPUT, "delegate %u: node %d of graph %d does not "
                              "exist", d, ni, gi);
        rt_gview *G = &rt->graphs[gi];
        const ir_node *n = &G->g.nodes[ni];
        if (!is_delegate_node(n) || ir_node_attr_int(n, "index", -1) != (int64_t)d ||
            G->delegate[ni] >= 0)
            return tosac_fail(err, TOSAC_ERR_INPUT, "delegate %u: node %d of graph %d is not "
                              "its TosaDelegate node", d, ni, gi);
        if (v.rec->n_inputs != (uint32_t)n->n_inputs || v.rec->n_outputs != (uint32_t)n->n_outputs)
            return tosac_fail(err, TOSAC_ERR_INPUT, "delegate %u: %u inputs and %u outputs, its "
                              "node has %d and %d", d, v.rec->n_inputs, v.rec->n_outputs,
                              n->n_inputs, n->n_outputs);
        for (int i = 0; i < n->n_inputs; i++)
            if (v.inputs[i] != n->inputs[i])
                return tosac_fail(err, TOSAC_ERR_INPUT, "delegate %u: input %d differs from its "
                                  "node's", d, i);
        for (int i = 0; i < n->n_outputs; i++)
            if (v.outputs[i] != n->outputs[i])
                return tosac_fail(err, TOSAC_ERR_INPUT, "delegate %u: output %d differs from "
                                  "its node's", d, i);
        G->delegate[ni] = (int)d;
        rt->delegates[d].graph_index = gi;
        rt->delegates[d].node = ni;
    }
    return TOSAC_OK;
}

tosac_code rt_build_graphs(tosac_rt *rt, const tosac_rt_options *o, tosac_error *err)
{
    const rt_program *p = &rt->prog;
    rt->n_graphs = (int)p->n_graphs;
    rt->n_delegates = (int)p->n_delegates;
    rt->graphs = NEW(rt, rt_gview, p->n_graphs ? p->n_graphs : 1);
    rt->delegates = NEW(rt, rt_delegate, p->n_delegates ? p->n_delegates : 1);
    if (!rt->graphs || !rt->delegates)
        return oom(err);
    memset(rt->graphs, 0, sizeof *rt->graphs * (p->n_graphs ? p->n_graphs : 1));
    memset(rt->delegates, 0, sizeof *rt->delegates * (p->n_delegates ? p->n_delegates : 1));
    if (p->n_graphs == 0)
        return tosac_fail(err, TOSAC_ERR_INPUT, "program: no CPU graph");
    rt->opset = 0;
    for (uint32_t k = 0; k < p->n_opsets; k++)
        if (!strcmp(rt_str(p, p->opsets[k].domain), "") ||
            !strcmp(rt_str(p, p->opsets[k].domain), "ai.onnx"))
            rt->opset = p->opsets[k].version;
    if (rt->opset == 0)
        rt->opset = 13;
    tosac_code rc = TOSAC_OK;
    for (int gi = 0; gi < rt->n_graphs && !rc; gi++) {
        const rt_graph_rec *r = rt_graph(p, (uint32_t)gi);
        rt_gview *G = &rt->graphs[gi];
        G->index = gi;
        G->parent = r->parent >= 0 ? &rt->graphs[r->parent] : NULL;
        G->g.name = (char *)rt_str(p, r->name);
        G->g.parent = G->parent ? &G->parent->g : NULL;
        G->g.n_tensors = G->g.cap_tensors = (int)r->n_tensors;
        G->g.n_nodes = G->g.cap_nodes = (int)r->n_nodes;
        G->g.n_inputs = G->g.cap_inputs = (int)r->n_inputs;
        G->g.inputs = (int *)&p->ids[r->inputs_at];
        G->g.n_outputs = G->g.cap_outputs = (int)r->n_outputs;
        G->g.outputs = (int *)&p->ids[r->outputs_at];
        rc = build_tensors(rt, G, err);
        if (!rc)
            rc = build_nodes(rt, G, err);
    }
    if (!rc)
        rc = bind_delegates(rt, err);
    for (int gi = 0; gi < rt->n_graphs && !rc; gi++) {
        rc = resolve_ops(rt, &rt->graphs[gi], o, err);
        if (!rc)
            rc = check_order(rt, &rt->graphs[gi], err);
    }
    return rc;
}

const tosac_tensor *rt_value(const rt_gview *G, int id)
{
    for (int depth = 0; G && id >= 0 && id < G->g.n_tensors && depth < 256; depth++) {
        const ir_tensor *t = &G->g.tensors[id];
        if (G->vals[id].data)
            return &G->vals[id];
        if (t->outer_id < 0)
            return NULL;
        id = t->outer_id;
        G = G->parent;
    }
    return NULL;
}
