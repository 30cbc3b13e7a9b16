/* Support by trial lowering, then maximal acyclic grouping (see partition.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lower.h"
#include "partition/partition.h"

typedef struct grouping {
    const ir_graph *g;
    int *uf;            /* union-find parent per node */
    int *pos;           /* topological position per node */
    int **succ;         /* successor nodes per node */
    int *n_succ;
    int *stack;
    unsigned char *seen;
    int *size, *lo, *hi; /* per group root: its nodes, lowest and highest position */
} grouping;

static int find(grouping *s, int x)
{
    while (s->uf[x] != x)
        x = s->uf[x] = s->uf[s->uf[x]];
    return x;
}

/* True if some path leaves the union of groups a and b and comes back into it. Only nodes
 * positioned before the union's last node can lie on such a path. */
static bool creates_cycle(grouping *s, int a, int b, int n_nodes)
{
    /* A path leaving the union and coming back passes a node outside it positioned between
     * the union's first and last: none when the union fills its range of positions (as
     * groups grown along a chain do), so no search is needed. */
    int lo = s->lo[a] < s->lo[b] ? s->lo[a] : s->lo[b];
    int hi = s->hi[a] > s->hi[b] ? s->hi[a] : s->hi[b];
    if ((long)s->size[a] + s->size[b] == (long)hi - lo + 1)
        return false;
    int maxpos = -1, top = 0;
    memset(s->seen, 0, (size_t)n_nodes);
    for (int i = 0; i < n_nodes; i++) {
        int r = s->uf[i] >= 0 ? find(s, i) : -1;
        if ((r == a || r == b) && s->pos[i] > maxpos)
            maxpos = s->pos[i];
    }
    for (int i = 0; i < n_nodes; i++) {
        int r = s->uf[i] >= 0 ? find(s, i) : -1;
        if (r != a && r != b)
            continue;
        for (int k = 0; k < s->n_succ[i]; k++) {
            int v = s->succ[i][k];
            int rv = s->uf[v] >= 0 ? find(s, v) : -1;
            if (rv != a && rv != b && !s->seen[v] && s->pos[v] < maxpos) {
                s->seen[v] = 1;
                s->stack[top++] = v;
            }
        }
    }
    while (top > 0) {
        int u = s->stack[--top];
        for (int k = 0; k < s->n_succ[u]; k++) {
            int v = s->succ[u][k];
            int rv = s->uf[v] >= 0 ? find(s, v) : -1;
            if (rv == a || rv == b)
                return true;
            if (!s->seen[v] && s->pos[v] < maxpos) {
                s->seen[v] = 1;
                s->stack[top++] = v;
            }
        }
    }
    return false;
}

static tosac_code build_succ(grouping *s, int n_nodes, tosac_error *err)
{
    const ir_graph *g = s->g;
    ir_uses u;
    tosac_code rc = ir_uses_build(g, &u, err);
    for (int i = 0; !rc && i < n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (n->dead)
            continue;
        for (int o = 0; o < n->n_outputs; o++) {
            int t = n->outputs[o];
            if (t < 0)
                continue;
            int cnt = ir_uses_consumers(&u, t, NULL, 0);
            if (cnt == 0)
                continue;
            int *grown = realloc(s->succ[i], ((size_t)s->n_succ[i] + (size_t)cnt) * sizeof(int));
            if (!grown) {
                rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory partitioning");
                break;
            }
            s->succ[i] = grown;
            ir_uses_consumers(&u, t, s->succ[i] + s->n_succ[i], cnt);
            s->n_succ[i] += cnt;
        }
    }
    ir_uses_free(&u);
    return rc;
}

static void grouping_free(grouping *s, int n_nodes)
{
    for (int i = 0; s->succ && i < n_nodes; i++)
        free(s->succ[i]);
    free(s->succ);
    free(s->n_succ);
    free(s->uf);
    free(s->pos);
    free(s->stack);
    free(s->seen);
    free(s->size);
    free(s->lo);
    free(s->hi);
}

void partition_plan_free(partition_plan *p)
{
    for (int i = 0; p->reason && i < p->n_nodes; i++)
        free(p->reason[i]);
    free(p->reason);
    free((void *)p->category);
    free(p->part);
    memset(p, 0, sizeof *p);
}

/* A node refused for writing int64 from other types (without EXT-INT64) may have been
 * stopped by something else first: an ArgMax left on the CPU writes int64 (pass_narrow_int64
 * wires it so) whether a U55 limit or a float input kept it there. Tried with its int64
 * outputs as int32, a refusal there is the true reason; a success leaves the int64 one. */
