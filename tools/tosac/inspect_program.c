/* tosac inspect PROGRAM [--json]: the compile report (every model node: the delegate it went
 * to, "cpu" with the reason, or folded by a pass), the file's sections, the signature, each
 * delegate (operator counts, TOSA version, bytes, quantized inputs and outputs), the CPU
 * graphs' operators, the constants and the memory plan (read from the verified v2 view). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "runtime/rt_program.h"
#include "tosac/compile.h"
#include "tosac/program.h"
#include "tosac/runtime.h"
#include "util/fileio.h"
#include "util/json.h"

static const char usage[] =
    "usage: tosac inspect PROGRAM [--json | --dot]\n"
    "--dot draws what runs where (Graphviz): each delegate a coloured cluster of its TOSA\n"
    "operators, CPU nodes apart, edges with dtype and shape, constants folded into their\n"
    "operator, e.g.  tosac inspect model.prog --dot | dot -Tsvg -o model.svg\n";

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

/* "cpu: <category>: <reason>" (the category once when the reason already starts with it),
 * "delegate K", or the placement. */
static void print_placement(const tosac_json *nd)
{
    const char *pl = str_or(tosac_json_get(nd, "placement"), "?");
    int64_t k;
    if (strcmp(pl, "delegate") == 0 && tosac_json_int(tosac_json_get(nd, "delegate"), &k)) {
        printf("delegate %lld", (long long)k);
    } else if (strcmp(pl, "cpu") == 0) {
        const char *cat = str_or(tosac_json_get(nd, "category"), "");
        const char *why = str_or(tosac_json_get(nd, "reason"), "");
        if (cat[0] && strncmp(why, cat, strlen(cat)) != 0)
            printf("cpu: %s: %s", cat, why);
        else
            printf("cpu: %s", why);
    } else {
        printf("%s", pl);
    }
}

