/* Planning a program's memory: the timelines and items of compile_plan.h, placed per graph
 * (compile_plan_place.c), bodies first so a node's region item knows its size. */
#include <stdlib.h>
#include <string.h>

#include "compile/compile_plan.h"
#include "compile/program_internal.h"

#define PLAN_MAX_NESTING 64

/* ---- execution orders ---- */

tosac_code plan_tosa_order(const tosa_block *b, int *order, tosac_error *err)
{
    int nt = b->n_tensors, no = b->n_ops;
    bool *ready = calloc((size_t)(nt ? nt : 1), sizeof *ready);
    bool *written = calloc((size_t)(nt ? nt : 1), sizeof *written);
    bool *done = calloc((size_t)(no ? no : 1), sizeof *done);
    tosac_code rc = TOSAC_OK;
    if (!ready || !written || !done) {
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        goto out;
    }
    for (int i = 0; i < b->n_inputs; i++) {
        if (b->inputs[i] < 0 || b->inputs[i] >= nt) {
            rc = tosac_fail(err, TOSAC_ERR_INPUT, "block '%s': input %d refers to no tensor",
                            b->name, i);
            goto out;
        }
        ready[b->inputs[i]] = true;
    }
    for (int i = 0; i < no; i++) {
        const tosa_operator *o = &b->ops[i];
        for (int k = 0; k < o->n_inputs + o->n_outputs; k++) {
            int t = k < o->n_inputs ? o->inputs[k] : o->outputs[k - o->n_inputs];
            if (t < 0 || t >= nt) {
                rc = tosac_fail(err, TOSAC_ERR_INPUT, "block '%s': operator %d: operand %d "
                                "refers to no tensor", b->name, i, k);
                goto out;
            }
            if (k >= o->n_inputs && !b->tensors[t].variable)
                written[t] = true;
        }
    }
    for (int t = 0; t < nt; t++)
        if (b->tensors[t].variable || b->tensors[t].outer_ref ||
            (!written[t] && b->tensors[t].data))
            ready[t] = true;
    int n = 0;
    while (n < no) {
        int before = n;
        for (int i = 0; i < no; i++) {
            const tosa_operator *o = &b->ops[i];
            bool ok = !done[i];
            for (int k = 0; k < o->n_inputs && ok; k++)
                ok = ready[o->inputs[k]];
            if (!ok)
                continue;
            done[i] = true;
            order[n++] = i;
            for (int k = 0; k < o->n_outputs; k++)
                ready[o->outputs[k]] = true;
        }
        if (n == before) {
            rc = tosac_fail(err, TOSAC_ERR_INPUT, "block '%s': %d operators never get their "
                            "inputs", b->name, no - n);
            goto out;
        }
    }
out:
    free(ready);
    free(written);
    free(done);
    return rc;
}

/* ---- graph numbering ---- */

/* *v resized to cap elements of esz bytes; false (v unchanged) when out of memory. */
static bool grow(void **v, int cap, size_t esz)
{
    void *n = realloc(*v, (size_t)cap * esz);
    if (n)
        *v = n;
    return n != NULL;
}

typedef struct glist {
    const ir_graph **g;
    int *parent, *owner;
    int n, cap;
} glist;

static tosac_code glist_add(glist *l, const ir_graph *g, int parent, int owner, int depth,
                            tosac_error *err)
{
    if (depth > PLAN_MAX_NESTING)
        return tosac_fail(err, TOSAC_ERR_INPUT, "plan: bodies nested deeper than %d",
                          PLAN_MAX_NESTING);
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 8;
        bool ok = grow((void **)&l->g, cap, sizeof *l->g);
        ok = grow((void **)&l->parent, cap, sizeof *l->parent) && ok;
        if (!(grow((void **)&l->owner, cap, sizeof *l->owner) && ok))
            return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        l->cap = cap;
    }
    int me = l->n++;
    l->g[me] = g;
    l->parent[me] = parent;
    l->owner[me] = owner;
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_graph *sub;
        for (int k = 0; (sub = ir_node_subgraph(&g->nodes[i], k)); k++) {
            tosac_code rc = glist_add(l, sub, me, i, depth + 1, err);
            if (rc)
                return rc;
        }
    }
    return TOSAC_OK;
}

