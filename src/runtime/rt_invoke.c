/* Running graphs: the CPU operators' executor side (cpu_env_ops over the arena) and the
 * node loop. Nothing here allocates: outputs go to planned buffers (or the dynamic region),
 * temporaries and kernel scratch to the step's planned scratch, body outputs are copied out
 * as temporaries of the calling node. */
#include <string.h>

#include "runtime/rt_internal.h"

/* The executor state of one running CPU node (cpu_ctx.exec). */
typedef struct rt_exec {
    tosac_rt *rt;
    rt_gview *G;
    int node;
    rt_heap heap;               /* the step's temporaries and scratch */
    unsigned char *scratch;     /* the kernel scratch block, NULL before the first request */
} rt_exec;

static const char *node_name(const ir_node *n) { return n->name[0] ? n->name : "?"; }

static void *bump(rt_exec *x, cpu_ctx *c, size_t bytes, const char *what)
{
    unsigned char *p = rt_heap_alloc(&x->heap, bytes);
    if (!p)
        cpu_fail(c, TOSAC_ERR_CAPACITY, "%s of %zu bytes do not fit in the %zu bytes planned for "
                 "its step (the size depends on the data)", what, bytes, x->heap.size);
    return p;
}

static tosac_code env_out(cpu_ctx *c, int i, tosac_dtype dt, int rank, const int64_t *shape,
                          size_t nbytes, int zero)
{
    rt_exec *x = c->exec;
    tosac_rt *rt = x->rt;
    int id = c->node->outputs[i];
    void *data;
    int64_t off = id >= 0 ? rt_plan_cpu_offset(&rt->prog, (uint32_t)x->G->index, (uint32_t)id)
                          : -1;
    if (id < 0) {
        data = bump(x, c, nbytes, "an unused output");
    } else if (x->G->cap[id] || (off >= 0 && x->G->g.tensors[id].outer_id < 0)) {
        if (nbytes > x->G->cap[id])
            return cpu_fail(c, TOSAC_ERR_CAPACITY, "output '%s' needs %zu bytes, %zu planned",
                            x->G->g.tensors[id].name, nbytes, x->G->cap[id]);
        data = rt->planned + off;
    } else {
        data = tosac_arena_alloc(&rt->dyn, nbytes, 16);
        if (!data)
            cpu_fail(c, TOSAC_ERR_CAPACITY, "output '%s' (%zu bytes) does not fit in the dynamic "
                     "region (%zu bytes)", x->G->g.tensors[id].name, nbytes, rt->dyn.size);
    }
    if (!data)
        return c->err->code;
    if (zero && nbytes)
        memset(data, 0, nbytes);
    tosac_tensor *t = &c->out[i];
    memset(t, 0, sizeof *t);
    t->dtype = dt;
    t->rank = rank;
    for (int d = 0; d < rank; d++)
        t->shape[d] = shape[d];
    t->data = data;
    t->nbytes = nbytes;
    return TOSAC_OK;
}

static void *env_temp(cpu_ctx *c, size_t bytes)
{
    return bump(c->exec, c, bytes, "temporaries");
}

static void env_release(cpu_ctx *c, void *ptr)
{
    rt_exec *x = c->exec;
    if (ptr == x->scratch)
        x->scratch = NULL;
    rt_heap_free(&x->heap, ptr);
}

/* One scratch block per step: a new request replaces the last one. */
static void *env_scratch(cpu_ctx *c, size_t bytes)
{
    rt_exec *x = c->exec;
    rt_heap_free(&x->heap, x->scratch);
    x->scratch = bump(x, c, bytes, "kernel scratch");
    return x->scratch;
}

static tosac_code copy_out(cpu_ctx *c, rt_gview *B, tosac_tensor *out, int n_out)
{
    for (int i = 0; i < n_out; i++) {
        const tosac_tensor *v = rt_value(B, B->g.outputs[i]);
        if (!v)
            return cpu_fail(c, TOSAC_ERR_INPUT, "body output '%s' is never computed",
                            B->g.tensors[B->g.outputs[i]].name);
        tosac_code rc = cpu_tensor_temp(c, &out[i], v->dtype, v->rank, v->shape, 0);
        if (rc)
            return rc;
        if (v->nbytes)
            memcpy(out[i].data, v->data, v->nbytes);
    }
    return TOSAC_OK;
}

