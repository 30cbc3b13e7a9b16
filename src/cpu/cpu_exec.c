/* The executor: planning (binding, order, liveness) and running. */
#include "cpu/cpu_internal.h"
#include "cpu/cpu_exec.h"
#include "cpu/cpu_fuse.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>


typedef struct cpu_env cpu_env;

struct cpu_plan {
    const ir_graph *g;
    int64_t opset;
    int *order;                 /* node indices in execution order */
    int n_order;
    const cpu_op_entry **ops;   /* per node index */
    cpu_plan ***subplans;       /* per node index: plans of its subgraphs */
    int *n_sub;
    int *last_use;              /* per tensor id: order position of its last reader */
    void *scratch;              /* kernel scratch, grown on demand and kept across runs */
    size_t scratch_bytes;
    kern_out_act *act;              /* per node index: the activation fused into it (cpu_fuse.c) */
    uint8_t *absorbed;          /* per node index: fused into the node before, only renames */
    void **prep;                /* per node index: its prepared block (cpu_prepared), or NULL */
    size_t *prep_bytes;
    cpu_observer observe;       /* cpu_plan_set_observer, NULL: none */
    void *observe_user;
    void **state;               /* per node index: its operator's prepared state, or NULL */
};

struct cpu_env {
    cpu_plan *plan;
    tosac_tensor *vals;         /* per tensor id, valid where have[] is set */
    uint8_t *have;
    cpu_env *parent;
};

int cpu_op_supported(const char *op_type) { return cpu_find_op(op_type) != NULL; }

void cpu_plan_free(cpu_plan *p)
{
    if (!p)
        return;
    if (p->subplans)
        for (int i = 0; i < p->g->n_nodes; i++) {
            for (int k = 0; k < p->n_sub[i]; k++)
                cpu_plan_free(p->subplans[i][k]);
            free(p->subplans[i]);
        }
    free(p->subplans);
    free(p->n_sub);
    free(p->order);
    free(p->ops);
    free(p->last_use);
    free(p->scratch);
    for (int i = 0; p->prep && i < p->g->n_nodes; i++)
        free(p->prep[i]);
    free(p->prep);
    free(p->prep_bytes);
    for (int i = 0; p->state && i < p->g->n_nodes; i++)
        free(p->state[i]);
    free(p->state);
    free(p->act);
    free(p->absorbed);
    free(p);
}

static const char *node_name(const ir_node *n) { return n->name && n->name[0] ? n->name : "?"; }

/* The host side of the operators' memory contract (cpu_internal.h): outputs and temporaries
 * are malloc'd; a node's temporaries are listed here and freed when it returns. */
typedef struct host_node {
    cpu_env *env;       /* the running graph (NULL: a single node, cpu_host_call) */
    int ni;             /* node index in env->plan */
    void **temps;       /* live temporaries */
    int n_temps, cap_temps;
    void *scratch;      /* cpu_host_call's own scratch */
    size_t scratch_bytes;
} host_node;

static tosac_code host_out(cpu_ctx *c, int i, tosac_dtype dt, int rank, const int64_t *shape,
                           size_t nbytes, int zero)
{
    tosac_tensor *t = &c->out[i];
    tosac_tensor_free(t);
    memset(t, 0, sizeof *t);
    size_t n = nbytes ? nbytes : 1; /* like tosac_tensor_alloc: never NULL */
    t->data = zero ? calloc(1, n) : malloc(n);
    if (!t->data)
        return tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory allocating %zu bytes",
                          nbytes);
    t->dtype = dt;
    t->rank = rank;
    for (int k = 0; k < rank; k++)
        t->shape[k] = shape[k];
    t->nbytes = nbytes;
    t->owns_data = 1;
    return TOSAC_OK;
}

static int host_keep(host_node *h, void *p)
{
    if (h->n_temps == h->cap_temps) {
        int cap = h->cap_temps ? 2 * h->cap_temps : 8;
        void **grown = realloc(h->temps, (size_t)cap * sizeof *grown);
        if (!grown)
            return 0;
        h->temps = grown;
        h->cap_temps = cap;
    }
    h->temps[h->n_temps++] = p;
    return 1;
}