static const char *section_name(uint32_t kind)
{
    static const char *const names[] = {"?",        "STRINGS", "SIGNATURE", "CPU",
                                        "DELEGATE", "CONSTANTS", "PLAN",    "REPORT"};
    return kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

static uint64_t constant_bytes(const rt_program *v)
{
    uint64_t n = 0;
    for (uint32_t c = 0; c < v->n_constants; c++)
        n += rt_constant(v, c)->nbytes;
    return n;
}

/* Operators of every CPU graph (bodies included) by op type, in first-seen order. */
static int count_cpu_ops(const rt_program *v, op_count *out, int cap)
{
    int n = 0;
    for (uint32_t i = 0; i < v->n_nodes; i++) {
        const char *name = rt_str(v, v->nodes[i].op_type);
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

static void version_str(const tosa_graph *g, char *buf, size_t len)
{
    snprintf(buf, len, "%d.%d.%d%s", (int)g->ver_major, (int)g->ver_minor, (int)g->ver_patch,
             g->ver_draft ? " draft" : "");
}

static void print_sig(const rt_program *v, const rt_sig_rec *r, const char *label)
{
    printf("  %s %s %s [", label, rt_str(v, r->name), tosac_dtype_name((tosac_dtype)r->dtype));
    for (int d = 0; d < r->rank; d++)
        printf("%s%lld", d ? "," : "", (long long)r->shape[d]);
    printf("]");
    if (r->quant >= 0) {
        const rt_quant_rec *q = &v->quants[r->quant];
        if (q->axis < 0)
            printf(" scale %.9g zero_point %lld", rt_quant_scales(v, q)[0],
                   (long long)rt_quant_zps(v, q)[0]);
        else
            printf(" scale per axis %d (%u)", q->axis, q->n);
    }
    printf("\n");
}

static void print_layout(const rt_program *v)
{
    printf("format v%u, %zu bytes:", RT_PROGRAM_VERSION, v->len);
    for (uint32_t i = 0; i < v->n_sections; i++)
        printf("%s %s %llu", i ? "," : "", section_name(v->sections[i].kind),
               (unsigned long long)v->sections[i].size);
    printf("\nsignature:\n");
    for (uint32_t i = 0; i < v->n_inputs; i++)
        print_sig(v, &v->inputs[i], "input ");
    for (uint32_t i = 0; i < v->n_outputs; i++)
        print_sig(v, &v->outputs[i], "output");
}

/* What tosac_rt_init needs: the plan's region, the runtime's state and dynamic region (0 when
 * the program does not say). */
static size_t runtime_arena(const rt_program *v)
{
    size_t n = 0;
    tosac_error e;
    tosac_error_clear(&e);
    return tosac_rt_arena_size(v->base, v->len, &n, &e) ? 0 : n;
}

static void print_tail(const rt_program *v)
{
    op_count ops[256];
    int n = count_cpu_ops(v, ops, 256);
    printf("cpu operators (%u graph%s):", v->n_graphs, v->n_graphs == 1 ? "" : "s");
    for (int i = 0; i < n; i++)
        printf("%s %s %d", i ? "," : "", ops[i].name, ops[i].n);
    printf("\nconstants: %u (%llu bytes)\n", v->n_constants,
           (unsigned long long)constant_bytes(v));
    if (rt_plan_present(v))
        printf("memory: arena %llu bytes, lower bound %llu bytes; the runtime's whole arena "
               "%zu bytes\n", (unsigned long long)v->plan->arena_bytes,
               (unsigned long long)v->plan->lower_bound_bytes, runtime_arena(v));
    else
        printf("memory: no plan in this program\n");
}

static void json_sig(tosac_json_writer *w, const rt_program *v, const rt_sig_rec *r)
{
    tosac_json_begin_object(w);
    tosac_json_key(w, "name");
    tosac_json_write_string(w, rt_str(v, r->name));
    tosac_json_key(w, "dtype");
    tosac_json_write_string(w, tosac_dtype_name((tosac_dtype)r->dtype));
    tosac_json_key(w, "shape");
    tosac_json_begin_array(w);
    for (int d = 0; d < r->rank; d++)
        tosac_json_write_int(w, r->shape[d]);
    tosac_json_end_array(w);
    tosac_json_key(w, "cpu_tensor");
    tosac_json_write_int(w, r->cpu_tensor);
    if (r->quant >= 0) {
        const rt_quant_rec *q = &v->quants[r->quant];
        tosac_json_key(w, "axis");
        tosac_json_write_int(w, q->axis);
        tosac_json_key(w, "scale");
        tosac_json_begin_array(w);
        for (uint32_t i = 0; i < q->n; i++)
            tosac_json_write_double(w, rt_quant_scales(v, q)[i]);
        tosac_json_end_array(w);
        tosac_json_key(w, "zero_point");
        tosac_json_begin_array(w);
        for (uint32_t i = 0; i < q->n; i++)
            tosac_json_write_int(w, rt_quant_zps(v, q)[i]);
        tosac_json_end_array(w);
    }
    tosac_json_end_object(w);
}

static void json_key_int(tosac_json_writer *w, const char *key, int64_t v)
{
    tosac_json_key(w, key);
    tosac_json_write_int(w, v);
}

static void json_layout(tosac_json_writer *w, const rt_program *v)
{
    json_key_int(w, "format_version", RT_PROGRAM_VERSION);
    json_key_int(w, "file_bytes", (int64_t)v->len);
    tosac_json_key(w, "sections");
    tosac_json_begin_array(w);
    for (uint32_t i = 0; i < v->n_sections; i++) {
        tosac_json_begin_object(w);
        tosac_json_key(w, "kind");
        tosac_json_write_string(w, section_name(v->sections[i].kind));
        json_key_int(w, "offset", (int64_t)v->sections[i].offset);
        json_key_int(w, "bytes", (int64_t)v->sections[i].size);
        tosac_json_end_object(w);
    }
    tosac_json_end_array(w);
    tosac_json_key(w, "signature");
    tosac_json_begin_object(w);
    tosac_json_key(w, "inputs");
    tosac_json_begin_array(w);
    for (uint32_t i = 0; i < v->n_inputs; i++)
        json_sig(w, v, &v->inputs[i]);
    tosac_json_end_array(w);
    tosac_json_key(w, "outputs");
    tosac_json_begin_array(w);
    for (uint32_t i = 0; i < v->n_outputs; i++)
        json_sig(w, v, &v->outputs[i]);
    tosac_json_end_array(w);
    tosac_json_end_object(w);
}

static void json_tail(tosac_json_writer *w, const rt_program *v)
{
    tosac_json_key(w, "cpu");
    tosac_json_begin_object(w);
    json_key_int(w, "graphs", v->n_graphs);
    json_key_int(w, "nodes", v->n_nodes);
    tosac_json_key(w, "operators");
    tosac_json_begin_object(w);
    op_count ops[256];
    int n = count_cpu_ops(v, ops, 256);
    for (int i = 0; i < n; i++)
        json_key_int(w, ops[i].name, ops[i].n);
    tosac_json_end_object(w);
    tosac_json_end_object(w);
    tosac_json_key(w, "constants");
    tosac_json_begin_object(w);
    json_key_int(w, "count", v->n_constants);
    json_key_int(w, "bytes", (int64_t)constant_bytes(v));
    tosac_json_end_object(w);
    tosac_json_key(w, "memory");
    tosac_json_begin_object(w);
    tosac_json_key(w, "planned");
    tosac_json_write_bool(w, rt_plan_present(v));
    json_key_int(w, "arena_bytes", (int64_t)v->plan->arena_bytes);
    json_key_int(w, "arena_lower_bound_bytes", (int64_t)v->plan->lower_bound_bytes);
    json_key_int(w, "runtime_arena_bytes", (int64_t)runtime_arena(v));
    tosac_json_end_object(w);
}

static void print_text(const char *path, const tosac_program *p, const rt_program *v,
                       const tosac_json *rep, tosac_json *const *meta)
{
    const ir_graph *g = tosac_program_cpu(p)->graph;
    printf("program %s\n", path);
    print_layout(v);
    if (rep)
        printf("spec %s\n", str_or(tosac_json_get(rep, "spec"), "?"));
    printf("%d delegate%s, CPU graph of %d node%s\n", tosac_program_n_delegates(p),
           tosac_program_n_delegates(p) == 1 ? "" : "s", g->n_nodes, g->n_nodes == 1 ? "" : "s");
    const tosac_json *nodes = tosac_json_get(rep, "nodes");
    if (!nodes) {
        printf("(no compile report in this program)\n");
    } else {
        printf("nodes (%d):\n", tosac_json_count(nodes));
        for (int i = 0; i < tosac_json_count(nodes); i++) {
            const tosac_json *nd = tosac_json_at(nodes, i);
            printf("  %-28s %-20s ", str_or(tosac_json_get(nd, "name"), "?"),
                   str_or(tosac_json_get(nd, "op_type"), "?"));
            print_placement(nd);
            printf("\n");
            /* what the passes made of it (Div -> Reciprocal + Mul), each placed */
            const tosac_json *parts = tosac_json_get(nd, "parts");
            for (int k = 0; k < tosac_json_count(parts); k++) {
                const tosac_json *pt = tosac_json_at(parts, k);
                printf("    as %-20s ", str_or(tosac_json_get(pt, "op_type"), "?"));
                print_placement(pt);
                printf("\n");
            }
        }
    }
    for (int k = 0; k < tosac_program_n_delegates(p); k++) {
        op_count ops[96];
        int n = count_ops(tosac_program_delegate(p, k), ops, 96);
        printf("delegate %d:", k);
        for (int i = 0; i < n; i++)
            printf("%s %s %d", i ? "," : "", ops[i].name, ops[i].n);
        char ver[32];
        version_str(tosac_program_delegate(p, k), ver, sizeof ver);
        printf("\n  tosa %s, %zu bytes\n", ver, rt_program_delegate(v, (uint32_t)k).tosa_size);
        print_io(tosac_json_get(meta[k], "inputs"), "input ");
        print_io(tosac_json_get(meta[k], "outputs"), "output");
    }
    printf("cpu graph:");
    for (int i = 0; i < g->n_nodes; i++)
        printf(" %s", g->nodes[i].op_type);
    printf("\n");
    print_tail(v);
}

static char *build_json(const char *path, const tosac_program *p, const rt_program *v,
                        const tosac_json *rep, tosac_json *const *meta)
{
    tosac_json_writer w;
    tosac_json_writer_init(&w, true);
    tosac_json_begin_object(&w);
    tosac_json_key(&w, "schema_version"); /* docs/REPORT.md: shared with compile --report */
    tosac_json_write_int(&w, TOSAC_REPORT_SCHEMA_VERSION);
    tosac_json_key(&w, "program");
    tosac_json_write_string(&w, path);
    json_layout(&w, v);
    /* the report's own fields, with their meaning (n_delegates: top-level delegates) */
    static const char *const shared[] = {"spec", "n_delegates", "body_delegates"};
    for (size_t i = 0; rep && i < sizeof shared / sizeof shared[0]; i++)
        if (tosac_json_get(rep, shared[i])) {
            tosac_json_key(&w, shared[i]);
            put_value(&w, tosac_json_get(rep, shared[i]));
        }
    if (rep && tosac_json_get(rep, "nodes")) {
        tosac_json_key(&w, "nodes");
        put_value(&w, tosac_json_get(rep, "nodes"));
    }
    tosac_json_key(&w, "delegates");
    tosac_json_begin_array(&w);
    for (int k = 0; k < tosac_program_n_delegates(p); k++) {
        tosac_json_begin_object(&w);
        tosac_json_key(&w, "index");
        tosac_json_write_int(&w, k);
        tosac_json_key(&w, "operators");
        tosac_json_begin_object(&w);
        op_count ops[96];
        int n = count_ops(tosac_program_delegate(p, k), ops, 96);
        for (int i = 0; i < n; i++) {
            tosac_json_key(&w, ops[i].name);
            tosac_json_write_int(&w, ops[i].n);
        }
        tosac_json_end_object(&w);
        char ver[32];
        version_str(tosac_program_delegate(p, k), ver, sizeof ver);
        tosac_json_key(&w, "tosa_version");
        tosac_json_write_string(&w, ver);
        rt_delegate_view dv = rt_program_delegate(v, (uint32_t)k);
        json_key_int(&w, "bytes", (int64_t)dv.tosa_size);
        json_key_int(&w, "cpu_graph", dv.rec->graph);
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
    const ir_graph *g = tosac_program_cpu(p)->graph;
    for (int i = 0; i < g->n_nodes; i++) {
        tosac_json_begin_object(&w);
        tosac_json_key(&w, "name");
        tosac_json_write_string(&w, g->nodes[i].name ? g->nodes[i].name : "");
        tosac_json_key(&w, "op_type");
        tosac_json_write_string(&w, g->nodes[i].op_type);
        tosac_json_end_object(&w);
    }
    tosac_json_end_array(&w);
    json_tail(&w, v);
    tosac_json_end_object(&w);
    size_t len;
    return tosac_json_writer_take(&w, &len);
}

int inspect_program(int argc, char **argv)
{
    const char *path = NULL;
    bool json = false, dot = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = true;
        else if (strcmp(argv[i], "--dot") == 0)
            dot = true;
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
    void *buf = NULL;
    size_t len = 0;
    rt_program v;
    tosac_code rc = tosac_read_file(path, &buf, &len, &err);
    if (!rc)
        rc = tosac_program_from_bytes(buf, len, &p, &err);
    if (!rc) /* the verified view of the same bytes (sections, signature, plan) */
        rc = rt_program_load(buf, len, &v, &err);
    if (!rc && tosac_program_report(p))
        rc = tosac_json_parse(tosac_program_report(p), strlen(tosac_program_report(p)), &rep, &err);
    if (!rc && !(meta = calloc((size_t)tosac_program_n_delegates(p) + 1, sizeof *meta)))
        rc = tosac_fail(&err, TOSAC_ERR_INTERNAL, "out of memory");
    for (int k = 0; !rc && k < tosac_program_n_delegates(p); k++)
        if (tosac_json_parse(tosac_program_delegate_meta(p, k),
                             strlen(tosac_program_delegate_meta(p, k)), &meta[k], &err))
            rc = tosac_fail(&err, TOSAC_ERR_INPUT, "program: metadata of delegate %d is not "
                            "JSON", k);
    if (!rc && json && dot)
        rc = tosac_fail(&err, TOSAC_ERR_INPUT, "inspect: --json and --dot exclude each other");
    if (!rc && dot) {
        inspect_program_dot(stdout, p);
    } else if (!rc && json) {
        char *text = build_json(path, p, &v, rep, meta);
        if (!text)
            rc = tosac_fail(&err, TOSAC_ERR_INTERNAL, "out of memory writing JSON");
        else
            printf("%s\n", text);
        free(text);
    } else if (!rc) {
        print_text(path, p, &v, rep, meta);
    }
    for (int k = 0; meta && k < tosac_program_n_delegates(p); k++)
        tosac_json_free(meta[k]);
    free(meta);
    tosac_json_free(rep);
    tosac_program_free(p);
    free(buf);
    char mp[TOSAC_MSG_PATH];
    const char *shown = tosac_msg_path(path, mp);
    if (rc && !strstr(err.msg, shown)) /* the reader's message names no file */
        return cli_error(err.code ? err.code : TOSAC_ERR_INTERNAL, "%s: %s", shown, err.msg);
    return rc ? cli_report(&err) : 0;
}
