/* tosac inspect PROGRAM [--json]: the compile report (every model node: the delegate it went
 * to, "cpu" with the reason, or folded by a pass), each delegate (operator counts, quantized
 * inputs and outputs) and the CPU graph's operators. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tosac/program.h"
#include "util/json.h"

static const char usage[] = "usage: tosac inspect PROGRAM [--json]\n";

typedef struct op_count {
    const char *name;
    int n;
} op_count;

/* Operators of a delegate's main block by name, CONST/CONST_SHAPE left out. */
static int count_ops(const tosa_graph *g, op_count *out, int cap)
{
    const tosa_block *b = tosa_graph_main_block(g);
    int n = 0;
    for (int i = 0; b && i < b->n_ops; i++) {
        tosa_op op = b->ops[i].op;
        if (op == TOSA_OP_CONST || op == TOSA_OP_CONST_SHAPE)
            continue;
        const char *name = tosa_op_name(op);
        name = name ? name : "?";
        int k = 0;
        while (k < n && strcmp(out[k].name, name) != 0)
            k++;
        if (k == n && n < cap)
            out[n++] = (op_count){name, 0};
        if (k < n)
            out[k].n++;
    }
    return n;
}

/* A parsed JSON value written back (metadata entries keep their exact content). */
static void put_value(tosac_json_writer *w, const tosac_json *v)
{
    switch (v->type) {
    case TOSAC_JSON_NULL: tosac_json_write_null(w); return;
    case TOSAC_JSON_BOOL: tosac_json_write_bool(w, v->boolean); return;
    case TOSAC_JSON_NUMBER:
        if (v->is_int)
            tosac_json_write_int(w, v->integer);
        else
            tosac_json_write_double(w, v->number);
        return;
    case TOSAC_JSON_STRING: tosac_json_write_string(w, v->str); return;
    case TOSAC_JSON_ARRAY:
        tosac_json_begin_array(w);
        for (int i = 0; i < v->n; i++)
            put_value(w, &v->items[i]);
        tosac_json_end_array(w);
        return;
    case TOSAC_JSON_OBJECT:
        tosac_json_begin_object(w);
        for (int i = 0; i < v->n; i++) {
            tosac_json_key(w, v->keys[i]);
            put_value(w, &v->items[i]);
        }
        tosac_json_end_object(w);
        return;
    }
}

static const char *str_or(const tosac_json *v, const char *dflt)
{
    const char *s = tosac_json_string(v);
    return s ? s : dflt;
}

/* Text: one line per tensor of a delegate's metadata. */
static void print_io(const tosac_json *list, const char *label)
{
    for (int i = 0; i < tosac_json_count(list); i++) {
        const tosac_json *t = tosac_json_at(list, i);
        printf("  %s %s %s [", label, str_or(tosac_json_get(t, "name"), "?"),
               str_or(tosac_json_get(t, "dtype"), "?"));
        const tosac_json *shape = tosac_json_get(t, "shape");
        for (int d = 0; d < tosac_json_count(shape); d++) {
            int64_t v = 0;
            tosac_json_int(tosac_json_at(shape, d), &v);
            printf("%s%lld", d ? "," : "", (long long)v);
        }
        printf("]");
        double s;
        int64_t z;
        if (tosac_json_double(tosac_json_get(t, "scale"), &s))
            printf(" scale %.9g", s);
        else if (tosac_json_count(tosac_json_get(t, "scale")) > 0)
            printf(" scale per axis (%d)", tosac_json_count(tosac_json_get(t, "scale")));
        if (tosac_json_int(tosac_json_get(t, "zero_point"), &z))
            printf(" zero_point %lld", (long long)z);
        printf("\n");
    }
}

static void print_text(const char *path, const tosac_program *p, const tosac_json *rep,
                       tosac_json *const *meta)
{
    const ir_graph *g = p->cpu->graph;
    printf("program %s\n", path);
    if (rep)
        printf("spec %s\n", str_or(tosac_json_get(rep, "spec"), "?"));
    printf("%d delegate%s, CPU graph of %d node%s\n", p->n_delegates,
           p->n_delegates == 1 ? "" : "s", g->n_nodes, g->n_nodes == 1 ? "" : "s");
    const tosac_json *nodes = tosac_json_get(rep, "nodes");
    if (!nodes) {
        printf("(no compile report in this program)\n");
    } else {
        printf("nodes (%d):\n", tosac_json_count(nodes));
        for (int i = 0; i < tosac_json_count(nodes); i++) {
            const tosac_json *nd = tosac_json_at(nodes, i);
            const char *pl = str_or(tosac_json_get(nd, "placement"), "?");
            printf("  %-28s %-20s ", str_or(tosac_json_get(nd, "name"), "?"),
                   str_or(tosac_json_get(nd, "op_type"), "?"));
            int64_t k;
            if (strcmp(pl, "delegate") == 0 && tosac_json_int(tosac_json_get(nd, "delegate"), &k))
                printf("delegate %lld\n", (long long)k);
            else if (strcmp(pl, "cpu") == 0)
                printf("cpu: %s\n", str_or(tosac_json_get(nd, "reason"), ""));
            else
                printf("%s\n", pl);
        }
    }
    for (int k = 0; k < p->n_delegates; k++) {
        op_count ops[96];
        int n = count_ops(p->delegates[k], ops, 96);
        printf("delegate %d:", k);
        for (int i = 0; i < n; i++)
            printf("%s %s %d", i ? "," : "", ops[i].name, ops[i].n);
        printf("\n");
        print_io(tosac_json_get(meta[k], "inputs"), "input ");
        print_io(tosac_json_get(meta[k], "outputs"), "output");
    }
    printf("cpu graph:");
    for (int i = 0; i < g->n_nodes; i++)
        printf(" %s", g->nodes[i].op_type);
    printf("\n");
}