static void *host_temp(cpu_ctx *c, size_t bytes)
{
    void *p = malloc(bytes);
    if (p && !host_keep(c->exec, p)) {
        free(p);
        p = NULL;
    }
    return p;
}

/* Removes p from the list (searching from the newest); 0 if it is not there. */
static int host_forget(host_node *h, void *p)
{
    for (int k = h->n_temps - 1; k >= 0; k--)
        if (h->temps[k] == p) {
            h->temps[k] = h->temps[--h->n_temps];
            return 1;
        }
    return 0;
}

static void host_release(cpu_ctx *c, void *p)
{
    if (host_forget(c->exec, p))
        free(p);
}

static void host_temps_free(host_node *h)
{
    for (int k = 0; k < h->n_temps; k++)
        free(h->temps[k]);
    free(h->temps);
    free(h->scratch);
}

/* Output i becomes the temporary t: its buffer changes owner, no copy. */
static tosac_code host_take(cpu_ctx *c, int i, tosac_tensor *t)
{
    if (!t->data || !host_forget(c->exec, t->data))
        return cpu_out_copy(c, i, t, t->rank, t->shape);
    tosac_tensor_free(&c->out[i]);
    c->out[i] = *t;
    c->out[i].owns_data = 1;
    memset(t, 0, sizeof *t);
    return TOSAC_OK;
}

static void *grow_scratch(void **buf, size_t *have, size_t bytes)
{
    if (bytes > *have) {
        /* grow geometrically so a run of growing requests reallocates a few times only */
        size_t want = bytes < *have * 2 ? *have * 2 : bytes;
        void *n = malloc(want);
        if (!n)
            return NULL;
        free(*buf);
        *buf = n;
        *have = want;
    }
    return *buf;
}

static void *host_scratch(cpu_ctx *c, size_t bytes)
{
    host_node *h = c->exec;
    if (!h->env)
        return grow_scratch(&h->scratch, &h->scratch_bytes, bytes);
    return grow_scratch(&h->env->plan->scratch, &h->env->plan->scratch_bytes, bytes);
}

static tosac_code host_run_sub(cpu_ctx *c, int k, const tosac_tensor *in, int n_in,
                               tosac_tensor *out, int n_out);

/* The node's block in the plan, allocated on first request and kept until cpu_plan_free;
 * none for a single node outside a graph (folding runs it once). */
static void *host_prepared(cpu_ctx *c, size_t bytes, int *fresh)
{
    host_node *h = c->exec;
    if (!h->env)
        return NULL;
    cpu_plan *p = h->env->plan;
    if (p->prep_bytes[h->ni] != bytes) {
        free(p->prep[h->ni]);
        p->prep_bytes[h->ni] = 0;
        if (!(p->prep[h->ni] = malloc(bytes)))
            return NULL;
        p->prep_bytes[h->ni] = bytes;
        *fresh = 1;
    }
    return p->prep[h->ni];
}

static const cpu_env_ops host_ops = {host_out,  host_temp,    host_release, host_scratch,
                                     host_take, host_run_sub, host_prepared};

/* Activations folded into the Conv before them (cpu_fuse.c), from the readers of every
 * tensor: node inputs, graph outputs and subgraph captures. */