tosac_code plan_graph_list(const ir_graph *main, const ir_graph ***graphs, int **parent,
                           int **owner, int *n, tosac_error *err)
{
    glist l = {0};
    tosac_code rc = glist_add(&l, main, -1, -1, 0, err);
    *n = rc ? 0 : l.n;
    if (graphs && !rc)
        *graphs = l.g;
    else
        free(l.g);
    if (parent && !rc)
        *parent = l.parent;
    else
        free(l.parent);
    if (owner && !rc)
        *owner = l.owner;
    else
        free(l.owner);
    return rc;
}

/* ---- items of one graph ---- */

typedef struct items {
    plan_item *v;
    uint64_t *lb;        /* size counted in the lower bound (a region item: its bodies' bound) */
    int n, cap;
} items;

/* Planning state shared by every graph of a program. */
typedef struct pstate {
    const tosac_program *p;
    const tosac_plan_sizes *extra;
    tosac_program_plan *out;
    const ir_graph **graphs;
    int *parent, *owner;
    int **cpu_item;      /* [graph][tensor]: item index, -1 not touched yet, -2 never planned */
    int **tosa_item;     /* [delegate][tensor]: the same, in the delegate's graph's items */
    int *deleg_graph;    /* [delegate]: graph of the node running it, or -1 */
    int **region_item;   /* [graph][node]: region item of a node with bodies, or -1 */
    items *it;           /* [graph] */
    uint64_t *lb;        /* [graph] lower bound */
    tosac_error *err;
} pstate;

static int item_new(pstate *s, int gi, uint64_t bytes, uint64_t lb, int step)
{
    items *l = &s->it[gi];
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        bool ok = grow((void **)&l->v, cap, sizeof *l->v);
        if (!(grow((void **)&l->lb, cap, sizeof *l->lb) && ok)) {
            tosac_fail(s->err, TOSAC_ERR_INTERNAL, "out of memory");
            return -1;
        }
        l->cap = cap;
    }
    l->v[l->n] = (plan_item){bytes, step, step, -1};
    l->lb[l->n] = lb;
    return l->n++;
}

/* Extends item *slot to step (creating it with bytes when it is -1; -2: not planned). */
static tosac_code touch(pstate *s, int gi, int *slot, uint64_t bytes, int step)
{
    if (*slot == -2)
        return TOSAC_OK;
    if (*slot == -1) {
        *slot = item_new(s, gi, bytes, bytes, step);
        return *slot < 0 ? s->err->code : TOSAC_OK;
    }
    plan_item *v = &s->it[gi].v[*slot];
    if (step < v->first_step)
        v->first_step = step;
    if (step > v->last_step)
        v->last_step = step;
    return TOSAC_OK;
}

/* Bytes of a value with a static shape and a known element type, or false. */
static bool static_bytes(tosac_dtype dt, int rank, const int64_t *shape, uint64_t *bytes)
{
    size_t nb;
    tosac_error local;
    tosac_error_clear(&local);
    if (rank < 0 || tosac_dtype_size(dt) == 0 || tosac_shape_check(dt, rank, shape, &nb, &local))
        return false;
    *bytes = nb;
    return true;
}

static uint64_t cpu_bytes(const ir_graph *g, int t)
{
    uint64_t b = 0;
    static_bytes(g->tensors[t].dtype, g->tensors[t].rank, g->tensors[t].shape, &b);
    return b;
}

static uint64_t tosa_bytes(const tosa_block *b, int t)
{
    uint64_t n = 0;
    static_bytes(b->tensors[t].dtype, b->tensors[t].rank, b->tensors[t].shape, &n);
    return n;
}

static bool cpu_planned(const ir_graph *g, int t)
{
    const ir_tensor *x = &g->tensors[t];
    tosac_tensor v;
    uint64_t b;
    return x->outer_id < 0 && !ir_graph_const_value(g, t, &v) &&
           static_bytes(x->dtype, x->rank, x->shape, &b);
}

static bool tosa_planned(const tosa_block *b, int t)
{
    const tosa_tensor *x = &b->tensors[t];
    uint64_t n;
    return !x->data && !x->variable && !x->outer_ref && !x->is_unranked &&
           static_bytes(x->dtype, x->rank, x->shape, &n);
}

