/* Human-readable text dump and Graphviz dump of a graph. */
#include "ir_internal.h"

#include <stdlib.h>
#include <string.h>

const char *ir_tensor_type_str(const ir_tensor *t, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "%s[", tosac_dtype_name(t->dtype));
    if (t->rank < 0 && n < len)
        n += (size_t)snprintf(buf + n, len - n, "*");
    for (int d = 0; d < t->rank && n < len; d++) {
        const char *sep = d ? "," : "";
        if (t->shape[d] >= 0)
            n += (size_t)snprintf(buf + n, len - n, "%s%lld", sep, (long long)t->shape[d]);
        else
            n += (size_t)snprintf(buf + n, len - n, "%s%s", sep,
                                  t->dim_param[d] ? t->dim_param[d] : "?");
    }
    if (n < len)
        snprintf(buf + n, len - n, "]");
    return buf;
}

static void indent(FILE *f, int depth)
{
    for (int i = 0; i < depth; i++)
        fputs("  ", f);
}

static void dump_quant(const ir_quant *q, FILE *f)
{
    if (!q)
        return;
    if (q->axis < 0)
        fprintf(f, " q(scale=%.9g zp=%lld %s)", (double)q->scale[0], (long long)q->zero_point[0],
                tosac_dtype_name(q->zp_dtype));
    else
        fprintf(f, " q(axis=%d n=%d scale0=%.9g zp0=%lld %s)", q->axis, q->n,
                (double)q->scale[0], (long long)q->zero_point[0], tosac_dtype_name(q->zp_dtype));
}

static void dump_graph(const ir_graph *g, FILE *f, int depth);

static void dump_attr(const ir_attr *a, FILE *f, int depth)
{
    fprintf(f, " %s=", a->name);
    switch (a->kind) {
    case IR_ATTR_FLOAT: fprintf(f, "%.9g", (double)a->f); break;
    case IR_ATTR_INT: fprintf(f, "%lld", (long long)a->i); break;
    case IR_ATTR_STRING: fprintf(f, "\"%s\"", a->s ? a->s : ""); break;
    case IR_ATTR_TENSOR: {
        char buf[64];
        fprintf(f, "tensor %s%s", tosac_dtype_name(a->t.dtype),
                tosac_shape_str(a->t.rank, a->t.shape, buf, sizeof buf));
        break;
    }
    case IR_ATTR_FLOATS:
    case IR_ATTR_INTS:
    case IR_ATTR_STRINGS:
        fputc('[', f);
        for (int i = 0; i < a->n && i < 16; i++) {
            if (i)
                fputc(',', f);
            if (a->kind == IR_ATTR_FLOATS)
                fprintf(f, "%.9g", (double)a->floats[i]);
            else if (a->kind == IR_ATTR_INTS)
                fprintf(f, "%lld", (long long)a->ints[i]);
            else
                fprintf(f, "\"%s\"", a->strings[i]);
        }
        fprintf(f, a->n > 16 ? ",...]" : "]");
        break;
    case IR_ATTR_TENSORS: fprintf(f, "%d tensors", a->n); break;
    case IR_ATTR_GRAPH:
        fprintf(f, "graph {\n");
        dump_graph(a->g, f, depth + 2);
        indent(f, depth + 1);
        fputc('}', f);
        break;
    case IR_ATTR_GRAPHS: fprintf(f, "%d graphs", a->n); break;
    default: fprintf(f, "?"); break;
    }
}

static void dump_graph(const ir_graph *g, FILE *f, int depth)
{
    char buf[256];
    indent(f, depth);
    fprintf(f, "graph %s: %d nodes, %d tensors\n", g->name, g->n_nodes, g->n_tensors);
    for (int i = 0; i < g->n_inputs; i++) {
        const ir_tensor *t = &g->tensors[g->inputs[i]];
        indent(f, depth);
        fprintf(f, "  input %s: %s\n", t->name, ir_tensor_type_str(t, buf, sizeof buf));
    }
    for (int i = 0; i < g->n_outputs; i++) {
        const ir_tensor *t = &g->tensors[g->outputs[i]];
        indent(f, depth);
        fprintf(f, "  output %s: %s\n", t->name, ir_tensor_type_str(t, buf, sizeof buf));
    }
    int n_const = 0, n_capt = 0;
    size_t const_bytes = 0;
    for (int i = 0; i < g->n_tensors; i++) {
        n_const += g->tensors[i].data != NULL;
        const_bytes += g->tensors[i].nbytes;
        n_capt += g->tensors[i].outer_id >= 0;
    }
    indent(f, depth);
    fprintf(f, "  constants: %d (%zu bytes)", n_const, const_bytes);
    if (n_capt)
        fprintf(f, ", outer-scope captures: %d", n_capt);
    fputc('\n', f);
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        indent(f, depth);
        fprintf(f, "  [%d] %s%s%s%s%s%s:", i, n->domain[0] ? n->domain : "",
                n->domain[0] ? "." : "", n->op_type, n->name[0] ? " '" : "", n->name,
                n->name[0] ? "'" : "");
        for (int k = 0; k < n->n_inputs; k++) {
            int t = n->inputs[k];
            fprintf(f, "%s %s", k ? "," : "", t >= 0 ? g->tensors[t].name : "<none>");
        }
        fprintf(f, " ->");
        for (int k = 0; k < n->n_outputs; k++) {
            int t = n->outputs[k];
            if (t < 0) {
                fprintf(f, "%s <none>", k ? "," : "");
                continue;
            }
            fprintf(f, "%s %s %s", k ? "," : "", g->tensors[t].name,
                    ir_tensor_type_str(&g->tensors[t], buf, sizeof buf));
            dump_quant(g->tensors[t].quant, f);
        }
        for (int a = 0; a < n->n_attrs; a++)
            dump_attr(&n->attrs[a], f, depth);
        fputc('\n', f);
    }
}