static tosac_code plan_fuse(cpu_plan *p, tosac_error *err)
{
    const ir_graph *g = p->g;
    int *readers = calloc((size_t)(g->n_tensors > 0 ? g->n_tensors : 1), sizeof *readers);
    if (!readers)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory planning a graph");
    for (int k = 0; k < p->n_order; k++) {
        const ir_node *n = &g->nodes[p->order[k]];
        for (int i = 0; i < n->n_inputs; i++)
            if (n->inputs[i] >= 0)
                readers[n->inputs[i]]++;
        for (int s = 0; s < p->n_sub[p->order[k]]; s++) {
            const ir_graph *sg = p->subplans[p->order[k]][s]->g;
            for (int t = 0; t < sg->n_tensors; t++)
                if (sg->tensors[t].outer_id >= 0 && sg->tensors[t].outer_id < g->n_tensors)
                    readers[sg->tensors[t].outer_id] += 2; /* never fused */
        }
    }
    for (int i = 0; i < g->n_outputs; i++)
        readers[g->outputs[i]] += 2;
    for (int k = 0; k < p->n_order; k++) {
        int ni = p->order[k];
        kern_out_act act;
        int j = p->absorbed[ni] ? -1 : cpu_fuse_conv_act(g, ni, readers, &act);
        if (j >= 0 && p->ops[j] && !p->absorbed[j]) {
            p->act[ni] = act;
            p->absorbed[j] = 1;
        }
    }
    free(readers);
    return TOSAC_OK;
}

void cpu_plan_set_observer(cpu_plan *p, cpu_observer fn, void *user)
{
    p->observe = fn;
    p->observe_user = user;
}

void cpu_plan_set_body_observer(cpu_plan *p, cpu_observer fn, void *user)
{
    for (int i = 0; p->subplans && i < p->g->n_nodes; i++)
        for (int k = 0; k < p->n_sub[i]; k++) {
            cpu_plan_set_observer(p->subplans[i][k], fn, user);
            cpu_plan_set_body_observer(p->subplans[i][k], fn, user);
        }
}

/* Hands node ni's outputs (ni -1: the graph inputs) to the observer. */
static void observe_node(cpu_env *env, int ni)
{
    const cpu_plan *p = env->plan;
    const ir_graph *g = p->g;
    bool fused = ni >= 0 && p->act[ni].kind != KERN_OUT_ACT_NONE; /* value is post-activation */
    int n = ni < 0 ? g->n_inputs : fused ? 0 : g->nodes[ni].n_outputs;
    for (int i = 0; i < n; i++) {
        int id = ni < 0 ? g->inputs[i] : g->nodes[ni].outputs[i];
        if (id >= 0 && env->have[id])
            p->observe(p->observe_user, g, ni, id, &env->vals[id]);
    }
}

int cpu_plan_n_fused(const cpu_plan *p)
{
    int n = 0;
    for (int k = 0; k < p->n_order; k++)
        n += p->absorbed[p->order[k]];
    return n;
}

/* The node's prepare step (cpu_internal.h), its state kept by the plan. A host graph may hold
 * nodes that never run (an If branch not taken), so a failing prepare keeps no state: the
 * node then prepares per run and reports where it runs, as before. */
static tosac_code plan_prepare(cpu_plan *p, int ni, tosac_error *err)
{
    const cpu_op_entry *e = p->ops[ni];
    if (!e->prep)
        return TOSAC_OK;
    if (!(p->state[ni] = calloc(1, e->prep->size ? e->prep->size : 1)))
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory planning a graph");
    tosac_error local;
    tosac_error_clear(&local);
    cpu_ctx c;
    memset(&c, 0, sizeof c);
    c.g = p->g;
    c.node = &p->g->nodes[ni];
    c.opset = p->opset;
    c.err = &local;
    if (cpu_prepare(&c, e, p->state[ni])) {
        free(p->state[ni]);
        p->state[ni] = NULL;
    }
    return TOSAC_OK;
}