static tosac_code env_run_sub(cpu_ctx *c, int k, const tosac_tensor *in, int n_in,
                              tosac_tensor *out, int n_out)
{
    rt_exec *x = c->exec;
    tosac_rt *rt = x->rt;
    rt_gview *B = (rt_gview *)ir_node_subgraph(c->node, k);
    if (!B || n_in != B->g.n_inputs || n_out != B->g.n_outputs)
        return cpu_fail(c, TOSAC_ERR_INPUT, "body %d takes %d inputs and gives %d outputs, "
                        "%d and %d asked", k, B ? B->g.n_inputs : 0, B ? B->g.n_outputs : 0,
                        n_in, n_out);
    unsigned char *saved = rt->mtop;
    size_t dyn_mark = rt->dyn.used; /* the body's dynamic values die once copied out */
    rt->body_runs++;
    if (!rt->sizes) {
        tosac_code rc = rt_run_graph(rt, B, in, n_in, c->err);
        if (!rc)
            rc = copy_out(c, B, out, n_out);
        rt->dyn.used = dyn_mark;
        return rc;
    }
    /* measuring: the body's nodes measure above this node's temporaries; an If runs every
     * branch (the zero inputs choose one branch, the real ones may choose another), and
     * gives the first that runs on these inputs */
    bool is_if = ir_node_is(c->node, "If");
    tosac_code rc = TOSAC_ERR_INPUT;
    tosac_error first;
    tosac_error_clear(&first);
    const ir_graph *sub;
    for (int j = -1; (sub = j < 0 ? &B->g : ir_node_subgraph(c->node, j)); j++) {
        if (j == k || (j >= 0 && !is_if))
            continue;
        tosac_error e;
        tosac_error_clear(&e);
        rt->mtop = x->heap.base + x->heap.top;
        tosac_code r = rt_run_graph(rt, (rt_gview *)sub, in, n_in, &e);
        if (!r && rc) {
            rc = copy_out(c, (rt_gview *)sub, out, n_out);
            if (rc)
                break;
        } else if (r && !first.code) {
            first = e;
        }
        rt->dyn.used = dyn_mark;
        if (j < 0 && !is_if)
            break;
    }
    rt->mtop = saved;
    if (rc && !c->err->code)
        tosac_fail(c->err, first.code ? first.code : rc, "%s", first.msg);
    return rc;
}

/* The node's block in the prepared region (sized at compile time by the measuring run):
 * handed out fresh on its first request, the same block (untouched) on every later one. A
 * request of another size (a shape from the data) gets a new block while the region has
 * room, else none: the op then works per run, as with a program without the region. */
static void *env_prepared(cpu_ctx *c, size_t bytes, int *fresh)
{
    rt_exec *x = c->exec;
    rt_gview *G = x->G;
    if (G->pbytes[x->node] == bytes)
        return G->pblk[x->node];
    void *p = tosac_arena_alloc(&x->rt->prepd, align16(bytes), 16);
    if (!p) {
        x->rt->prep_misses++;
        return NULL;
    }
    G->pblk[x->node] = p;
    G->pbytes[x->node] = bytes;
    x->rt->prep_fills++;
    *fresh = 1;
    return p;
}

static const cpu_env_ops rt_env_ops = {env_out, env_temp, env_release, env_scratch, NULL,
                                       env_run_sub, env_prepared};

/* The CPU operators' pack steps (cpu_prepack: constant Conv weights) for every CPU node of
 * every graph, into the prepared region, before the first invoke. */
tosac_code rt_pack_constants(tosac_rt *rt, tosac_error *err)
{
    for (int gi = 0; gi < rt->n_graphs; gi++) {
        rt_gview *G = &rt->graphs[gi];
        for (int k = 0; k < G->g.n_nodes; k++) {
            if (G->delegate[k] >= 0 || !G->ops[k])
                continue;
            rt_exec x;
            memset(&x, 0, sizeof x);
            x.rt = rt;
            x.G = G;
            x.node = k;
            cpu_ctx c;
            memset(&c, 0, sizeof c);
            c.g = &G->g;
            c.node = &G->g.nodes[k];
            c.opset = rt->opset;
            c.ops = &rt_env_ops;
            c.exec = &x;
            c.prep = G->prep[k];
            c.err = err;
            tosac_code rc = cpu_prepack(&c, G->ops[k]);
            if (rc)
                return rc;
        }
    }
    return TOSAC_OK;
}