static bool same_repr(tosac_dtype a, tosac_dtype b)
{
    return a == b || (a == TOSAC_DT_I48 && b == TOSAC_DT_I64) ||
           (a == TOSAC_DT_I64 && b == TOSAC_DT_I48);
}

static bool is_delegate(const ir_node *n)
{
    return strcmp(n->domain, IR_DOMAIN_TOSAC) == 0 && strcmp(n->op_type, TOSAC_DELEGATE_OP) == 0;
}

/* The main block of the delegate node n runs, checked against the node; *d gets its index. */
static tosac_code delegate_of(pstate *s, int gi, const ir_node *n, int *d, const tosa_block **b)
{
    const tosac_program *p = s->p;
    int64_t idx = ir_node_attr_int(n, "index", -1);
    if (idx < 0 || idx >= p->n_delegates || !p->delegates || !p->delegates[idx])
        return tosac_fail(s->err, TOSAC_ERR_INPUT, "plan: node '%s': delegate index %lld out of "
                          "range", n->name, (long long)idx);
    *d = (int)idx;
    *b = tosa_graph_main_block(p->delegates[idx]);
    if (!*b)
        return tosac_fail(s->err, TOSAC_ERR_INPUT, "plan: delegate %d has no main block", *d);
    if ((*b)->n_inputs != n->n_inputs || (*b)->n_outputs != n->n_outputs)
        return tosac_fail(s->err, TOSAC_ERR_INPUT, "plan: node '%s' has %d inputs and %d outputs, "
                          "delegate %d's block %d and %d", n->name, n->n_inputs, n->n_outputs,
                          *d, (*b)->n_inputs, (*b)->n_outputs);
    if (s->deleg_graph[*d] >= 0)
        return tosac_fail(s->err, TOSAC_ERR_UNSUPPORTED, "plan: delegate %d is run by more than "
                          "one node", *d);
    s->deleg_graph[*d] = gi;
    return TOSAC_OK;
}

/* Block tensor bt bound to CPU tensor x at step: the same item when both are planned alike,
 * else each its own. */
static tosac_code bind(pstate *s, int gi, int d, const tosa_block *b, int bt, int x, int step)
{
    const ir_graph *g = s->graphs[gi];
    int *slot = &s->tosa_item[d][bt];
    int *cs = x >= 0 && x < g->n_tensors ? &s->cpu_item[gi][x] : NULL;
    tosac_code rc = cs ? touch(s, gi, cs, cpu_bytes(g, x), step) : TOSAC_OK;
    if (!rc && *slot == -1 && cs && *cs >= 0 &&
        same_repr(b->tensors[bt].dtype, g->tensors[x].dtype) &&
        tosa_bytes(b, bt) == cpu_bytes(g, x)) {
        *slot = *cs;
        return TOSAC_OK;
    }
    return rc ? rc : touch(s, gi, slot, tosa_bytes(b, bt), step);
}

/* Adds the sub-blocks control flow operator o names to work[] (each block once). */
static void push_sub_blocks(const tosa_graph *tg, const tosa_block *main, const tosa_operator *o,
                            const tosa_block **work, int *nw, int cap)
{
    if (o->op != TOSA_OP_COND_IF && o->op != TOSA_OP_WHILE_LOOP)
        return;
    const char *names[4] = {o->attr.then_graph, o->attr.else_graph, o->attr.cond_graph,
                            o->attr.body_graph};
    for (int k = 0; k < 4 && *nw < cap; k++) {
        const tosa_block *nb = names[k] ? tosa_graph_find_block(tg, names[k]) : NULL;
        bool seen = !nb || nb == main;
        for (int j = 0; j < *nw && !seen; j++)
            seen = work[j] == nb;
        if (!seen)
            work[(*nw)++] = nb;
    }
}

/* Main-block tensors that the sub-blocks of control flow operator o name (outer references,
 * looked up by name in the caller; every block reachable from o, over-approximating) are
 * read at its step. */