tosac_code cpu_plan_create(const ir_graph *g, int64_t opset, cpu_plan **out, tosac_error *err)
{
    *out = NULL;
    cpu_plan *p = calloc(1, sizeof *p);
    if (!p)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory planning a graph");
    p->g = g;
    p->opset = opset;
    int nn = g->n_nodes > 0 ? g->n_nodes : 1, nt = g->n_tensors > 0 ? g->n_tensors : 1;
    p->order = calloc((size_t)nn, sizeof *p->order);
    p->ops = calloc((size_t)nn, sizeof *p->ops);
    p->subplans = calloc((size_t)nn, sizeof *p->subplans);
    p->n_sub = calloc((size_t)nn, sizeof *p->n_sub);
    p->last_use = malloc((size_t)nt * sizeof *p->last_use);
    p->prep = calloc((size_t)nn, sizeof *p->prep);
    p->prep_bytes = calloc((size_t)nn, sizeof *p->prep_bytes);
    p->state = calloc((size_t)nn, sizeof *p->state);
    p->act = calloc((size_t)nn, sizeof *p->act);
    p->absorbed = calloc((size_t)nn, 1);
    if (!p->order || !p->ops || !p->subplans || !p->n_sub || !p->last_use || !p->prep ||
        !p->prep_bytes || !p->state || !p->act || !p->absorbed) {
        cpu_plan_free(p);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory planning a graph");
    }
    tosac_code rc = ir_graph_topo_order(g, p->order, &p->n_order, err);
    if (rc) {
        cpu_plan_free(p);
        return rc;
    }
    for (int t = 0; t < g->n_tensors; t++)
        p->last_use[t] = -1;
    for (int k = 0; k < p->n_order; k++) {
        int ni = p->order[k];
        const ir_node *n = &g->nodes[ni];
        bool onnx = strcmp(n->domain, "") == 0 || strcmp(n->domain, "ai.onnx") == 0;
        if (!onnx) {
            cpu_plan_free(p);
            return tosac_fail(err, TOSAC_ERR_UNSUPPORTED,
                              "node '%s': operator %s of domain '%s' is not supported on the CPU",
                              node_name(n), n->op_type, n->domain);
        }
        p->ops[ni] = cpu_find_op(n->op_type);
        if (!p->ops[ni]) {
            cpu_plan_free(p);
            return tosac_fail(err, TOSAC_ERR_UNSUPPORTED,
                              "node '%s': operator %s is not supported on the CPU", node_name(n),
                              n->op_type);
        }
        if (n->n_inputs > CPU_MAX_IO || n->n_outputs > CPU_MAX_IO) {
            cpu_plan_free(p);
            return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "node '%s' (%s): more than %d inputs "
                              "or outputs", node_name(n), n->op_type, CPU_MAX_IO);
        }
        if ((rc = plan_prepare(p, ni, err))) {
            cpu_plan_free(p);
            return rc;
        }
        int ns = 0;
        while (ir_node_subgraph(n, ns))
            ns++;
        if (ns) {
            p->subplans[ni] = calloc((size_t)ns, sizeof(cpu_plan *));
            if (!p->subplans[ni]) {
                cpu_plan_free(p);
                return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory planning a graph");
            }
            p->n_sub[ni] = ns;
            for (int s = 0; s < ns; s++) {
                rc = cpu_plan_create(ir_node_subgraph(n, s), opset, &p->subplans[ni][s], err);
                if (rc) {
                    cpu_plan_free(p);
                    return rc;
                }
            }
        }
        for (int i = 0; i < n->n_inputs; i++)
            if (n->inputs[i] >= 0)
                p->last_use[n->inputs[i]] = k;
        for (int i = 0; i < n->n_outputs; i++)
            if (n->outputs[i] >= 0 && p->last_use[n->outputs[i]] < k)
                p->last_use[n->outputs[i]] = k;
    }
    /* a subgraph reads outer values through captures while its node runs; they are not
     * node inputs, so keep them alive until that node */
    for (int k = 0; k < p->n_order; k++) {
        int ni = p->order[k];
        for (int s = 0; s < p->n_sub[ni]; s++) {
            const ir_graph *sg = p->subplans[ni][s]->g;
            for (int t = 0; t < sg->n_tensors; t++)
                if (sg->tensors[t].outer_id >= 0 && sg->tensors[t].outer_id < g->n_tensors &&
                    p->last_use[sg->tensors[t].outer_id] < k)
                    p->last_use[sg->tensors[t].outer_id] = k;
        }
    }
    for (int i = 0; i < g->n_outputs; i++)
        p->last_use[g->outputs[i]] = INT_MAX;
    if ((rc = plan_fuse(p, err))) {
        cpu_plan_free(p);
        return rc;
    }
    *out = p;
    return TOSAC_OK;
}

