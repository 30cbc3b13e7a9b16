/* tosac inspect MODEL.onnx [--json | --dot] [--input-shape NAME=D0,D1,...]:
 * inputs, outputs, operator counts, initializer summary and the node list with shapes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tosac/compile.h"
#include "tosac/program.h"
#include "tosac/onnx.h"

typedef struct op_count {
    const char *op;
    int n;
} op_count;

static void count_ops(const ir_graph *g, op_count *ops, int *n, int cap)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *nd = &g->nodes[i];
        int k = 0;
        while (k < *n && ops[k].op != nd->op_type)
            k++;
        if (k == *n && k < cap)
            ops[(*n)++] = (op_count){nd->op_type, 0};
        if (k < *n)
            ops[k].n++;
        const ir_graph *sub;
        for (int s = 0; (sub = ir_node_subgraph(nd, s)); s++)
            count_ops(sub, ops, n, cap);
    }
}

static int cmp_op(const void *a, const void *b)
{
    return strcmp(((const op_count *)a)->op, ((const op_count *)b)->op);
}

static const char *dtype_label(tosac_dtype dt)
{
    const char *np = tosac_dtype_numpy_name(dt);
    return np && dt != TOSAC_DT_I48 ? np : tosac_dtype_name(dt);
}

static void json_value(const ir_tensor *t)
{
    printf("{\"name\": ");
    cli_put_json_str(stdout, t->name);
    printf(", \"dtype\": ");
    cli_put_json_str(stdout, dtype_label(t->dtype));
    printf(", \"shape\": ");
    if (t->rank < 0) {
        printf("null}");
        return;
    }
    putchar('[');
    for (int d = 0; d < t->rank; d++) {
        if (d)
            printf(", ");
        if (t->shape[d] >= 0)
            printf("%lld", (long long)t->shape[d]);
        else if (t->dim_param[d])
            cli_put_json_str(stdout, t->dim_param[d]);
        else
            printf("null");
    }
    printf("]}");
}

static void json_names(const ir_graph *g, const int *ids, int n)
{
    putchar('[');
    for (int k = 0; k < n; k++) {
        if (k)
            printf(", ");
        if (ids[k] < 0)
            printf("null");
        else
            cli_put_json_str(stdout, g->tensors[ids[k]].name);
    }
    putchar(']');
}

static void print_json(const ir_model *m, const op_count *ops, int n_ops, int n_init,
                       size_t init_bytes)
{
    const ir_graph *g = m->graph;
    printf("{\n  \"ir_version\": %lld,\n  \"opsets\": {", (long long)m->ir_version);
    for (int i = 0; i < m->n_opsets; i++) {
        printf(i ? ", " : "");
        cli_put_json_str(stdout, m->opsets[i].domain[0] ? m->opsets[i].domain : "ai.onnx");
        printf(": %lld", (long long)m->opsets[i].version);
    }
    printf("},\n  \"inputs\": [");
    for (int i = 0; i < g->n_inputs; i++) {
        printf(i ? ", " : "");
        json_value(&g->tensors[g->inputs[i]]);
    }
    printf("],\n  \"outputs\": [");
    for (int i = 0; i < g->n_outputs; i++) {
        printf(i ? ", " : "");
        json_value(&g->tensors[g->outputs[i]]);
    }
    printf("],\n  \"num_nodes\": %d,\n  \"num_nodes_total\": %d,\n", g->n_nodes,
           ir_graph_count_nodes_deep(g));
    printf("  \"initializers\": {\"count\": %d, \"bytes\": %zu},\n  \"operators\": {", n_init,
           init_bytes);
    for (int i = 0; i < n_ops; i++) {
        printf(i ? ", " : "");
        cli_put_json_str(stdout, ops[i].op);
        printf(": %d", ops[i].n);
    }
    printf("},\n  \"nodes\": [");
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        printf(i ? ",\n    " : "\n    ");
        printf("{\"index\": %d, \"op\": ", i);
        cli_put_json_str(stdout, n->op_type);
        printf(", \"domain\": ");
        cli_put_json_str(stdout, n->domain);
        printf(", \"name\": ");
        cli_put_json_str(stdout, n->name);
        printf(", \"inputs\": ");
        json_names(g, n->inputs, n->n_inputs);
        printf(", \"outputs\": [");
        for (int k = 0; k < n->n_outputs; k++) {
            printf(k ? ", " : "");
            if (n->outputs[k] < 0)
                printf("null");
            else
                json_value(&g->tensors[n->outputs[k]]);
        }
        printf("]}");
    }
    printf("\n  ]\n}\n");
}

static void print_value(const ir_tensor *t)
{
    char buf[256];
    ir_tensor_type_str(t, buf, sizeof buf);
    /* "f32[1,3]" -> "float32[1,3]": the numpy name users see everywhere else */
    const char *br = strchr(buf, '[');
    printf("  %s: %s%s\n", t->name, dtype_label(t->dtype), br ? br : "");
}