static tosac_code touch_outer_refs(pstate *s, int gi, int d, const tosa_block *main,
                                   const tosa_operator *o, int step)
{
    const tosa_graph *tg = s->p->delegates[d];
    int cap = 0;
    for (int r = 0; r < tg->n_regions; r++)
        cap += tg->regions[r].n_blocks;
    const tosa_block **work = malloc((size_t)(cap + 1) * sizeof *work);
    if (!work)
        return tosac_fail(s->err, TOSAC_ERR_INTERNAL, "out of memory");
    int nw = 0;
    push_sub_blocks(tg, main, o, work, &nw, cap);
    tosac_code rc = TOSAC_OK;
    for (int w = 0; w < nw && !rc; w++) {
        const tosa_block *sb = work[w];
        for (int t = 0; t < sb->n_tensors && !rc; t++) {
            int mt = sb->tensors[t].outer_ref ? tosa_block_find_tensor(main, sb->tensors[t].name)
                                              : -1;
            if (mt >= 0)
                rc = touch(s, gi, &s->tosa_item[d][mt], tosa_bytes(main, mt), step);
        }
        for (int i = 0; i < sb->n_ops; i++)
            push_sub_blocks(tg, main, &sb->ops[i], work, &nw, cap);
    }
    free(work);
    return rc;
}

/* The runtime fuses a convolution or MATMUL with the RESCALE (+CLAMP) that alone reads its
 * result (rt_accel_match_requant) and writes the final int8/int16 value while it still reads
 * the operator's input: planned over that input, the fused kernel would have to stage its
 * result and copy it (about 3% of mobilenet_v2 int8). So the inputs of such an operator stay
 * alive to the end of its tail. */
static bool fuses_requant_tail(tosa_op op)
{
    return op == TOSA_OP_CONV2D || op == TOSA_OP_DEPTHWISE_CONV2D ||
           op == TOSA_OP_TRANSPOSE_CONV2D || op == TOSA_OP_MATMUL;
}

/* The next operator after order index k that is not a CONST, or -1. */
static int next_compute(const tosa_block *b, const int *ops, int k)
{
    for (int j = k + 1; j < b->n_ops; j++)
        if (b->ops[ops[j]].op != TOSA_OP_CONST && b->ops[ops[j]].op != TOSA_OP_CONST_SHAPE)
            return j;
    return -1;
}

/* The order index of the last operator of k's RESCALE (+CLAMP) tail, k when it has none.
 * reader[t]: the operator index reading tensor t when exactly one operator reads it once
 * and it is no block output, else -1. */
static int requant_tail_end(const tosa_block *b, const int *ops, const int *reader, int k)
{
    if (!reader || !fuses_requant_tail(b->ops[ops[k]].op))
        return k;
    int end = k;
    for (int want = 0; want < 2; want++) { /* RESCALE, then CLAMP */
        const tosa_operator *o = &b->ops[ops[end]];
        int j = next_compute(b, ops, end);
        if (j < 0 || o->n_outputs != 1 ||
            b->ops[ops[j]].op != (want == 0 ? TOSA_OP_RESCALE : TOSA_OP_CLAMP) ||
            reader[o->outputs[0]] != ops[j])
            break;
        end = j;
    }
    return end;
}

/* reader[] of requant_tail_end for block b (malloc'd; NULL when out of memory: no tails).
 * The operators' operands are in range (plan_tosa_order checked them). */
static int *sole_readers(const tosa_block *b)
{
    int *r = malloc((size_t)(b->n_tensors + 1) * sizeof *r);
    if (!r)
        return NULL;
    for (int t = 0; t < b->n_tensors; t++)
        r[t] = -1;
    for (int i = 0; i < b->n_ops; i++)
        for (int k = 0; k < b->ops[i].n_inputs; k++) {
            int t = b->ops[i].inputs[k];
            r[t] = r[t] == -1 ? i : -2;
        }
    for (int i = 0; i < b->n_outputs; i++)
        if (b->outputs[i] >= 0 && b->outputs[i] < b->n_tensors)
            r[b->outputs[i]] = -2;
    for (int t = 0; t < b->n_tensors; t++)
        r[t] = r[t] < 0 ? -1 : r[t];
    return r;
}