/* The value of tensor id in env: constant data, an outer-scope capture, or a computed value.
 * NULL when not available. */
static const tosac_tensor *env_get(cpu_env *env, int id, tosac_tensor *scratch)
{
    const ir_graph *g = env->plan->g;
    if (id < 0 || id >= g->n_tensors)
        return NULL;
    if (env->have[id])
        return &env->vals[id];
    const ir_tensor *t = &g->tensors[id];
    if (t->outer_id >= 0 && env->parent)
        return env_get(env->parent, t->outer_id, scratch);
    if (t->data && t->rank >= 0) {
        memset(scratch, 0, sizeof *scratch);
        scratch->dtype = t->dtype;
        scratch->rank = t->rank;
        memcpy(scratch->shape, t->shape, sizeof t->shape);
        scratch->data = t->data;
        scratch->nbytes = t->nbytes;
        return scratch;
    }
    return NULL;
}

static void env_free(cpu_env *env)
{
    if (!env->vals)
        return;
    for (int i = 0; i < env->plan->g->n_tensors; i++)
        if (env->have[i])
            tosac_tensor_free(&env->vals[i]);
    free(env->vals);
    free(env->have);
    env->vals = NULL;
}

static tosac_code copy_tensor(const tosac_tensor *src, tosac_tensor *dst, tosac_error *err)
{
    tosac_code rc = tosac_tensor_alloc(dst, src->dtype, src->rank, src->shape, err);
    if (rc == TOSAC_OK && src->nbytes)
        memcpy(dst->data, src->data, src->nbytes);
    return rc;
}

/* Runs one node: gathers inputs, calls the op and stores its outputs in env. */
static tosac_code run_node(cpu_env *env, int ni, tosac_error *err)
{
    const cpu_plan *p = env->plan;
    const ir_node *n = &p->g->nodes[ni];
    host_node hn = {env, ni, NULL, 0, 0, NULL, 0};
    cpu_ctx c;
    memset(&c, 0, sizeof c);
    c.g = p->g;
    c.node = n;
    c.opset = p->opset;
    c.n_in = n->n_inputs;
    c.n_out = n->n_outputs;
    c.ops = &host_ops;
    c.exec = &hn;
    c.err = err;
    c.act = p->act[ni].kind != KERN_OUT_ACT_NONE ? &p->act[ni] : NULL;
    c.prep = p->state[ni];
    tosac_tensor views[CPU_MAX_IO];
    for (int i = 0; i < n->n_inputs; i++) {
        if (n->inputs[i] < 0)
            continue;
        c.in[i] = env_get(env, n->inputs[i], &views[i]);
        if (!c.in[i])
            return tosac_fail(err, TOSAC_ERR_INPUT, "node '%s' (%s): input '%s' has no value",
                              node_name(n), n->op_type, p->g->tensors[n->inputs[i]].name);
    }
    tosac_tensor outs[CPU_MAX_IO];
    memset(outs, 0, sizeof outs);
    c.out = outs;
    tosac_code rc = cpu_invoke(&c, p->ops[ni]);
    host_temps_free(&hn);
    for (int i = 0; i < n->n_outputs; i++) {
        int id = n->outputs[i];
        if (rc || id < 0) {
            tosac_tensor_free(&outs[i]);
            continue;
        }
        /* a value unlike its declaration would mislead every later reader (a delegate
         * boundary checks it, a CPU reader would not): the graph is wrong, say so here, as
         * bind_input does for inputs */
        tosac_dtype decl = p->g->tensors[id].dtype;
        if (decl != TOSAC_DT_UNKNOWN && outs[i].dtype != decl) {
            rc = tosac_fail(err, TOSAC_ERR_INPUT, "node '%s' (%s): output '%s' is %s, "
                            "declared %s", node_name(n), n->op_type, p->g->tensors[id].name,
                            tosac_dtype_name(outs[i].dtype), tosac_dtype_name(decl));
            tosac_tensor_free(&outs[i]);
            continue;
        }
        if (env->have[id])
            tosac_tensor_free(&env->vals[id]);
        env->vals[id] = outs[i];
        env->have[id] = 1;
    }
    return rc;
}

