/* tosac spec SPEC [--json] [--ops]: what a TOSA specification string allows. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "tosac/spec.h"

static const char usage[] =
    "usage: tosac spec SPEC [--json] [--ops]\n"
    "Parses a TOSA specification string and shows what it allows.\n"
    "  SPEC    TOSA-<major>.<minor>[.<patch>] then '+'-separated tokens:\n"
    "          profiles INT FP; extensions int16 int4 int64 bf16 fp8e4m3 fp8e5m2 fft var cf\n"
    "          dynamic doubleround inexactround shape mxcommon mxfp4e2m1 mxfp6e2m3 mxfp6e3m2\n"
    "          mxfp8e4m3 mxfp8e5m2 mxint8 mxfpconv; level 8k; subset u55 (what Vela\n"
    "          compiles for Arm Ethos-U55: integer only, fewer operators and types)\n"
    "          e.g. TOSA-1.0+INT+int16, TOSA-1.1+INT+FP+int64\n"
    "  --json  one JSON object: spec, version, profiles, extensions, u55, level,\n"
    "          keeps_int64, level_limits, operators_allowed (and operators with --ops)\n"
    "  --ops   every operator the spec allows, one line per legal type combination:\n"
    "          NAME type=dtype ... (what makes it legal)\n"
    "Example:\n"
    "  tosac spec TOSA-1.0+INT+int16+u55 --ops\n";

/* "i8", "-" for no tensor, "bs32:fp4e2m1" for a block-scaled position. */
static void put_type(FILE *f, const tosa_spec_row *row, int i)
{
    if (row->types[i] == TOSAC_DT_UNKNOWN)
        fputs("-", f);
    else
        fprintf(f, "%s%s", (row->block_scaled >> i) & 1 ? "bs32:" : "",
                tosac_dtype_name(row->types[i]));
}

static void put_reasons(FILE *f, const tosa_spec_row *row)
{
    for (int a = 0; a < row->n_alts; a++) {
        char buf[256];
        tosa_spec_features_to_string(row->alts[a], buf, sizeof buf);
        fprintf(f, "%s%s", a ? " | " : "", buf);
    }
}

static void print_ops_text(const tosa_spec *spec)
{
    for (int i = 0; i < tosa_spec_op_count(spec); i++) {
        const tosa_spec_op *op = tosa_spec_op_at(spec, i);
        for (int r = 0; r < op->n_rows; r++) {
            const tosa_spec_row *row = &op->rows[r];
            if (!tosa_spec_row_legal(spec, row))
                continue;
            fputs(op->name, stdout);
            for (int t = 0; t < op->n_types; t++) {
                printf(" %s=", op->type_names[t]);
                put_type(stdout, row, t);
            }
            fputs(" (", stdout);
            put_reasons(stdout, row);
            fputs(")\n", stdout);
        }
    }
}

static int allowed_count(const tosa_spec *spec)
{
    int n = 0;
    for (int i = 0; i < tosa_spec_op_count(spec); i++)
        n += tosa_spec_op_allowed(spec, tosa_spec_op_at(spec, i));
    return n;
}

static int legal_rows(const tosa_spec *spec)
{
    int n = 0;
    for (int i = 0; i < tosa_spec_op_count(spec); i++) {
        const tosa_spec_op *op = tosa_spec_op_at(spec, i);
        for (int r = 0; r < op->n_rows; r++)
            n += tosa_spec_row_legal(spec, &op->rows[r]);
    }
    return n;
}

/* Effective extensions (implied ones included), comma-separated, each wrapped in q. */
static void put_extensions(const tosa_spec *spec, const char *q)
{
    int k = 0;
    for (int e = 0; e < TOSA_EXT_COUNT; e++)
        if (tosa_spec_has_ext(spec, (tosa_ext)e))
            printf("%s%s%s%s", k++ ? ", " : "", q, tosa_ext_token((tosa_ext)e), q);
    if (!k && !*q)
        fputs("none", stdout);
}

static void put_limits(const tosa_spec_levels *l, int json)
{
    const char *fmt = json ? "\"%s\": %lld" : "%s %lld";
    const char *names[] = {"max_rank", "max_kernel", "max_stride", "max_scale", "max_log2_size",
                           "max_nesting", "max_tensor_list_size", "max_shape_len"};
    long long vals[] = {l->max_rank, l->max_kernel, l->max_stride, l->max_scale,
                        l->max_log2_size, l->max_nesting, l->max_tensor_list_size,
                        l->max_shape_len};
    int n = l->max_shape_len ? 8 : 7; /* max_shape_len exists from 1.1 */
    for (int i = 0; i < n; i++) {
        fputs(i ? ", " : "", stdout);
        printf(fmt, names[i], vals[i]);
    }
}