/* The delegate node n (node ni) over steps [a, a + its operator count). */
static tosac_code delegate_steps(pstate *s, int gi, int ni, int d, const tosa_block *b, int a,
                                 const int *ops)
{
    const ir_node *n = &s->graphs[gi]->nodes[ni];
    int last = a + (b->n_ops > 0 ? b->n_ops - 1 : 0);
    tosac_code rc = TOSAC_OK;
    for (int t = 0; t < b->n_tensors; t++)
        s->tosa_item[d][t] = tosa_planned(b, t) ? -1 : -2;
    for (int i = 0; !rc && i < b->n_inputs; i++)
        rc = bind(s, gi, d, b, b->inputs[i], n->inputs[i], a);
    for (int i = 0; !rc && i < b->n_outputs; i++)
        rc = bind(s, gi, d, b, b->outputs[i], n->outputs[i], last);
    int *reader = sole_readers(b);
    for (int k = 0; !rc && k < b->n_ops; k++) {
        const tosa_operator *o = &b->ops[ops[k]];
        for (int j = 0; !rc && j < o->n_inputs + o->n_outputs; j++) {
            int t = j < o->n_inputs ? o->inputs[j] : o->outputs[j - o->n_inputs];
            rc = touch(s, gi, &s->tosa_item[d][t], tosa_bytes(b, t), a + k);
        }
        int end = requant_tail_end(b, ops, reader, k);
        for (int j = 0; !rc && end > k && j < o->n_inputs; j++) {
            int t = o->inputs[j];
            rc = touch(s, gi, &s->tosa_item[d][t], tosa_bytes(b, t), a + end);
        }
        if (!rc && (o->op == TOSA_OP_COND_IF || o->op == TOSA_OP_WHILE_LOOP))
            rc = touch_outer_refs(s, gi, d, b, o, a + k);
    }
    free(reader);
    return rc;
}