/* An activation node fused into the Conv before it: the Conv's value becomes its output. */
static tosac_code rename_value(cpu_env *env, int ni, tosac_error *err)
{
    const ir_node *n = &env->plan->g->nodes[ni];
    int from = n->inputs[0], to = n->outputs[0];
    if (!env->have[from])
        return tosac_fail(err, TOSAC_ERR_INPUT, "node '%s' (%s): input '%s' has no value",
                          node_name(n), n->op_type, env->plan->g->tensors[from].name);
    if (env->have[to])
        tosac_tensor_free(&env->vals[to]);
    env->vals[to] = env->vals[from];
    env->have[to] = 1;
    memset(&env->vals[from], 0, sizeof env->vals[from]);
    env->have[from] = 0;
    return TOSAC_OK;
}

static tosac_code bind_input(cpu_env *env, int k, const tosac_tensor *in, tosac_error *err)
{
    const ir_graph *g = env->plan->g;
    int id = g->inputs[k];
    const ir_tensor *t = &g->tensors[id];
    if (t->dtype != TOSAC_DT_UNKNOWN && in->dtype != t->dtype)
        return tosac_fail(err, TOSAC_ERR_INPUT, "input '%s' must be %s, got %s", t->name,
                          tosac_dtype_name(t->dtype), tosac_dtype_name(in->dtype));
    if (t->rank >= 0) {
        int ok = in->rank == t->rank;
        for (int d = 0; ok && d < t->rank; d++)
            if (t->shape[d] >= 0 && t->shape[d] != in->shape[d])
                ok = 0;
        if (!ok) {
            char a[128], b[128];
            return tosac_fail(err, TOSAC_ERR_INPUT, "input '%s' must have shape %s, got %s",
                              t->name, ir_tensor_type_str(t, a, sizeof a),
                              tosac_shape_str(in->rank, in->shape, b, sizeof b));
        }
    }
    tosac_tensor *v = &env->vals[id];
    *v = *in;
    v->owns_data = 0; /* borrowed from the caller */
    env->have[id] = 1;
    return TOSAC_OK;
}

static tosac_code run_env(cpu_plan *p, cpu_env *parent, const tosac_tensor *inputs,
                          int n_inputs, tosac_tensor *outputs, int n_outputs, tosac_error *err)
{
    const ir_graph *g = p->g;
    memset(outputs, 0, (size_t)(n_outputs > 0 ? n_outputs : 0) * sizeof *outputs);
    if (n_inputs != g->n_inputs)
        return tosac_fail(err, TOSAC_ERR_INPUT, "graph '%s' takes %d inputs, %d given",
                          g->name ? g->name : "", g->n_inputs, n_inputs);
    if (n_outputs != g->n_outputs)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "graph '%s' has %d outputs, %d requested",
                          g->name ? g->name : "", g->n_outputs, n_outputs);
    cpu_env env = {p, NULL, NULL, parent};
    size_t nt = (size_t)(g->n_tensors > 0 ? g->n_tensors : 1);
    env.vals = calloc(nt, sizeof *env.vals);
    env.have = calloc(nt, 1);
    if (!env.vals || !env.have) {
        free(env.vals);
        free(env.have);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory running a graph");
    }
    tosac_code rc = TOSAC_OK;
    for (int i = 0; i < n_inputs && !rc; i++)
        rc = bind_input(&env, i, &inputs[i], err);
    if (p->observe && !rc)
        observe_node(&env, -1);
    for (int k = 0; k < p->n_order && !rc; k++) {
        int ni = p->order[k];
        rc = p->absorbed[ni] ? rename_value(&env, ni, err) : run_node(&env, ni, err);
        if (rc)
            break;
        if (p->observe)
            observe_node(&env, ni);
        /* free values whose last reader was this node (or that nobody reads) */
        const ir_node *n = &g->nodes[ni];
        for (int pass = 0; pass < 2; pass++) {
            int cnt = pass ? n->n_outputs : n->n_inputs;
            const int *ids = pass ? n->outputs : n->inputs;
            for (int i = 0; i < cnt; i++) {
                int id = ids[i];
                if (id >= 0 && p->last_use[id] <= k && env.have[id]) {
                    tosac_tensor_free(&env.vals[id]);
                    env.have[id] = 0;
                }
            }
        }
    }
    for (int i = 0; i < n_outputs && !rc; i++) {
        tosac_tensor view;
        const tosac_tensor *v = env_get(&env, g->outputs[i], &view);
        if (!v)
            rc = tosac_fail(err, TOSAC_ERR_INPUT, "graph output '%s' is never computed",
                            g->tensors[g->outputs[i]].name);
        else
            rc = copy_tensor(v, &outputs[i], err);
    }
    if (rc)
        for (int i = 0; i < n_outputs; i++)
            tosac_tensor_free(&outputs[i]);
    env_free(&env);
    return rc;
}

