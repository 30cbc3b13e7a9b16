/* tosac inspect PROGRAM --dot: what runs where, as Graphviz. Each delegate is a coloured
 * cluster labelled with its operator count, holding its TOSA operators; CPU nodes are grey
 * boxes outside; edges carry the dtype and shape of the value they move. Constants (weights,
 * biases, RESCALE parameters, CONST ops) are not drawn: they fold into the operator that uses
 * them, which says what it holds ("w 64x3x3x64"), so a 100-layer network stays a readable
 * column of layers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tosac/program.h"

static const char *const colours[] = {"#dbe9f6", "#e3f2d9", "#fbe5d6", "#ece2f4", "#fff2cc"};

static void q(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        if ((unsigned char)*s >= 32)
            fputc(*s, f);
    }
    fputc('"', f);
}

static void shape_str(char *buf, size_t len, int rank, const int64_t *shape)
{
    size_t n = 0;
    buf[0] = 0;
    for (int d = 0; d < rank && n + 24 < len; d++)
        n += (size_t)snprintf(buf + n, len - n, "%s%lld", d ? "x" : "", (long long)shape[d]);
}

static bool is_const_op(tosa_op op) { return op == TOSA_OP_CONST || op == TOSA_OP_CONST_SHAPE; }

/* The operator producing tensor t in block b (not a CONST), or -1. */
static int producer(const tosa_block *b, int t)
{
    for (int i = 0; i < b->n_ops; i++)
        for (int k = 0; k < b->ops[i].n_outputs; k++)
            if (b->ops[i].outputs[k] == t)
                return is_const_op(b->ops[i].op) ? -1 : i;
    return -1;
}

static bool is_const_tensor(const tosa_block *b, int t)
{
    if (b->tensors[t].data)
        return true;
    for (int i = 0; i < b->n_ops; i++)
        if (is_const_op(b->ops[i].op) && b->ops[i].n_outputs == 1 && b->ops[i].outputs[0] == t)
            return true;
    return false;
}

static void edge_label(FILE *f, tosac_dtype dt, int rank, const int64_t *shape)
{
    char sh[128];
    shape_str(sh, sizeof sh, rank, shape);
    fprintf(f, " [label=\"%s[%s]\"]", tosac_dtype_name(dt), sh);
}

/* Operators drawn inside the node of their producer: a RESCALE/CLAMP/CAST/TABLE/RESHAPE whose
 * first input only it reads (CONV2D -> RESCALE is one layer, one box). */
static bool folds_into_producer(const tosa_block *b, int op)
{
    tosa_op k = b->ops[op].op;
    if (k != TOSA_OP_RESCALE && k != TOSA_OP_CLAMP && k != TOSA_OP_CAST && k != TOSA_OP_TABLE &&
        k != TOSA_OP_RESHAPE)
        return false;
    int t = b->ops[op].n_inputs > 0 ? b->ops[op].inputs[0] : -1;
    if (t < 0 || producer(b, t) < 0)
        return false;
    int readers = 0;
    for (int i = 0; i < b->n_ops; i++)
        for (int j = 0; j < b->ops[i].n_inputs; j++)
            readers += b->ops[i].inputs[j] == t;
    for (int x = 0; x < b->n_outputs; x++)
        readers += b->outputs[x] == t;
    return readers == 1;
}

/* One delegate's cluster: its operators, the edges between them. Its block inputs are drawn
 * as the CPU values they are bound to (edges from the CPU side). */
static void delegate_cluster(FILE *f, const tosa_graph *g, int k, int n_node)
{
    const tosa_block *b = tosa_graph_main_block(g);
    int n = 0;
    for (int i = 0; b && i < b->n_ops; i++)
        n += !is_const_op(b->ops[i].op);
    int *head = b ? calloc((size_t)b->n_ops + 1, sizeof *head) : NULL;
    if (!head)
        return;
    /* head[i]: the operator whose box op i is drawn in (itself, or its producer's head) */
    for (int i = 0; i < b->n_ops; i++)
        head[i] = i;
    for (int pass = 0; pass < 2; pass++) /* file order may list a consumer first */
        for (int i = 0; i < b->n_ops; i++)
            if (folds_into_producer(b, i))
                head[i] = head[producer(b, b->ops[i].inputs[0])];
    fprintf(f, "  subgraph cluster_d%d {\n    label=\"delegate %d: %d TOSA operators\";\n"
               "    style=filled; color=\"#7a9cc6\"; fillcolor=\"%s\";\n",
            k, k, n, colours[k % 5]);
    for (int i = 0; b && i < b->n_ops; i++) {
        const tosa_operator *o = &b->ops[i];
        if (is_const_op(o->op) || head[i] != i)
            continue;
        fprintf(f, "    d%d_%d [shape=box, style=\"rounded,filled\", fillcolor=white, label=\"%s",
                k, i, tosa_op_name(o->op) ? tosa_op_name(o->op) : "?");
        for (int j = 0; j < b->n_ops; j++)
            if (j != i && head[j] == i)
                fprintf(f, " + %s", tosa_op_name(b->ops[j].op) ? tosa_op_name(b->ops[j].op) : "?");
        /* what it holds: its first constant operand with more than one element */
        for (int j = 0; j < o->n_inputs; j++) {
            const tosa_tensor *t = &b->tensors[o->inputs[j]];
            int64_t numel = 1;
            for (int d = 0; d < t->rank; d++)
                numel *= t->shape[d];
            if (is_const_tensor(b, o->inputs[j]) && numel > 1 && t->dtype != TOSAC_DT_SHAPE) {
                char sh[128];
                shape_str(sh, sizeof sh, t->rank, t->shape);
                fprintf(f, "\\n%s %s", j == 1 ? "w" : "const", sh);
                break;
            }
        }
        fprintf(f, "\"];\n");
    }
    fprintf(f, "  }\n");
    for (int i = 0; b && i < b->n_ops; i++) {
        const tosa_operator *o = &b->ops[i];
        if (is_const_op(o->op))
            continue;
        for (int j = 0; j < o->n_inputs; j++) {
            int t = o->inputs[j], p = producer(b, t);
            const tosa_tensor *tt = &b->tensors[t];
            if (p >= 0 && head[p] == head[i])
                continue; /* inside one box */
            if (p >= 0) {
                fprintf(f, "  d%d_%d -> d%d_%d", k, head[p], k, head[i]);
            } else {
                int in = -1;
                for (int x = 0; x < b->n_inputs; x++)
                    if (b->inputs[x] == t)
                        in = x;
                if (in < 0)
                    continue; /* a constant */
                fprintf(f, "  din%d_%d -> d%d_%d", n_node, in, k, head[i]);
            }
            edge_label(f, tt->dtype, tt->rank, tt->shape);
            fprintf(f, ";\n");
        }
    }
    for (int x = 0; b && x < b->n_outputs; x++) {
        int p = producer(b, b->outputs[x]);
        const tosa_tensor *tt = &b->tensors[b->outputs[x]];
        if (p >= 0) {
            fprintf(f, "  d%d_%d -> dout%d_%d", k, head[p], n_node, x);
            edge_label(f, tt->dtype, tt->rank, tt->shape);
            fprintf(f, ";\n");
        }
    }
    free(head);
}