static const char *other_than_int64(const tosa_spec *spec, const ir_graph *g, int i, char *why,
                                    size_t len, const char *category)
{
    ir_graph *mg = (ir_graph *)g; /* dtypes flipped and restored before returning */
    const ir_node *n = &g->nodes[i];
    for (int k = 0; k < n->n_inputs; k++)
        if (n->inputs[k] >= 0 && g->tensors[n->inputs[k]].dtype == TOSAC_DT_I64 &&
            !g->tensors[n->inputs[k]].data)
            return category; /* it computes on int64: that is the reason */
    int flipped[16], nf = 0;
    for (int o = 0; o < n->n_outputs && nf < 16; o++) {
        int t = n->outputs[o];
        if (t >= 0 && g->tensors[t].dtype == TOSAC_DT_I64) {
            mg->tensors[t].dtype = TOSAC_DT_I32;
            flipped[nf++] = t;
        }
    }
    char other[512];
    bool ok = nf == 0 || lower_trial_node(spec, g, i, other, sizeof other);
    for (int k = 0; k < nf; k++)
        mg->tensors[flipped[k]].dtype = TOSAC_DT_I64;
    if (ok)
        return category;
    const char *c = partition_categorise(spec, n, other, sizeof other);
    if (c == PARTITION_INT64)
        return category;
    snprintf(why, len, "%s", other);
    return c;
}

static tosac_code support(const tosa_spec *spec, const ir_graph *g, partition_plan *p,
                          tosac_error *err)
{
    for (int i = 0; i < g->n_nodes; i++) {
        char why[512];
        const ir_node *n = &g->nodes[i];
        if (n->dead)
            snprintf(why, sizeof why, "removed");
        else if (ir_node_is(n, "Constant"))
            snprintf(why, sizeof why, "constant (folded into the delegates that read it)");
        else if (lower_trial_node(spec, g, i, why, sizeof why))
            continue;
        p->category[i] = partition_categorise(spec, n, why, sizeof why);
        if (p->category[i] == PARTITION_INT64)
            p->category[i] = other_than_int64(spec, g, i, why, sizeof why, p->category[i]);
        p->reason[i] = strdup(why);
        if (!p->reason[i])
            return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory partitioning");
    }
    return TOSAC_OK;
}

tosac_code partition_graph(const tosa_spec *spec, const ir_graph *g, partition_plan *out,
                           tosac_error *err)
{
    memset(out, 0, sizeof *out);
    int nn = g->n_nodes, cap = nn > 0 ? nn : 1;
    grouping s = {g, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    out->n_nodes = nn;
    out->part = malloc((size_t)cap * sizeof *out->part);
    out->reason = calloc((size_t)cap, sizeof *out->reason);
    out->category = calloc((size_t)cap, sizeof *out->category);
    s.uf = malloc((size_t)cap * sizeof *s.uf);
    s.pos = malloc((size_t)cap * sizeof *s.pos);
    s.succ = calloc((size_t)cap, sizeof *s.succ);
    s.n_succ = calloc((size_t)cap, sizeof *s.n_succ);
    s.stack = malloc((size_t)cap * sizeof *s.stack);
    s.seen = malloc((size_t)cap);
    s.size = malloc((size_t)cap * sizeof *s.size);
    s.lo = malloc((size_t)cap * sizeof *s.lo);
    s.hi = malloc((size_t)cap * sizeof *s.hi);
    int *order = malloc((size_t)cap * sizeof *order), n_order = 0;
    tosac_code rc = TOSAC_OK;
    if (!out->part || !out->reason || !out->category || !s.uf || !s.pos || !s.succ ||
        !s.n_succ || !s.stack || !s.seen || !s.size || !s.lo || !s.hi || !order)
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory partitioning");
    if (!rc)
        rc = ir_graph_topo_order(g, order, &n_order, err);
    if (!rc)
        rc = support(spec, g, out, err);
    if (!rc)
        rc = build_succ(&s, nn, err);
    ir_uses u;
    memset(&u, 0, sizeof u);
    if (!rc)
        rc = ir_uses_build(g, &u, err);
    if (!rc) {
        for (int i = 0; i < nn; i++) {
            s.uf[i] = out->reason[i] ? -1 : i;
            s.pos[i] = nn; /* dead nodes sort last */
        }
        for (int k = 0; k < n_order; k++)
            s.pos[order[k]] = k;
        for (int i = 0; i < nn; i++) {
            s.size[i] = 1;
            s.lo[i] = s.hi[i] = s.pos[i];
        }
        /* grow along producer -> consumer edges in topological order */
        for (int k = 0; k < n_order; k++) {
            int v = order[k];
            if (s.uf[v] < 0)
                continue;
            const ir_node *n = &g->nodes[v];
            /* what a delegated If/Loop's bodies capture is an input too (a COND_IF /
             * WHILE_LOOP operand): its producer may join the group */
            int n_caps = lower_node_captures(g, n, NULL, 0);
            int *caps = n_caps ? malloc((size_t)n_caps * sizeof *caps) : NULL;
            if (caps)
                lower_node_captures(g, n, caps, n_caps);
            else
                n_caps = 0;
            for (int i = 0; i < n->n_inputs + n_caps; i++) {
                int t = i < n->n_inputs ? n->inputs[i] : caps[i - n->n_inputs];
                int p = t >= 0 ? ir_uses_producer(&u, t) : -1;
                if (p < 0 || s.uf[p] < 0)
                    continue;
                int a = find(&s, p), b = find(&s, v);
                if (a != b && !creates_cycle(&s, a, b, nn)) {
                    s.uf[b] = a;
                    s.size[a] += s.size[b];
                    s.lo[a] = s.lo[b] < s.lo[a] ? s.lo[b] : s.lo[a];
                    s.hi[a] = s.hi[b] > s.hi[a] ? s.hi[b] : s.hi[a];
                }
            }
            free(caps);
        }
        /* number the delegates by their first node in topological order */
        int *num = malloc((size_t)cap * sizeof *num);
        if (!num) {
            rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory partitioning");
        } else {
            for (int i = 0; i < nn; i++) {
                num[i] = -1;
                out->part[i] = -1;
            }
            for (int k = 0; k < n_order; k++) {
                int v = order[k];
                if (s.uf[v] < 0)
                    continue;
                int r = find(&s, v);
                if (num[r] < 0)
                    num[r] = out->n_parts++;
                out->part[v] = num[r];
            }
            free(num);
        }
    }
    ir_uses_free(&u);
    free(order);
    grouping_free(&s, nn);
    if (rc)
        partition_plan_free(out);
    return rc;
}

static bool in_list(const int *a, int n, int v)
{
    for (int i = 0; i < n; i++)
        if (a[i] == v)
            return true;
    return false;
}

tosac_code partition_nodes(const ir_graph *g, const partition_plan *p, int k, int **nodes,
                           int *n, tosac_error *err)
{
    int cap = g->n_nodes > 0 ? g->n_nodes : 1;
    int *order = malloc((size_t)cap * sizeof *order), n_order = 0;
    *nodes = malloc((size_t)cap * sizeof **nodes);
    *n = 0;
    tosac_code rc = !order || !*nodes
                        ? tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory partitioning")
                        : ir_graph_topo_order(g, order, &n_order, err);
    for (int i = 0; !rc && i < n_order; i++)
        if (order[i] < p->n_nodes && p->part[order[i]] == k)
            (*nodes)[(*n)++] = order[i];
    free(order);
    return rc;
}

bool partition_captured(const ir_graph *g, int t)
{
    for (int i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i].dead)
            continue;
        ir_graph *sub;
        for (int k = 0; (sub = ir_node_subgraph(&g->nodes[i], k)); k++)
            for (int c = 0; c < sub->n_tensors; c++)
                if (sub->tensors[c].outer_id == t)
                    return true;
    }
    return false;
}