tosac_code cpu_plan_run(cpu_plan *p, const tosac_tensor *inputs, int n_inputs,
                        tosac_tensor *outputs, int n_outputs, tosac_error *err)
{
    return run_env(p, NULL, inputs, n_inputs, outputs, n_outputs, err);
}

static tosac_code run_env(cpu_plan *p, cpu_env *parent, const tosac_tensor *inputs,
                          int n_inputs, tosac_tensor *outputs, int n_outputs, tosac_error *err);

static tosac_code host_run_sub(cpu_ctx *c, int k, const tosac_tensor *in, int n_in,
                               tosac_tensor *out, int n_out)
{
    host_node *h = c->exec;
    if (!h->env || k >= h->env->plan->n_sub[h->ni])
        return cpu_fail(c, TOSAC_ERR_INTERNAL, "subgraph %d has no plan", k);
    tosac_code rc = run_env(h->env->plan->subplans[h->ni][k], h->env, in, n_in, out, n_out,
                            c->err);
    /* the results become temporaries of the calling op */
    for (int i = 0; i < n_out && !rc; i++) {
        if (!host_keep(h, out[i].data))
            rc = cpu_fail(c, TOSAC_ERR_INTERNAL, "out of memory");
        else
            out[i].owns_data = 0;
    }
    if (rc)
        for (int i = 0; i < n_out; i++)
            tosac_tensor_free(&out[i]);
    return rc;
}

tosac_code cpu_host_call(cpu_ctx *c, const cpu_op_entry *e)
{
    host_node hn = {NULL, -1, NULL, 0, 0, NULL, 0};
    c->ops = &host_ops;
    c->exec = &hn;
    /* fn, not cpu_invoke: folding keeps the op's own dtypes (f16 results of a widened op
     * fail the fold's type check and stay for run time, as before); prepared for this call */
    _Alignas(16) unsigned char st[CPU_PREP_MAX];
    tosac_code rc = TOSAC_OK;
    if (e->prep && !c->prep) {
        rc = cpu_prepare(c, e, st);
        c->prep = st;
    }
    if (!rc)
        rc = e->fn(c);
    if (c->prep == st)
        c->prep = NULL;
    host_temps_free(&hn);
    return rc;
}

tosac_code cpu_run_model(const ir_model *m, const tosac_tensor *inputs, int n_inputs,
                         tosac_tensor *outputs, int n_outputs, tosac_error *err)
{
    cpu_plan *p;
    int64_t opset = ir_model_opset(m, "");
    tosac_code rc = cpu_plan_create(m->graph, opset ? opset : 13, &p, err);
    if (rc)
        return rc;
    rc = cpu_plan_run(p, inputs, n_inputs, outputs, n_outputs, err);
    cpu_plan_free(p);
    return rc;
}