void ir_graph_dump_text(const ir_graph *g, FILE *f) { dump_graph(g, f, 0); }

void ir_model_dump_text(const ir_model *m, FILE *f)
{
    fprintf(f, "model: ir_version %lld", (long long)m->ir_version);
    if (m->producer_name)
        fprintf(f, ", producer %s %s", m->producer_name,
                m->producer_version ? m->producer_version : "");
    fprintf(f, "\nopsets:");
    for (int i = 0; i < m->n_opsets; i++)
        fprintf(f, " %s=%lld", m->opsets[i].domain[0] ? m->opsets[i].domain : "ai.onnx",
                (long long)m->opsets[i].version);
    fputc('\n', f);
    ir_graph_dump_text(m->graph, f);
}

/* Graphviz IDs and labels: escape quotes and backslashes. */
static void dot_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void ir_graph_dump_dot(const ir_graph *g, FILE *f)
{
    char buf[256];
    fprintf(f, "digraph ");
    dot_str(f, g->name);
    fprintf(f, " {\n  rankdir=TB;\n  node [shape=box];\n");
    for (int i = 0; i < g->n_inputs; i++) {
        fprintf(f, "  in%d [shape=ellipse, label=", i);
        dot_str(f, g->tensors[g->inputs[i]].name);
        fprintf(f, "];\n");
    }
    for (int i = 0; i < g->n_outputs; i++) {
        fprintf(f, "  out%d [shape=ellipse, label=", i);
        dot_str(f, g->tensors[g->outputs[i]].name);
        fprintf(f, "];\n");
    }
    int *producer = calloc((size_t)(g->n_tensors ? g->n_tensors : 1), sizeof *producer);
    if (!producer)
        return;
    for (int t = 0; t < g->n_tensors; t++)
        producer[t] = -1;
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (n->dead)
            continue;
        fprintf(f, "  n%d [label=", i);
        fputc('"', f);
        fputs(n->op_type, f);
        fputs("\\n", f);
        for (const char *s = n->name; *s; s++) {
            if (*s == '"' || *s == '\\')
                fputc('\\', f);
            fputc(*s, f);
        }
        fprintf(f, "\"];\n");
        for (int k = 0; k < n->n_outputs; k++)
            if (n->outputs[k] >= 0)
                producer[n->outputs[k]] = i;
    }
    for (int i = 0; i < g->n_inputs; i++)
        producer[g->inputs[i]] = -2 - i;
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (n->dead)
            continue;
        for (int k = 0; k < n->n_inputs; k++) {
            int t = n->inputs[k];
            if (t < 0 || producer[t] == -1)
                continue; /* constants and omitted inputs: no edge, keeps the picture readable */
            if (producer[t] >= 0)
                fprintf(f, "  n%d -> n%d [label=", producer[t], i);
            else
                fprintf(f, "  in%d -> n%d [label=", -2 - producer[t], i);
            dot_str(f, ir_tensor_type_str(&g->tensors[t], buf, sizeof buf));
            fprintf(f, "];\n");
        }
    }
    for (int i = 0; i < g->n_outputs; i++) {
        int t = g->outputs[i];
        if (producer[t] >= 0)
            fprintf(f, "  n%d -> out%d [label=", producer[t], i);
        else if (producer[t] <= -2)
            fprintf(f, "  in%d -> out%d [label=", -2 - producer[t], i);
        else
            continue;
        dot_str(f, ir_tensor_type_str(&g->tensors[t], buf, sizeof buf));
        fprintf(f, "];\n");
    }
    free(producer);
    fprintf(f, "}\n");
}