static void print_text(const char *path, const ir_model *m, const op_count *ops, int n_ops,
                       int n_init, size_t init_bytes)
{
    const ir_graph *g = m->graph;
    printf("model: %s\nir_version: %lld\nopsets:", path, (long long)m->ir_version);
    for (int i = 0; i < m->n_opsets; i++)
        printf(" %s=%lld", m->opsets[i].domain[0] ? m->opsets[i].domain : "ai.onnx",
               (long long)m->opsets[i].version);
    if (m->producer_name)
        printf("\nproducer: %s %s", m->producer_name, m->producer_version ? m->producer_version : "");
    printf("\ninputs:\n");
    for (int i = 0; i < g->n_inputs; i++)
        print_value(&g->tensors[g->inputs[i]]);
    printf("outputs:\n");
    for (int i = 0; i < g->n_outputs; i++)
        print_value(&g->tensors[g->outputs[i]]);
    printf("initializers: %d (%zu bytes)\n", n_init, init_bytes);
    printf("operators: %d nodes (%d including subgraphs)\n", g->n_nodes,
           ir_graph_count_nodes_deep(g));
    for (int i = 0; i < n_ops; i++)
        printf("  %-24s %d\n", ops[i].op, ops[i].n);
    printf("nodes:\n");
    ir_graph_dump_text(g, stdout);
}

int inspect_onnx(int argc, char **argv)
{
    const char *path = NULL;
    int json = 0, dot = 0, n_shapes = 0;
    const char *shapes[32], *spec = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (strcmp(argv[i], "--dot") == 0)
            dot = 1;
        else if (strcmp(argv[i], "--input-shape") == 0 && i + 1 < argc && n_shapes < 32)
            shapes[n_shapes++] = argv[++i];
        else if (strcmp(argv[i], "--spec") == 0 && i + 1 < argc)
            spec = argv[++i];
        else if (argv[i][0] == '-')
            return cli_error(TOSAC_ERR_INPUT, "inspect: unknown or incomplete option '%s'", argv[i]);
        else if (!path)
            path = argv[i];
        else
            return cli_error(TOSAC_ERR_INPUT, "inspect: more than one file given ('%s')", argv[i]);
    }
    if (json && dot)
        return cli_error(TOSAC_ERR_INPUT, "inspect: --json and --dot exclude each other");
    if (spec && !dot)
        return cli_error(TOSAC_ERR_INPUT, "inspect: --spec goes with --dot (what runs where)");
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *m = NULL;
    if (onnx_import_file(path, &m, &err))
        return cli_report(&err);
    for (int i = 0; i < n_shapes; i++) {
        char name[256];
        int rank;
        int64_t dims[TOSAC_MAX_RANK];
        if (ir_parse_input_shape(shapes[i], name, sizeof name, &rank, dims, &err) ||
            ir_model_set_input_shape(m, name, rank, dims, &err)) {
            ir_model_free(m);
            return cli_report(&err);
        }
    }
    /* Shapes are shown when they can be inferred; with --input-shape a failure is an error. */
    tosac_error ierr;
    tosac_error_clear(&ierr);
    if (ir_model_infer_shapes(m, &ierr) && n_shapes > 0) {
        ir_model_free(m);
        return cli_report(&ierr);
    }
    if (dot && spec) { /* what runs where: compiled in memory, drawn like a program */
        tosac_compile_options o;
        memset(&o, 0, sizeof o);
        o.spec = spec;
        o.input_shapes = shapes;
        o.n_input_shapes = n_shapes;
        tosac_program *p = NULL;
        char *rep = NULL;
        tosac_code rc = tosac_compile_model(m, &o, &p, &rep, &err); /* consumes m */
        free(rep);
        if (rc)
            return cli_report(&err);
        inspect_program_dot(stdout, p);
        tosac_program_free(p);
        return 0;
    }
    if (dot) {
        ir_graph_dump_dot(m->graph, stdout);
        ir_model_free(m);
        return 0;
    }
    op_count ops[512];
    int n_ops = 0, n_init = 0;
    size_t init_bytes = 0;
    count_ops(m->graph, ops, &n_ops, 512);
    qsort(ops, (size_t)n_ops, sizeof ops[0], cmp_op);
    for (int i = 0; i < m->graph->n_tensors; i++)
        if (m->graph->tensors[i].data) {
            n_init++;
            init_bytes += m->graph->tensors[i].nbytes;
        }
    if (json)
        print_json(m, ops, n_ops, n_init, init_bytes);
    else
        print_text(path, m, ops, n_ops, n_init, init_bytes);
    ir_model_free(m);
    return 0;
}