/* Measuring a Loop whose zero inputs give no iteration: one iteration as the op runs it
 * (iteration number, condition and the carried values in, the body's outputs copied out as
 * temporaries while the state lives), so its temporaries are planned for the real trip count
 * (freed blocks are reused, so later iterations need no more). */
static void measure_one_iteration(cpu_ctx *c)
{
    const ir_graph *body = cpu_subgraph(c, "body");
    int n_in = c->n_in, n_out = body ? body->n_outputs : 0;
    if (!body || n_in < 2 || n_in > CPU_MAX_IO || n_out > CPU_MAX_IO || body->n_inputs != n_in)
        return;
    tosac_tensor in[CPU_MAX_IO], out[CPU_MAX_IO];
    memset(in, 0, sizeof in);
    if (cpu_tensor_temp(c, &in[0], TOSAC_DT_I64, 0, NULL, 1) ||
        cpu_tensor_temp(c, &in[1], TOSAC_DT_BOOL, 0, NULL, 1))
        return;
    for (int i = 2; i < n_in; i++) {
        const tosac_tensor *v = c->in[i];
        if (!v || cpu_tensor_temp(c, &in[i], v->dtype, v->rank, v->shape, 0))
            return;
        if (v->nbytes)
            memcpy(in[i].data, v->data, v->nbytes);
    }
    cpu_run_sub(c, body, in, n_in, out, n_out);
}

static tosac_code run_cpu_node(tosac_rt *rt, rt_gview *G, int k, tosac_error *err)
{
    const ir_node *n = &G->g.nodes[k];
    rt_exec x;
    memset(&x, 0, sizeof x);
    x.rt = rt;
    x.G = G;
    x.node = k;
    uint32_t step = (uint32_t)G->step[k];
    if (rt->sizes) {
        rt_heap_init(&x.heap, rt->mtop, (size_t)(rt->mend - rt->mtop));
    } else if (step < rt_plan_n_steps(&rt->prog, (uint32_t)G->index) &&
               rt_plan_scratch_offset(&rt->prog, (uint32_t)G->index, step) >= 0) {
        rt_heap_init(&x.heap,
                     rt->planned + rt_plan_scratch_offset(&rt->prog, (uint32_t)G->index, step),
                     (size_t)rt_plan_scratch_bytes(&rt->prog, (uint32_t)G->index, step));
    } else {
        rt_heap_init(&x.heap, rt->planned, 0);
    }
    cpu_ctx c;
    memset(&c, 0, sizeof c);
    tosac_tensor outs[CPU_MAX_IO];
    memset(outs, 0, sizeof outs);
    c.g = &G->g;
    c.node = n;
    c.opset = rt->opset;
    c.n_in = n->n_inputs;
    c.out = outs;
    c.n_out = n->n_outputs;
    c.ops = &rt_env_ops;
    c.exec = &x;
    c.prep = G->prep[k];
    tosac_error local;
    tosac_error_clear(&local);
    c.err = rt->sizes ? &local : err;
    for (int i = 0; i < n->n_inputs; i++) {
        if (n->inputs[i] < 0)
            continue;
        c.in[i] = rt_value(G, n->inputs[i]);
        if (!c.in[i])
            return tosac_fail(err, TOSAC_ERR_INPUT, "node '%s' (%s): input '%s' has no value",
                              node_name(n), n->op_type, G->g.tensors[n->inputs[i]].name);
    }
    long runs = rt->body_runs;
    tosac_code rc = cpu_invoke(&c, G->ops[k]);
    if (rt->sizes && rt->body_runs == runs && ir_node_is(n, "Loop")) {
        tosac_error ignored;
        tosac_error_clear(&ignored);
        c.err = &ignored;
        measure_one_iteration(&c);
        c.err = &local;
    }
    if (rc && rt->sizes) {
        /* measuring on zero inputs: a node failing on them (a shape from data, a branch
         * the real inputs do not take) leaves its planned outputs as they are, and the run
         * goes on; without planned outputs the later nodes have nothing to read */
        bool planned = true;
        for (int i = 0; i < n->n_outputs; i++)
            planned = planned && (n->outputs[i] < 0 || G->cap[n->outputs[i]] > 0);
        if (!planned)
            return tosac_fail(err, rc, "%s", local.msg);
        rc = TOSAC_OK;
        memset(outs, 0, sizeof outs);
    }
    for (int i = 0; i < n->n_outputs && !rc; i++) {
        int id = n->outputs[i];
        if (id < 0)
            continue;
        tosac_dtype decl = G->g.tensors[id].dtype;
        if (decl != TOSAC_DT_UNKNOWN && outs[i].data && outs[i].dtype != decl)
            rc = tosac_fail(err, TOSAC_ERR_INPUT, "node '%s' (%s): output '%s' is %s, "
                            "declared %s", node_name(n), n->op_type, G->g.tensors[id].name,
                            tosac_dtype_name(outs[i].dtype), tosac_dtype_name(decl));
        else if (outs[i].data)
            G->vals[id] = outs[i];
    }
    if (rt->sizes) {
        uint64_t *need = &rt->sizes->scratch[rt->node_base[G->index] + (size_t)k];
        if (x.heap.high > *need)
            *need = x.heap.high;
    }
    return rc;
}