/* The CPU graph: CPU nodes and the delegate nodes' bindings (block input x of delegate node n
 * is the point din<n>_<x>, output x the point dout<n>_<x>). */
void inspect_program_dot(FILE *f, const tosac_program *p)
{
    const ir_graph *g = tosac_program_cpu(p)->graph;
    fprintf(f, "digraph program {\n  rankdir=TB; ranksep=0.25; nodesep=0.3;\n"
               "  node [fontname=\"Helvetica\", fontsize=10, height=0.3, margin=\"0.08,0.02\"];\n"
               "  edge [fontname=\"Helvetica\", fontsize=8, color=\"#555555\"];\n");
    /* where each CPU value comes from: a node's output port name */
    char (*src)[40] = calloc((size_t)g->n_tensors + 1, sizeof *src);
    if (!src)
        return;
    for (int i = 0; i < g->n_inputs; i++) {
        const ir_tensor *t = &g->tensors[g->inputs[i]];
        fprintf(f, "  in%d [shape=oval, label=", i);
        q(f, t->name);
        fprintf(f, "];\n");
        snprintf(src[g->inputs[i]], sizeof src[0], "in%d", i);
    }
    for (int n = 0; n < g->n_nodes; n++) {
        const ir_node *nd = &g->nodes[n];
        bool del = strcmp(nd->op_type, TOSAC_DELEGATE_OP) == 0;
        int k = del ? (int)ir_node_attr_int(nd, "index", -1) : -1;
        if (del && k >= 0 && k < tosac_program_n_delegates(p)) {
            for (int x = 0; x < nd->n_inputs; x++)
                fprintf(f, "  din%d_%d [shape=point, width=0.05];\n", n, x);
            for (int x = 0; x < nd->n_outputs; x++) {
                fprintf(f, "  dout%d_%d [shape=point, width=0.05];\n", n, x);
                if (nd->outputs[x] >= 0)
                    snprintf(src[nd->outputs[x]], sizeof src[0], "dout%d_%d", n, x);
            }
            delegate_cluster(f, tosac_program_delegate(p, k), k, n);
            continue;
        }
        fprintf(f, "  n%d [shape=box, style=filled, fillcolor=\"#e0e0e0\", label=\"%s\\n(CPU)\"];\n",
                n, nd->op_type);
        for (int x = 0; x < nd->n_outputs; x++)
            if (nd->outputs[x] >= 0)
                snprintf(src[nd->outputs[x]], sizeof src[0], "n%d", n);
    }
    for (int n = 0; n < g->n_nodes; n++) {
        const ir_node *nd = &g->nodes[n];
        bool del = strcmp(nd->op_type, TOSAC_DELEGATE_OP) == 0;
        for (int x = 0; x < nd->n_inputs; x++) {
            int t = nd->inputs[x];
            if (t < 0 || !src[t][0])
                continue; /* an initializer: folded into the node */
            const ir_tensor *tt = &g->tensors[t];
            if (del)
                fprintf(f, "  %s -> din%d_%d", src[t], n, x);
            else
                fprintf(f, "  %s -> n%d", src[t], n);
            edge_label(f, tt->dtype, tt->rank < 0 ? 0 : tt->rank, tt->shape);
            fprintf(f, ";\n");
        }
    }
    for (int i = 0; i < g->n_outputs; i++) {
        const ir_tensor *t = &g->tensors[g->outputs[i]];
        fprintf(f, "  out%d [shape=oval, label=", i);
        q(f, t->name);
        fprintf(f, "];\n");
        if (src[g->outputs[i]][0]) {
            fprintf(f, "  %s -> out%d", src[g->outputs[i]], i);
            edge_label(f, t->dtype, t->rank < 0 ? 0 : t->rank, t->shape);
            fprintf(f, ";\n");
        }
    }
    fprintf(f, "}\n");
    free(src);
}