/* Builds graph gi's timeline and items (its bodies already planned) and places them. */
static tosac_code plan_graph(pstate *s, int gi)
{
    const ir_graph *g = s->graphs[gi];
    tosac_program_plan *out = s->out;
    tosac_error *err = s->err;
    int nn = g->n_nodes, nt = g->n_tensors, n_order = 0;
    int *order = malloc((size_t)(nn + 1) * sizeof *order);
    int *first = malloc((size_t)(nn + 1) * sizeof *first);
    int **ops = calloc((size_t)(nn + 1), sizeof *ops);
    int *dl = malloc((size_t)(nn + 1) * sizeof *dl);
    const tosa_block **blk = calloc((size_t)(nn + 1), sizeof *blk);
    s->cpu_item[gi] = malloc((size_t)(nt + 1) * sizeof **s->cpu_item);
    s->region_item[gi] = malloc((size_t)(nn + 1) * sizeof **s->region_item);
    tosac_code rc = !order || !first || !ops || !dl || !blk || !s->cpu_item[gi] ||
                            !s->region_item[gi]
                        ? tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory")
                        : ir_graph_topo_order(g, order, &n_order, err);
    int n_steps = 0;
    for (int k = 0; !rc && k < n_order; k++) {
        int ni = order[k];
        const ir_node *n = &g->nodes[ni];
        first[ni] = n_steps;
        dl[ni] = -1;
        int len = 1;
        if (is_delegate(n)) {
            rc = delegate_of(s, gi, n, &dl[ni], &blk[ni]);
            if (!rc && !(ops[ni] = malloc((size_t)(blk[ni]->n_ops + 1) * sizeof **ops)))
                rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
            if (!rc)
                rc = plan_tosa_order(blk[ni], ops[ni], err);
            if (!rc && blk[ni]->n_ops > 1)
                len = blk[ni]->n_ops;
        }
        if (!rc && n_steps > INT32_MAX - 1 - len)
            rc = tosac_fail(err, TOSAC_ERR_INPUT, "plan: graph '%s' has too many steps", g->name);
        n_steps += len;
    }
    int L = n_steps > 0 ? n_steps : 1;
    out->n_steps[gi] = rc ? 0 : n_steps;
    out->step_node[gi] = rc ? NULL : malloc((size_t)L * sizeof **out->step_node);
    out->step_op[gi] = rc ? NULL : malloc((size_t)L * sizeof **out->step_op);
    out->scratch_offset[gi] = rc ? NULL : malloc((size_t)L * sizeof **out->scratch_offset);
    out->scratch_bytes[gi] = rc ? NULL : calloc((size_t)L, sizeof **out->scratch_bytes);
    int *scratch_item = rc ? NULL : malloc((size_t)L * sizeof *scratch_item);
    if (!rc && (!out->step_node[gi] || !out->step_op[gi] || !out->scratch_offset[gi] ||
                !out->scratch_bytes[gi] || !scratch_item))
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    for (int t = 0; !rc && t < nt; t++)
        s->cpu_item[gi][t] = cpu_planned(g, t) ? -1 : -2;
    for (int i = 0; !rc && i < nn; i++)
        s->region_item[gi][i] = -1;
    for (int i = 0; !rc && i < L; i++) {
        out->step_node[gi][i] = -1;
        out->step_op[gi][i] = -1;
        out->scratch_offset[gi][i] = -1;
        scratch_item[i] = -1;
    }
    for (int i = 0; !rc && i < g->n_inputs; i++)
        rc = touch(s, gi, &s->cpu_item[gi][g->inputs[i]], cpu_bytes(g, g->inputs[i]), 0);
    const tosac_plan_sizes *x = s->extra;
    for (int k = 0; !rc && k < n_order; k++) {
        int ni = order[k], a = first[ni];
        const ir_node *n = &g->nodes[ni];
        if (dl[ni] >= 0) {
            for (int j = 0; j < blk[ni]->n_ops; j++) {
                out->step_node[gi][a + j] = ni;
                out->step_op[gi][a + j] = ops[ni][j];
            }
            if (blk[ni]->n_ops == 0)
                out->step_node[gi][a] = ni;
            rc = delegate_steps(s, gi, ni, dl[ni], blk[ni], a, ops[ni]);
            continue;
        }
        out->step_node[gi][a] = ni;
        for (int j = 0; !rc && j < n->n_inputs + n->n_outputs; j++) {
            int t = j < n->n_inputs ? n->inputs[j] : n->outputs[j - n->n_inputs];
            if (t >= 0 && t < nt)
                rc = touch(s, gi, &s->cpu_item[gi][t], cpu_bytes(g, t), a);
        }
        const ir_graph *sub;
        uint64_t region = 0, region_lb = 0;
        for (int k2 = 0; !rc && (sub = ir_node_subgraph(n, k2)); k2++) {
            for (int t = 0; !rc && t < sub->n_tensors; t++) {
                int o = sub->tensors[t].outer_id;
                if (o >= 0 && o < nt)
                    rc = touch(s, gi, &s->cpu_item[gi][o], cpu_bytes(g, o), a);
            }
        }
        for (int bi = gi + 1; !rc && bi < out->n_graphs; bi++)
            if (s->parent[bi] == gi && s->owner[bi] == ni) {
                if (out->graph_bytes[bi] > region)
                    region = out->graph_bytes[bi];
                if (s->lb[bi] > region_lb)
                    region_lb = s->lb[bi];
            }
        if (!rc && region > 0 && (s->region_item[gi][ni] = item_new(s, gi, region, region_lb,
                                                                    a)) < 0)
            rc = err->code;
        uint64_t sb = x && gi < x->n_graphs && x->scratch && x->scratch[gi] && x->n_nodes &&
                              ni < x->n_nodes[gi]
                          ? x->scratch[gi][ni]
                          : 0;
        out->scratch_bytes[gi][a] = sb;
        if (!rc && sb > 0 && (scratch_item[a] = item_new(s, gi, sb, sb, a)) < 0)
            rc = err->code;
    }
    for (int i = 0; !rc && i < g->n_outputs; i++)
        rc = touch(s, gi, &s->cpu_item[gi][g->outputs[i]], cpu_bytes(g, g->outputs[i]), L - 1);
    /* place; the lower bound counts each region as its bodies' bound */
    items *l = &s->it[gi];
    plan_item *lbv = rc ? NULL : malloc(((size_t)l->n + 1) * sizeof *lbv);
    if (!rc && !lbv)
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    uint64_t arena = 0;
    if (!rc)
        rc = plan_place(l->v, l->n, TOSAC_PLAN_ALIGN, &arena, NULL, err);
    for (int i = 0; !rc && i < l->n; i++) {
        lbv[i] = l->v[i];
        lbv[i].bytes = l->lb[i];
    }
    if (!rc)
        rc = plan_live_peak(lbv, l->n, TOSAC_PLAN_ALIGN, &s->lb[gi], err);
    if (!rc) {
        out->graph_bytes[gi] = arena;
        for (int i = 0; i < L; i++)
            out->scratch_offset[gi][i] = scratch_item[i] >= 0 ? l->v[scratch_item[i]].offset : -1;
    }
    free(lbv);
    free(scratch_item);
    for (int i = 0; ops && i < nn; i++)
        free(ops[i]);
    free(ops);
    free(order);
    free(first);
    free(dl);
    free(blk);
    return rc;
}