tosac_code partition_io(const ir_graph *g, const partition_plan *p, int k, int **ins, int *n_in,
                        int **outs, int *n_out, tosac_error *err)
{
    int *nodes = NULL, nn = 0;
    ir_uses u;
    tosac_code rc = ir_uses_build(g, &u, err);
    if (!rc)
        rc = partition_nodes(g, p, k, &nodes, &nn, err);
    int cap = g->n_tensors > 0 ? g->n_tensors : 1;
    *ins = malloc((size_t)cap * sizeof **ins);
    *outs = malloc((size_t)cap * sizeof **outs);
    *n_in = *n_out = 0;
    if (!rc && (!*ins || !*outs))
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory partitioning");
    for (int a = 0; !rc && a < nn; a++) {
        const ir_node *n = &g->nodes[nodes[a]];
        for (int i = 0; i < n->n_inputs; i++) {
            int t = n->inputs[i];
            tosac_tensor cv;
            int pr = ir_uses_producer(&u, t);
            if (t < 0 || ir_graph_const_value_from(g, t, pr, &cv) || in_list(*ins, *n_in, t))
                continue;
            if (pr < 0 || pr >= p->n_nodes || p->part[pr] != k)
                (*ins)[(*n_in)++] = t;
        }
        /* a delegated If/Loop reads what its bodies capture (explicit COND_IF / WHILE_LOOP
         * operands) */
        int n_caps = rc ? 0 : lower_node_captures(g, n, NULL, 0);
        int *caps = n_caps ? malloc((size_t)n_caps * sizeof *caps) : NULL;
        if (n_caps && !caps)
            rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory partitioning");
        if (caps)
            lower_node_captures(g, n, caps, n_caps);
        for (int i = 0; caps && i < n_caps; i++) {
            int t = caps[i], pr = ir_uses_producer(&u, t);
            tosac_tensor cv;
            if (ir_graph_const_value_from(g, t, pr, &cv) || in_list(*ins, *n_in, t))
                continue;
            if (pr < 0 || pr >= p->n_nodes || p->part[pr] != k)
                (*ins)[(*n_in)++] = t;
        }
        free(caps);
        for (int o = 0; o < n->n_outputs; o++) {
            int t = n->outputs[o];
            if (t < 0)
                continue;
            /* a body reading t through a capture counts as a read by the node owning it
             * (in the readers): outside when that node is */
            bool outside = ir_graph_is_output(g, t);
            int cnt = ir_uses_consumers(&u, t, NULL, 0);
            const int *who = cnt ? u.readers + u.start[t] : NULL;
            for (int c = 0; c < cnt && !outside; c++)
                outside = who[c] >= p->n_nodes || p->part[who[c]] != k;
            if (outside)
                (*outs)[(*n_out)++] = t;
        }
    }
    free(nodes);
    ir_uses_free(&u);
    return rc;
}
