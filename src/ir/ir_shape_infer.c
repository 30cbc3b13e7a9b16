/* Static shape inference driver: walks nodes in topological order, applies each op's rule
 * (ir_shape_ops.c), keeps small integer values known so shape arithmetic (Shape -> Gather ->
 * Concat -> Reshape) folds, and recurses into subgraphs with their captures refreshed. */
#include "ir_shape.h"

#include <stdlib.h>
#include <string.h>

const ir_tensor *sh_in(shape_ctx *c, int node, int k)
{
    const ir_node *n = &c->g->nodes[node];
    if (k >= n->n_inputs || n->inputs[k] < 0)
        return NULL;
    return &c->g->tensors[n->inputs[k]];
}

bool sh_static(const ir_tensor *t)
{
    if (!t || t->dtype == TOSAC_DT_UNKNOWN || t->rank < 0)
        return false;
    for (int d = 0; d < t->rank; d++)
        if (t->shape[d] < 0)
            return false;
    return true;
}

tosac_code sh_fail(shape_ctx *c, int node, const char *reason)
{
    char desc[160];
    return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "%s: cannot infer the output shape: %s",
                      ir_node_desc(c->g, node, desc, sizeof desc), reason);
}

bool sh_add(int64_t a, int64_t b, int64_t *r) { return !__builtin_add_overflow(a, b, r); }
bool sh_mul(int64_t a, int64_t b, int64_t *r) { return !__builtin_mul_overflow(a, b, r); }

bool sh_numel(int rank, const int64_t *shape, int64_t *n)
{
    *n = 1;
    for (int d = 0; d < rank; d++)
        if (!sh_mul(*n, shape[d], n))
            return false;
    return true;
}

tosac_code sh_overflow(shape_ctx *c, int node, const char *what)
{
    char desc[160];
    return tosac_fail(c->err, TOSAC_ERR_INPUT, "%s: %s overflows int64",
                      ir_node_desc(c->g, node, desc, sizeof desc), what);
}

tosac_code sh_set(shape_ctx *c, int node, int k, tosac_dtype dt, int rank, const int64_t *shape)
{
    const ir_node *n = &c->g->nodes[node];
    if (k >= n->n_outputs || n->outputs[k] < 0)
        return TOSAC_OK;
    ir_tensor *t = &c->g->tensors[n->outputs[k]];
    char desc[160];
    if (rank < 0 || rank > TOSAC_MAX_RANK)
        return sh_fail(c, node, "the output rank is outside 0..8");
    for (int d = 0; d < rank; d++)
        if (shape[d] < 0 || shape[d] > IR_SHAPE_LIMIT)
            return tosac_fail(c->err, TOSAC_ERR_INPUT, "%s: output dimension %d would be %lld",
                              ir_node_desc(c->g, node, desc, sizeof desc), d,
                              (long long)shape[d]);
    /* A declared (value_info) shape must agree with the inferred one. */
    if (t->rank >= 0) {
        bool same = t->rank == rank;
        for (int d = 0; same && d < rank; d++)
            same = t->shape[d] < 0 || t->shape[d] == shape[d];
        if (!same) {
            char a[96], b[96];
            ir_tensor_type_str(t, a, sizeof a);
            tosac_shape_str(rank, shape, b, sizeof b);
            return tosac_fail(c->err, TOSAC_ERR_INPUT,
                              "%s: inconsistent shapes: '%s' is declared %s but computes to %s",
                              ir_node_desc(c->g, node, desc, sizeof desc), t->name, a, b);
        }
    }
    if (t->dtype != TOSAC_DT_UNKNOWN && dt != TOSAC_DT_UNKNOWN && t->dtype != dt)
        return tosac_fail(c->err, TOSAC_ERR_INPUT,
                          "%s: inconsistent types: '%s' is declared %s but computes to %s",
                          ir_node_desc(c->g, node, desc, sizeof desc), t->name,
                          tosac_dtype_name(t->dtype), tosac_dtype_name(dt));
    if (dt != TOSAC_DT_UNKNOWN)
        t->dtype = dt;
    t->rank = rank;
    for (int d = 0; d < rank; d++)
        t->shape[d] = shape[d];
    return TOSAC_OK;
}

static bool int_dtype_value(const tosac_tensor *v, int64_t i, int64_t *out)
{
    switch (v->dtype) {
    case TOSAC_DT_I64: *out = ((const int64_t *)v->data)[i]; return true;
    case TOSAC_DT_I32: *out = ((const int32_t *)v->data)[i]; return true;
    case TOSAC_DT_BOOL:
    case TOSAC_DT_U8: *out = ((const uint8_t *)v->data)[i]; return true;
    case TOSAC_DT_I8: *out = ((const int8_t *)v->data)[i]; return true;
    default: return false;
    }
}

