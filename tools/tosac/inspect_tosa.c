/* tosac inspect GRAPH.tosa [--json]: version, blocks, inputs/outputs, every tensor and every
 * operator with its operands and attributes; --json prints the same as one JSON object. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tosa/tosa_internal.h"
#include "tosac/tosa.h"

static void put_attr_value(FILE *f, const tosa_attr *a, const tosa_attr_field *af)
{
    const char *base = (const char *)a;
    switch (af->kind) {
    case TOSA_AK_VEC:
    case TOSA_AK_RAW8:
    case TOSA_AK_BYTES: {
        size_t n = af->kind == TOSA_AK_BYTES ? *(const size_t *)(base + af->n_off)
                                             : (size_t)*(const int *)(base + af->n_off);
        const uint8_t *bytes = af->kind == TOSA_AK_BYTES ? *(uint8_t *const *)(base + af->off)
                                                         : (const uint8_t *)(base + af->off);
        fputc('[', f);
        for (size_t i = 0; i < n && (af->kind != TOSA_AK_BYTES || bytes); i++)
            fprintf(f, "%s%ld", i ? "," : "", af->kind == TOSA_AK_VEC
                    ? (long)((const int32_t *)(base + af->off))[i] : (long)bytes[i]);
        fputc(']', f);
        return;
    }
    case TOSA_AK_STR: {
        const char *s = *(char *const *)(base + af->off);
        if (s)
            cli_put_json_str(f, s);
        else
            fputs("null", f);
        return;
    }
    case TOSA_AK_BOOL: fputs(tosa_attr_get_int(a, af) ? "true" : "false", f); return;
    case TOSA_AK_I32:
    case TOSA_AK_BLOCK: fprintf(f, "%lld", (long long)tosa_attr_get_int(a, af)); return;
    case TOSA_AK_DTYPE:
        cli_put_json_str(f, tosa_dtype_tosa_name((tosac_dtype)tosa_attr_get_int(a, af)));
        return;
    case TOSA_AK_NAN: cli_put_json_str(f, tosa_nan_mode_name((uint32_t)tosa_attr_get_int(a, af))); return;
    case TOSA_AK_ROUND:
        cli_put_json_str(f, tosa_rounding_mode_name((uint32_t)tosa_attr_get_int(a, af)));
        return;
    case TOSA_AK_RESIZE:
        cli_put_json_str(f, tosa_resize_mode_name((uint32_t)tosa_attr_get_int(a, af)));
        return;
    }
}

static void put_names(FILE *f, const tosa_block *b, const int *idx, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; i++) {
        if (i)
            fputs(", ", f);
        cli_put_json_str(f, b->tensors[idx[i]].name);
    }
    fputc(']', f);
}

static void put_shape(FILE *f, const tosa_tensor *t)
{
    fputc('[', f);
    for (int i = 0; i < t->rank; i++)
        fprintf(f, "%s%lld", i ? "," : "", (long long)t->shape[i]);
    fputc(']', f);
}

static void text_block(FILE *f, const tosa_block *b)
{
    fprintf(f, "  block ");
    cli_put_json_str(f, b->name);
    fprintf(f, ": %d tensors, %d operators\n    inputs: ", b->n_tensors, b->n_ops);
    put_names(f, b, b->inputs, b->n_inputs);
    fputs("\n    outputs: ", f);
    put_names(f, b, b->outputs, b->n_outputs);
    fputs("\n    tensors:\n", f);
    for (int i = 0; i < b->n_tensors; i++) {
        const tosa_tensor *t = &b->tensors[i];
        fputs("      ", f);
        cli_put_json_str(f, t->name);
        fprintf(f, " %s ", tosa_dtype_tosa_name(t->dtype));
        put_shape(f, t);
        fprintf(f, "%s%s%s%s\n", t->data ? " const" : "", t->variable ? " variable" : "",
                t->in_shapes_table ? " (shapes table)" : "",
                t->outer_ref ? " (declared in a calling block)" : "");
    }
    fputs("    operators:\n", f);
    for (int i = 0; i < b->n_ops; i++) {
        const tosa_operator *o = &b->ops[i];
        fprintf(f, "      %d %s ", i, tosa_op_name(o->op));
        put_names(f, b, o->inputs, o->n_inputs);
        fputs(" -> ", f);
        put_names(f, b, o->outputs, o->n_outputs);
        int n;
        const tosa_attr_field *af = tosa_attr_fields(o->op, &n);
        for (int k = 0; k < n; k++) {
            fprintf(f, " %s=", af[k].name);
            put_attr_value(f, &o->attr, &af[k]);
        }
        if (o->location) {
            fputs(" location=", f);
            cli_put_json_str(f, o->location);
        }
        fputc('\n', f);
    }
}

static void json_block(FILE *f, const tosa_block *b)
{
    fputs("{\"name\": ", f);
    cli_put_json_str(f, b->name);
    fputs(", \"inputs\": ", f);
    put_names(f, b, b->inputs, b->n_inputs);
    fputs(", \"outputs\": ", f);
    put_names(f, b, b->outputs, b->n_outputs);
    fputs(", \"tensors\": [", f);
    for (int i = 0; i < b->n_tensors; i++) {
        const tosa_tensor *t = &b->tensors[i];
        fputs(i ? ", {\"name\": " : "{\"name\": ", f);
        cli_put_json_str(f, t->name);
        fprintf(f, ", \"type\": \"%s\", \"shape\": ", tosa_dtype_tosa_name(t->dtype));
        put_shape(f, t);
        fprintf(f, ", \"const\": %s, \"variable\": %s, \"shapes_table\": %s, \"outer\": %s}",
                t->data ? "true" : "false", t->variable ? "true" : "false",
                t->in_shapes_table ? "true" : "false", t->outer_ref ? "true" : "false");
    }
    fputs("], \"operators\": [", f);
    for (int i = 0; i < b->n_ops; i++) {
        const tosa_operator *o = &b->ops[i];
        fprintf(f, "%s{\"op\": \"%s\", \"inputs\": ", i ? ", " : "", tosa_op_name(o->op));
        put_names(f, b, o->inputs, o->n_inputs);
        fputs(", \"outputs\": ", f);
        put_names(f, b, o->outputs, o->n_outputs);
        fputs(", \"attributes\": {", f);
        int n;
        const tosa_attr_field *af = tosa_attr_fields(o->op, &n);
        for (int k = 0; k < n; k++) {
            fprintf(f, "%s\"%s\": ", k ? ", " : "", af[k].name);
            put_attr_value(f, &o->attr, &af[k]);
        }
        fputc('}', f);
        if (o->location) {
            fputs(", \"location\": ", f);
            cli_put_json_str(f, o->location);
        }
        fputc('}', f);
    }
    fputs("]}", f);
}

static const char usage[] =
    "usage: tosac inspect GRAPH.tosa [--json | --mlir]\n"
    "Shows the version, blocks, inputs/outputs, tensors and operators of a .tosa graph.\n"
    "--mlir prints the graph as MLIR in the tosa dialect (TOSA 1.0 form, constants included),\n"
    "which mlir-opt reads, e.g.\n"
    "  tosac inspect tosa/0.tosa --mlir > 0.mlir\n"
    "  mlir-opt-22 0.mlir --tosa-attach-target=\"specification_version=1.0 profiles=pro_int\" \\\n"
    "      --tosa-validate=strict-op-spec-alignment\n";

int inspect_tosa(int argc, char **argv)
{
    const char *path = NULL;
    int json = 0, mlir = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (strcmp(argv[i], "--mlir") == 0)
            mlir = 1;
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
    if (json && mlir)
        return cli_error(TOSAC_ERR_INPUT, "inspect: --json and --mlir exclude each other");
    tosac_error err;
    tosac_error_clear(&err);
    tosa_graph *g;
    if (tosa_graph_read_file(path, &g, &err))
        return cli_report(&err);
    FILE *f = stdout;
    if (mlir) {
        char *text = NULL;
        size_t len = 0;
        const tosa_graph *gs[1] = {g};
        const char *names[1] = {"main"};
        tosac_code rc = tosa_graphs_to_mlir(gs, names, 1, &text, &len, &err);
        tosa_graph_free(g);
        if (rc)
            return cli_error(rc, "%s: %s", path, err.msg);
        fwrite(text, 1, len, f);
        free(text);
        return 0;
    }
    if (json) {
        fprintf(f, "{\"file\": ");
        cli_put_json_str(f, path);
        fprintf(f, ", \"version\": \"%d.%d.%d\", \"regions\": [", g->ver_major, g->ver_minor,
                g->ver_patch);
    } else {
        fprintf(f, "TOSA graph %s\nversion %d.%d.%d\n", path, g->ver_major, g->ver_minor,
                g->ver_patch);
    }
    for (int r = 0; r < g->n_regions; r++) {
        const tosa_region *reg = &g->regions[r];
        if (json) {
            fprintf(f, "%s{\"name\": ", r ? ", " : "");
            cli_put_json_str(f, reg->name);
            fputs(", \"blocks\": [", f);
        } else {
            fputs("region ", f);
            cli_put_json_str(f, reg->name);
            fputc('\n', f);
        }
        for (int i = 0; i < reg->n_blocks; i++) {
            if (json) {
                fputs(i ? ", " : "", f);
                json_block(f, &reg->blocks[i]);
            } else {
                text_block(f, &reg->blocks[i]);
            }
        }
        if (json)
            fputs("]}", f);
    }
    if (json)
        fputs("]}\n", f);
    tosa_graph_free(g);
    return 0; /* main checks that stdout was written */
}