static void print_json(const tosa_spec *spec, const char *canon, int with_ops)
{
    printf("{\"spec\": \"%s\", \"version\": \"%d.%d\", \"profiles\": [", canon, spec->major,
           spec->minor);
    int k = 0;
    if (tosa_spec_supports_integer(spec))
        printf("%s\"INT\"", k++ ? ", " : "");
    if (tosa_spec_supports_float(spec))
        printf("%s\"FP\"", k++ ? ", " : "");
    printf("], \"extensions\": [");
    put_extensions(spec, "\"");
    printf("], \"u55\": %s, \"level\": \"%s\", \"keeps_int64\": %s, \"level_limits\": {",
           tosa_spec_is_u55_subset(spec) ? "true" : "false",
           spec->level == TOSA_LEVEL_8K ? "8k" : "none",
           tosa_spec_keeps_int64(spec) ? "true" : "false");
    put_limits(tosa_spec_level_limits(spec), 1);
    printf("}, \"operators_allowed\": %d", allowed_count(spec));
    if (with_ops) {
        printf(", \"operators\": [");
        int first = 1;
        for (int i = 0; i < tosa_spec_op_count(spec); i++) {
            const tosa_spec_op *op = tosa_spec_op_at(spec, i);
            if (!tosa_spec_op_allowed(spec, op))
                continue;
            printf("%s{\"name\": \"%s\", \"types\": [", first ? "" : ", ", op->name);
            first = 0;
            for (int t = 0; t < op->n_types; t++)
                printf("%s\"%s\"", t ? ", " : "", op->type_names[t]);
            printf("], \"legal\": [");
            int fr = 1;
            for (int r = 0; r < op->n_rows; r++) {
                if (!tosa_spec_row_legal(spec, &op->rows[r]))
                    continue;
                printf("%s[", fr ? "" : ", ");
                fr = 0;
                for (int t = 0; t < op->n_types; t++) {
                    fputs(t ? ", \"" : "\"", stdout);
                    put_type(stdout, &op->rows[r], t);
                    fputs("\"", stdout);
                }
                printf("]");
            }
            printf("]}");
        }
        printf("]");
    }
    printf("}\n");
}

static void print_text(const tosa_spec *spec, const char *canon)
{
    printf("spec: %s\n", canon);
    printf("version: %d.%d\n", spec->major, spec->minor);
    printf("profiles: %s%s%s\n", tosa_spec_supports_integer(spec) ? "INT" : "",
           tosa_spec_supports_integer(spec) && tosa_spec_supports_float(spec) ? ", " : "",
           tosa_spec_supports_float(spec) ? "FP" : "");
    printf("extensions: ");
    put_extensions(spec, "");
    printf("\nlevel: %s (", spec->level == TOSA_LEVEL_8K ? "8k" : "none");
    put_limits(tosa_spec_level_limits(spec), 0);
    printf(")\nu55: %s\n", tosa_spec_is_u55_subset(spec)
                              ? "yes (what Arm Vela 5.1.0 compiles for Ethos-U55: integer only)"
                              : "no");
    printf("keeps_int64: %s\n", tosa_spec_keeps_int64(spec) ? "yes" : "no (int64 is narrowed to int32)");
    printf("operators: %d of %d allowed, %d type combinations (--ops lists them)\n",
           allowed_count(spec), tosa_spec_op_count(spec), legal_rows(spec));
}

int cmd_spec(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(usage, stdout);
        return 0;
    }
    const char *text = NULL;
    int json = 0, ops = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (strcmp(argv[i], "--ops") == 0)
            ops = 1;
        else if (argv[i][0] == '-' && argv[i][1] != '\0')
            return cli_error(TOSAC_ERR_INPUT, "unknown option '%s' (try 'tosac spec --help')",
                             argv[i]);
        else if (text)
            return cli_error(TOSAC_ERR_INPUT, "tosac spec takes one SPEC, got '%s' and '%s'",
                             text, argv[i]);
        else
            text = argv[i];
    }
    if (!text)
        return cli_error(TOSAC_ERR_INPUT, "tosac spec needs a SPEC (e.g. TOSA-1.0+INT; try "
                                          "'tosac spec --help')");
    tosac_error err;
    tosac_error_clear(&err);
    tosa_spec spec;
    if (tosa_spec_parse(text, &spec, &err))
        return cli_report(&err);
    char canon[256];
    tosa_spec_to_string(&spec, canon, sizeof canon);
    if (json)
        print_json(&spec, canon, ops);
    else if (ops)
        print_ops_text(&spec);
    else
        print_text(&spec, canon);
    return 0;
}