static char *build_json(const char *path, const tosac_program *p, const tosac_json *rep,
                        tosac_json *const *meta)
{
    tosac_json_writer w;
    tosac_json_writer_init(&w, true);
    tosac_json_begin_object(&w);
    tosac_json_key(&w, "program");
    tosac_json_write_string(&w, path);
    if (rep && tosac_json_get(rep, "spec")) {
        tosac_json_key(&w, "spec");
        put_value(&w, tosac_json_get(rep, "spec"));
    }
    if (rep && tosac_json_get(rep, "nodes")) {
        tosac_json_key(&w, "nodes");
        put_value(&w, tosac_json_get(rep, "nodes"));
    }
    tosac_json_key(&w, "delegates");
    tosac_json_begin_array(&w);
    for (int k = 0; k < p->n_delegates; k++) {
        tosac_json_begin_object(&w);
        tosac_json_key(&w, "index");
        tosac_json_write_int(&w, k);
        tosac_json_key(&w, "operators");
        tosac_json_begin_object(&w);
        op_count ops[96];
        int n = count_ops(p->delegates[k], ops, 96);
        for (int i = 0; i < n; i++) {
            tosac_json_key(&w, ops[i].name);
            tosac_json_write_int(&w, ops[i].n);
        }
        tosac_json_end_object(&w);
        for (int side = 0; side < 2; side++) {
            const char *key = side ? "outputs" : "inputs";
            tosac_json_key(&w, key);
            const tosac_json *v = tosac_json_get(meta[k], key);
            if (v)
                put_value(&w, v);
            else
                tosac_json_write_null(&w);
        }
        tosac_json_end_object(&w);
    }
    tosac_json_end_array(&w);
    tosac_json_key(&w, "cpu_nodes");
    tosac_json_begin_array(&w);
    const ir_graph *g = p->cpu->graph;
    for (int i = 0; i < g->n_nodes; i++) {
        tosac_json_begin_object(&w);
        tosac_json_key(&w, "name");
        tosac_json_write_string(&w, g->nodes[i].name ? g->nodes[i].name : "");
        tosac_json_key(&w, "op_type");
        tosac_json_write_string(&w, g->nodes[i].op_type);
        tosac_json_end_object(&w);
    }
    tosac_json_end_array(&w);
    tosac_json_end_object(&w);
    size_t len;
    return tosac_json_writer_take(&w, &len);
}

int inspect_program(int argc, char **argv)
{
    const char *path = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = true;
        else if (argv[i][0] == '-')
            return cli_error(TOSAC_ERR_INPUT, "inspect: unknown option '%s'", argv[i]);
        else if (path)
            return cli_error(TOSAC_ERR_INPUT, "inspect: more than one file given");
        else
            path = argv[i];
    }
    if (!path) {
        fputs(usage, stderr);
        return 2;
    }
    tosac_error err;
    tosac_error_clear(&err);
    tosac_program *p = NULL;
    tosac_json *rep = NULL, **meta = NULL;
    tosac_code rc = tosac_program_read_file(path, &p, &err);
    if (!rc && p->report)
        rc = tosac_json_parse(p->report, strlen(p->report), &rep, &err);
    if (!rc && !(meta = calloc((size_t)p->n_delegates + 1, sizeof *meta)))
        rc = tosac_fail(&err, TOSAC_ERR_INTERNAL, "out of memory");
    for (int k = 0; !rc && k < p->n_delegates; k++)
        if (tosac_json_parse(p->meta[k], strlen(p->meta[k]), &meta[k], &err))
            rc = tosac_fail(&err, TOSAC_ERR_INPUT, "program: metadata of delegate %d is not "
                            "JSON", k);
    if (!rc && json) {
        char *text = build_json(path, p, rep, meta);
        if (!text)
            rc = tosac_fail(&err, TOSAC_ERR_INTERNAL, "out of memory writing JSON");
        else
            printf("%s\n", text);
        free(text);
    } else if (!rc) {
        print_text(path, p, rep, meta);
    }
    for (int k = 0; meta && k < p->n_delegates; k++)
        tosac_json_free(meta[k]);
    free(meta);
    tosac_json_free(rep);
    tosac_program_free(p);
    return rc ? cli_report(&err) : 0;
}