/* ---- the program ---- */

static int64_t *offsets_new(int n)
{
    int64_t *v = malloc((size_t)(n + 1) * sizeof *v);
    for (int i = 0; v && i < n; i++)
        v[i] = -1;
    return v;
}

static tosac_code plan_alloc(pstate *s, int ng, tosac_error *err)
{
    tosac_program_plan *out = s->out;
    const tosac_program *p = s->p;
    int nd = p->n_delegates > 0 ? p->n_delegates : 0;
    size_t g1 = (size_t)ng + 1, d1 = (size_t)nd + 1;
    out->n_graphs = ng;
    out->n_delegates = nd;
    out->n_cpu = calloc(g1, sizeof *out->n_cpu);
    out->cpu_offset = calloc(g1, sizeof *out->cpu_offset);
    out->n_tosa = calloc(d1, sizeof *out->n_tosa);
    out->tosa_offset = calloc(d1, sizeof *out->tosa_offset);
    out->n_steps = calloc(g1, sizeof *out->n_steps);
    out->scratch_offset = calloc(g1, sizeof *out->scratch_offset);
    out->scratch_bytes = calloc(g1, sizeof *out->scratch_bytes);
    out->step_node = calloc(g1, sizeof *out->step_node);
    out->step_op = calloc(g1, sizeof *out->step_op);
    out->graph_offset = calloc(g1, sizeof *out->graph_offset);
    out->graph_bytes = calloc(g1, sizeof *out->graph_bytes);
    s->cpu_item = calloc(g1, sizeof *s->cpu_item);
    s->region_item = calloc(g1, sizeof *s->region_item);
    s->it = calloc(g1, sizeof *s->it);
    s->lb = calloc(g1, sizeof *s->lb);
    s->tosa_item = calloc(d1, sizeof *s->tosa_item);
    s->deleg_graph = malloc(d1 * sizeof *s->deleg_graph);
    if (!out->n_cpu || !out->cpu_offset || !out->n_tosa || !out->tosa_offset || !out->n_steps ||
        !out->scratch_offset || !out->scratch_bytes || !out->step_node || !out->step_op ||
        !out->graph_offset || !out->graph_bytes || !s->cpu_item || !s->region_item || !s->it ||
        !s->lb || !s->tosa_item || !s->deleg_graph)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    for (int d = 0; d < nd; d++) {
        const tosa_block *b = p->delegates && p->delegates[d]
                                  ? tosa_graph_main_block(p->delegates[d])
                                  : NULL;
        int n = b ? b->n_tensors : 0;
        s->deleg_graph[d] = -1;
        out->n_tosa[d] = n;
        if (!(out->tosa_offset[d] = offsets_new(n)) ||
            !(s->tosa_item[d] = malloc((size_t)(n + 1) * sizeof **s->tosa_item)))
            return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        for (int t = 0; t < n; t++)
            s->tosa_item[d][t] = -2;
    }
    for (int gi = 0; gi < ng; gi++) {
        out->n_cpu[gi] = s->graphs[gi]->n_tensors;
        if (!(out->cpu_offset[gi] = offsets_new(out->n_cpu[gi])))
            return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    }
    return TOSAC_OK;
}