static void observe_value(tosac_rt *rt, rt_gview *G, int id, const char *op, const char *node,
                          int delegate);

tosac_code rt_run_graph(tosac_rt *rt, rt_gview *G, const tosac_tensor *in, int n_in,
                        tosac_error *err)
{
    for (int i = 0; i < n_in; i++) {
        int id = G->g.inputs[i];
        tosac_dtype decl = G->g.tensors[id].dtype;
        if (decl != TOSAC_DT_UNKNOWN && in[i].dtype != decl)
            return tosac_fail(err, TOSAC_ERR_INPUT, "graph '%s': input '%s' must be %s, got %s",
                              G->g.name, G->g.tensors[id].name, tosac_dtype_name(decl),
                              tosac_dtype_name(in[i].dtype));
        G->vals[id] = in[i]; /* borrowed for the call */
        G->vals[id].owns_data = 0;
    }
    tosac_code rc = TOSAC_OK;
    bool observe = rt->observe && G->index == 0;
    for (int i = 0; observe && i < G->g.n_inputs; i++)
        observe_value(rt, G, G->g.inputs[i], "input", "", -1);
    for (int k = 0; k < G->g.n_nodes && !rc; k++) {
        rc = G->delegate[k] >= 0 ? rt_run_delegate(rt, G, k, err)
                                 : run_cpu_node(rt, G, k, err);
        const ir_node *n = &G->g.nodes[k];
        for (int i = 0; observe && !rc && i < n->n_outputs; i++)
            observe_value(rt, G, n->outputs[i], n->op_type, n->name, -1);
    }
    return rc;
}

/* The observer's view of value id of graph G (skipped when it has none). */
static void observe_value(tosac_rt *rt, rt_gview *G, int id, const char *op, const char *node,
                          int delegate)
{
    const tosac_tensor *t = id >= 0 ? rt_value(G, id) : NULL;
    if (!t || !t->data)
        return;
    tosac_rt_value v = {G->g.tensors[id].name, t, op, node ? node : "", delegate};
    rt->observe(rt->observe_user, &v);
}

void tosac_rt_set_observer(tosac_rt *rt, tosac_rt_observer fn, void *user)
{
    if (!rt)
        return;
    rt->observe = fn;
    rt->observe_user = fn ? user : NULL;
    rt_observe_delegates(rt);
}

tosac_code tosac_rt_invoke(tosac_rt *rt, tosac_error *err)
{
    if (!rt)
        return tosac_fail(err, TOSAC_ERR_INPUT, "tosac_rt_invoke: no runtime");
    rt_gview *G = &rt->graphs[0];
    tosac_arena_reset(&rt->dyn);
    for (uint32_t i = 0; i < rt->prog.n_inputs; i++) {
        int id = rt->prog.inputs[i].cpu_tensor;
        G->vals[id].data = rt->inputs[i].data; /* the caller may point it at its own buffer */
    }
    tosac_code rc = rt_run_graph(rt, G, NULL, 0, err);
    for (uint32_t i = 0; i < rt->prog.n_outputs && !rc; i++) {
        const tosac_tensor *v = rt_value(G, rt->prog.outputs[i].cpu_tensor);
        if (!v)
            rc = tosac_fail(err, TOSAC_ERR_INPUT, "output '%s' is never computed",
                            rt_str(&rt->prog, rt->prog.outputs[i].name));
        else
            rt->outputs[i] = *v;
    }
    return rc;
}