bool sh_ints(shape_ctx *c, int node, int k, int64_t *out, int *n, int max)
{
    const ir_node *nd = &c->g->nodes[node];
    if (k >= nd->n_inputs || nd->inputs[k] < 0)
        return false;
    int t = nd->inputs[k];
    tosac_tensor v;
    if (ir_graph_const_value(c->g, t, &v)) {
        int64_t cnt = tosac_tensor_numel(&v);
        if (cnt > max)
            return false;
        for (int64_t i = 0; i < cnt; i++)
            if (!int_dtype_value(&v, i, &out[i]))
                return false;
        *n = (int)cnt;
        return true;
    }
    if (c->vals[t].n < 0 || c->vals[t].n > max)
        return false;
    memcpy(out, c->vals[t].v, (size_t)c->vals[t].n * sizeof *out);
    *n = c->vals[t].n;
    return true;
}

void sh_set_vals(shape_ctx *c, int node, int k, const int64_t *v, int n)
{
    const ir_node *nd = &c->g->nodes[node];
    if (k >= nd->n_outputs || nd->outputs[k] < 0 || n < 0 || n > SHAPE_MAX_VALUES)
        return;
    shape_val *sv = &c->vals[nd->outputs[k]];
    sv->n = n;
    memcpy(sv->v, v, (size_t)n * sizeof *v);
}

tosac_code sh_need(shape_ctx *c, int node, int k, const ir_tensor **t)
{
    *t = sh_in(c, node, k);
    if (sh_static(*t))
        return TOSAC_OK;
    char why[96];
    snprintf(why, sizeof why, "input %d has no static shape", k);
    return sh_fail(c, node, why);
}

tosac_code sh_declared_or_fail(shape_ctx *c, int node, int k, const char *why)
{
    const ir_node *n = &c->g->nodes[node];
    if (k < n->n_outputs && n->outputs[k] >= 0 && sh_static(&c->g->tensors[n->outputs[k]]))
        return TOSAC_OK;
    return sh_fail(c, node, why);
}

tosac_dtype sh_onnx_dtype(int64_t code)
{
    /* ONNX DataType numbering, mapped here to avoid an ir -> onnx dependency. */
    static const tosac_dtype map[] = {
        TOSAC_DT_UNKNOWN, TOSAC_DT_F32, TOSAC_DT_U8,  TOSAC_DT_I8,      TOSAC_DT_U16,
        TOSAC_DT_I16,     TOSAC_DT_I32, TOSAC_DT_I64, TOSAC_DT_UNKNOWN, TOSAC_DT_BOOL,
        TOSAC_DT_F16,     TOSAC_DT_F64, TOSAC_DT_U32, TOSAC_DT_U64,     TOSAC_DT_UNKNOWN,
        TOSAC_DT_UNKNOWN, TOSAC_DT_BF16};
    return code > 0 && code < (int64_t)(sizeof map / sizeof map[0]) ? map[code] : TOSAC_DT_UNKNOWN;
}

static tosac_code infer_graph(ir_graph *g, int64_t opset, bool other_domains, tosac_error *err);

/* Subgraphs see the outer tensors as they are now. */
static void refresh_captures(ir_graph *sub)
{
    for (int t = 0; t < sub->n_tensors; t++) {
        ir_tensor *x = &sub->tensors[t];
        if (x->outer_id < 0 || !sub->parent)
            continue;
        const ir_tensor *o = &sub->parent->tensors[x->outer_id];
        x->dtype = o->dtype;
        x->rank = o->rank;
        memcpy(x->shape, o->shape, sizeof x->shape);
    }
}