/* Region starts (pre-order: a parent before its bodies) and absolute offsets. */
static void plan_resolve(pstate *s)
{
    tosac_program_plan *out = s->out;
    for (int gi = 0; gi < out->n_graphs; gi++) {
        int pg = s->parent[gi];
        int ri = pg >= 0 ? s->region_item[pg][s->owner[gi]] : -1;
        out->graph_offset[gi] = pg < 0 ? 0 : out->graph_offset[pg] + (ri >= 0 ? s->it[pg].v[ri].offset : 0);
        int64_t base = out->graph_offset[gi];
        for (int t = 0; t < out->n_cpu[gi]; t++) {
            int it = s->cpu_item[gi][t];
            out->cpu_offset[gi][t] = it >= 0 ? base + s->it[gi].v[it].offset : -1;
        }
        for (int i = 0; i < (out->n_steps[gi] > 0 ? out->n_steps[gi] : 1); i++)
            if (out->scratch_offset[gi][i] >= 0)
                out->scratch_offset[gi][i] += base;
    }
    for (int d = 0; d < out->n_delegates; d++) {
        int gi = s->deleg_graph[d];
        for (int t = 0; gi >= 0 && t < out->n_tosa[d]; t++) {
            int it = s->tosa_item[d][t];
            out->tosa_offset[d][t] = it >= 0 ? out->graph_offset[gi] + s->it[gi].v[it].offset : -1;
        }
    }
    out->arena_bytes = out->graph_bytes[0];
    out->lower_bound_bytes = s->lb[0];
}

static void pstate_free(pstate *s)
{
    int ng = s->out->n_graphs, nd = s->out->n_delegates;
    for (int gi = 0; gi < ng; gi++) {
        if (s->cpu_item)
            free(s->cpu_item[gi]);
        if (s->region_item)
            free(s->region_item[gi]);
        if (s->it) {
            free(s->it[gi].v);
            free(s->it[gi].lb);
        }
    }
    for (int d = 0; s->tosa_item && d < nd; d++)
        free(s->tosa_item[d]);
    free(s->cpu_item);
    free(s->region_item);
    free(s->it);
    free(s->lb);
    free(s->tosa_item);
    free(s->deleg_graph);
    free(s->graphs);
    free(s->parent);
    free(s->owner);
}

tosac_code tosac_plan_program(const tosac_program *p, const tosac_plan_sizes *extra,
                              tosac_program_plan *out, tosac_error *err)
{
    memset(out, 0, sizeof *out);
    if (!p || !p->cpu || !p->cpu->graph)
        return tosac_fail(err, TOSAC_ERR_INPUT, "plan: the program has no CPU graph");
    pstate s = {.p = p, .extra = extra, .out = out, .err = err};
    int ng = 0;
    tosac_code rc = plan_graph_list(p->cpu->graph, &s.graphs, &s.parent, &s.owner, &ng, err);
    if (!rc)
        rc = plan_alloc(&s, ng, err);
    for (int gi = ng - 1; !rc && gi >= 0; gi--) /* bodies before the graphs holding them */
        rc = plan_graph(&s, gi);
    if (!rc)
        plan_resolve(&s);
    pstate_free(&s);
    if (rc)
        tosac_program_plan_free(out);
    return rc;
}

void tosac_program_plan_free(tosac_program_plan *plan)
{
    if (!plan)
        return;
    for (int g = 0; g < plan->n_graphs; g++) {
        if (plan->cpu_offset)
            free(plan->cpu_offset[g]);
        if (plan->scratch_offset)
            free(plan->scratch_offset[g]);
        if (plan->scratch_bytes)
            free(plan->scratch_bytes[g]);
        if (plan->step_node)
            free(plan->step_node[g]);
        if (plan->step_op)
            free(plan->step_op[g]);
    }
    for (int d = 0; plan->tosa_offset && d < plan->n_delegates; d++)
        free(plan->tosa_offset[d]);
    free(plan->n_cpu);
    free(plan->cpu_offset);
    free(plan->n_tosa);
    free(plan->tosa_offset);
    free(plan->n_steps);
    free(plan->scratch_offset);
    free(plan->scratch_bytes);
    free(plan->step_node);
    free(plan->step_op);
    free(plan->graph_offset);
    free(plan->graph_bytes);
    memset(plan, 0, sizeof *plan);
}