static tosac_code infer_node(shape_ctx *c, int i)
{
    ir_node *n = &c->g->nodes[i];
    ir_graph *sub;
    c->dead_branch = NULL;
    /* A condition known from the shapes ("dim == 1" tests) leaves the other branch dead:
     * whatever its shapes, it never runs. */
    const ir_graph *untaken = NULL;
    int64_t cond;
    int n_cond;
    if (ir_node_is(n, "If") && sh_ints(c, i, 0, &cond, &n_cond, 1) && n_cond == 1) {
        const ir_attr *a = ir_node_attr(n, cond ? "else_branch" : "then_branch");
        untaken = a && a->kind == IR_ATTR_GRAPH ? a->g : NULL;
    }
    c->dead_branch = untaken;
    for (int k = 0; (sub = ir_node_subgraph(n, k)); k++) {
        refresh_captures(sub);
        if (!ir_node_is(n, "If"))
            continue; /* Loop/Scan bodies depend on iteration state: outputs must be declared */
        if (!infer_graph(sub, c->opset, c->other_domains, c->err))
            continue;
        if (sub == untaken && c->err->code != TOSAC_ERR_INTERNAL) {
            tosac_error_clear(c->err);
            continue;
        }
        /* A branch whose shapes contradict (silero's 8 kHz branch fed a 16 kHz frame) fails
         * whenever it runs with these inputs: no successful run takes it, so the If has the
         * other branch's shapes; the dead branch keeps what was inferred and runs on the CPU,
         * where taking it is the run-time error it would be anyway. */
        if (c->err->code != TOSAC_ERR_INPUT || c->dead_branch || untaken)
            return c->err->code;
        c->dead_branch = sub;
        tosac_error_clear(c->err);
    }
    if (n->domain[0] != '\0' && c->other_domains) {
        for (int k = 0; k < n->n_outputs; k++)
            if (n->outputs[k] >= 0 && !sh_static(&c->g->tensors[n->outputs[k]]))
                return sh_fail(c, i, "an operator of another domain without declared outputs");
        return TOSAC_OK;
    }
    if (n->domain[0] != '\0') {
        char desc[160];
        return tosac_fail(c->err, TOSAC_ERR_UNSUPPORTED, "%s: operator domain '%s' is not supported",
                          ir_node_desc(c->g, i, desc, sizeof desc), n->domain);
    }
    shape_rule rule = ir_shape_rule(n->op_type);
    if (rule)
        return rule(c, i);
    /* No rule: accept fully declared outputs, else name the node. */
    for (int k = 0; k < n->n_outputs; k++)
        if (n->outputs[k] >= 0 && !sh_static(&c->g->tensors[n->outputs[k]]))
            return sh_fail(c, i, "the operator has no shape rule");
    return TOSAC_OK;
}

static tosac_code infer_graph(ir_graph *g, int64_t opset, bool other_domains, tosac_error *err)
{
    int nn = g->n_nodes;
    int *order = malloc((size_t)(nn ? nn : 1) * sizeof *order);
    shape_val *vals = malloc((size_t)(g->n_tensors ? g->n_tensors : 1) * sizeof *vals);
    if (!order || !vals) {
        free(order);
        free(vals);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    }
    for (int t = 0; t < g->n_tensors; t++)
        vals[t].n = -1;
    shape_ctx c = {g, vals, opset, err, NULL, other_domains};
    int n_order = 0;
    tosac_code rc = ir_graph_topo_order(g, order, &n_order, err);
    for (int i = 0; i < n_order && !rc; i++)
        rc = infer_node(&c, order[i]);
    free(order);
    free(vals);
    return rc;
}

static tosac_code infer_model(ir_model *m, bool other_domains, tosac_error *err)
{
    tosac_error local;
    tosac_error_clear(&local);
    if (!err)
        err = &local; /* the rules read err->code */
    ir_graph *g = m->graph;
    for (int i = 0; i < g->n_inputs; i++) {
        const ir_tensor *t = &g->tensors[g->inputs[i]];
        if (t->rank < 0)
            return tosac_fail(err, TOSAC_ERR_INPUT,
                              "input '%s' has no shape: give --input-shape %s=D0,D1,...", t->name,
                              t->name);
        for (int d = 0; d < t->rank; d++)
            if (t->shape[d] < 0)
                return tosac_fail(err, TOSAC_ERR_INPUT,
                                  "input '%s' has a dynamic dimension %d ('%s'): give "
                                  "--input-shape %s=D0,D1,...",
                                  t->name, d, t->dim_param[d] ? t->dim_param[d] : "?", t->name);
        if (t->dtype == TOSAC_DT_UNKNOWN)
            return tosac_fail(err, TOSAC_ERR_INPUT, "input '%s' has no element type", t->name);
    }
    tosac_code rc = infer_graph(g, ir_model_opset(m, ""), other_domains, err);
    if (rc)
        return rc;
    for (int i = 0; i < g->n_outputs; i++)
        if (!sh_static(&g->tensors[g->outputs[i]]))
            return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "output '%s' has no static shape",
                              g->tensors[g->outputs[i]].name);
    return TOSAC_OK;
}

tosac_code ir_model_infer_shapes(ir_model *m, tosac_error *err)
{
    return infer_model(m, false, err);
}

tosac_code ir_model_check_shapes(ir_model *m, tosac_error *err)
{
    return infer_model(m, true, err);
}

tosac_code sh_bad(shape_ctx *c, int node, const char *what)
{
    return tosac_fail(c->err, TOSAC_ERR_INPUT, "node '%s': %s", c->g->nodes[node].name, what);
}

tosac_code sh_scalar_int(shape_ctx *c, int node, int k, int64_t *v)
{
    int n;
    *v = SH_UNKNOWN;
    if (sh_ints(c, node, k, v, &n, 1) && n == 1)
        return TOSAC_OK;
    *v = SH_UNKNOWN;
    return sh_declared_or_fail(c, node, 0, "a size input is not a known constant");
}
