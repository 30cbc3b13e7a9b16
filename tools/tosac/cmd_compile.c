/* tosac compile MODEL.onnx --spec SPEC -o PROGRAM [--emit-tosa DIR] [--report FILE.json|-]
 *               [--input-shape NAME=D0,..]... [--quiet]
 * On success one summary line on stderr, read from the report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tosac/compile.h"
#include "util/json.h"

#define MAX_SHAPES 64
#define MAX_CALIB 256

static const char usage[] =
    "usage: tosac compile MODEL.onnx --spec SPEC -o PROGRAM [--emit-tosa DIR]\n"
    "                     [--emit-mlir FILE.mlir]\n"
    "                     [--report FILE.json|-] [--input-shape NAME=D0,D1,...]...\n"
    "                     [--quantize a8w8|a16w8 --calib FILE.npy|NAME=FILE.npy|DIR ...\n"
    "                      [--calib-method METHOD] [--exclude NAME|OP_TYPE,...]\n"
    "                      [--int16 NAME|OP_TYPE,... | --mixed auto[=N]] [--no-keep-float]\n"
    "                      [--bias-correction] [--weight-rounding nearest|gptq]]\n"
    "                     [--int-io] [--quiet | --verbose]\n"
    "--quantize (also spelled --scheme, as in tosac quantize) calibrates a float model on the\n"
    "--calib samples and quantizes it (int8 activations for a8w8, int16 for a16w8 (needs\n"
    "+int16); int8 per-channel weights) before compiling; inputs with dynamic dimensions then\n"
    "take the calibration samples' shape. --calib-method, --exclude, --int16, --mixed,\n"
    "--no-keep-float, --bias-correction and --weight-rounding as for tosac quantize (see tosac\n"
    "quantize --help); --int16 and --mixed\n"
    "need a spec with +int16.\n"
    "--int-io: the program's inputs and outputs are the quantized integers (int8/int16):\n"
    "each input's QuantizeLinear and each output's DequantizeLinear are left out, and the\n"
    "program's signature keeps their scale and zero point (tosac inspect PROGRAM shows them);\n"
    "tosac run then takes and writes integer .npy files, named like the quantized tensors.\n"
    "Example:\n"
    "  tosac compile model.onnx --spec TOSA-1.0+INT --quantize a8w8 --calib samples/ \\\n"
    "      -o model.prog --emit-tosa tosa/ --report report.json\n"
    "  tosac compile model.onnx --spec TOSA-1.0+INT --quantize a8w8 --calib samples/ \\\n"
    "      --int-io -o model_int.prog\n"
    "--emit-mlir writes every delegate as MLIR in the tosa dialect (TOSA 1.0 form), one\n"
    "func.func @delegate_<n> each, for mlir-opt (e.g. mlir-opt-22 --tosa-validate).\n"
    "--report - prints the report on standard output. The program is read back, loaded and\n"
    "validated before anything is written; all outputs appear together or not at all, and an\n"
    "output naming the input model is refused. On success one line on stderr counts the\n"
    "delegates, the delegated compute nodes and the commonest CPU reasons (--quiet: none;\n"
    "--verbose: also one line per CPU node with its reason).\n"
    "Exit 0 success, 2 bad input or a model the spec cannot express (e.g. a float model\n"
    "under an integer-only spec without --quantize), 1 internal error.\n";

#define MAX_CATS 16

/* "tosac: compiled: 1 delegate, 101/103 compute nodes delegated; on the CPU: 2 boundary rule"
 * from the report: model nodes that are not folded are compute nodes; CPU ones are counted
 * per category (at most 3 shown, commonest first, ties in report order). */
static void print_summary(const char *report)
{
    tosac_json *r = NULL;
    tosac_error err;
    if (!report || tosac_json_parse(report, strlen(report), &r, &err))
        return;
    int64_t top = 0, body = 0;
    tosac_json_int(tosac_json_get(r, "n_delegates"), &top);
    tosac_json_int(tosac_json_get(r, "body_delegates"), &body);
    const tosac_json *nodes = tosac_json_get(r, "nodes");
    const char *cat[MAX_CATS];
    int cnt[MAX_CATS], n_cat = 0, total = 0, delegated = 0, other = 0;
    for (int i = 0; i < tosac_json_count(nodes); i++) {
        const tosac_json *n = tosac_json_at(nodes, i);
        const char *pl = tosac_json_string(tosac_json_get(n, "placement"));
        if (!pl || strcmp(pl, "folded") == 0 || tosac_json_get(n, "origin"))
            continue;
        total++;
        if (strcmp(pl, "delegate") == 0) {
            delegated++;
            continue;
        }
        const char *c = tosac_json_string(tosac_json_get(n, "category"));
        int k = 0;
        while (k < n_cat && strcmp(cat[k], c ? c : "") != 0)
            k++;
        if (k == n_cat && n_cat == MAX_CATS) {
            other++;
            continue;
        }
        if (k == n_cat) {
            cat[n_cat] = c ? c : "";
            cnt[n_cat++] = 0;
        }
        cnt[k]++;
    }
    char line[1024];
    int len = snprintf(line, sizeof line, "tosac: compiled: %lld delegate%s", (long long)(top + body),
                       top + body == 1 ? "" : "s");
    if (body)
        len += snprintf(line + len, sizeof line - (size_t)len, " (%lld in control-flow bodies)",
                        (long long)body);
    len += snprintf(line + len, sizeof line - (size_t)len, ", %d/%d compute nodes delegated",
                    delegated, total);
    for (int shown = 0; shown < 3 && shown < n_cat; shown++) {
        int best = -1;
        for (int k = 0; k < n_cat; k++)
            if (cnt[k] > 0 && (best < 0 || cnt[k] > cnt[best]))
                best = k;
        if (best < 0)
            break;
        len += snprintf(line + len, sizeof line - (size_t)len, "%s%d %s",
                        shown ? ", " : "; on the CPU: ", cnt[best], cat[best]);
        cnt[best] = -cnt[best]; /* shown */
    }
    int rest = other;
    for (int k = 0; k < n_cat; k++)
        rest += cnt[k] > 0 ? cnt[k] : 0;
    if (rest)
        len += snprintf(line + len, sizeof line - (size_t)len, ", %d other", rest);
    if (len > 0 && (size_t)len < sizeof line)
        fprintf(stderr, "%s\n", line);
    for (int i = 0; cli_verbose && i < tosac_json_count(nodes); i++) {
        const tosac_json *n = tosac_json_at(nodes, i);
        const char *pl = tosac_json_string(tosac_json_get(n, "placement"));
        if (pl && strcmp(pl, "cpu") == 0)
            fprintf(stderr, "tosac: cpu: %s (%s): %s\n",
                    tosac_json_string(tosac_json_get(n, "name")),
                    tosac_json_string(tosac_json_get(n, "op_type")),
                    tosac_json_string(tosac_json_get(n, "reason")));
    }
    tosac_json_free(r);
}

int cmd_compile(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(usage, stdout);
        return 0;
    }
    const char *model = NULL, *out = NULL, *shapes[MAX_SHAPES], *calib[MAX_CALIB];
    tosac_compile_options o;
    memset(&o, 0, sizeof o);
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        const char **slot = strcmp(s, "--spec") == 0        ? &o.spec
                            : strcmp(s, "-o") == 0 || strcmp(s, "--output") == 0 ? &out
                            : strcmp(s, "--emit-tosa") == 0 ? &o.emit_dir
                            : strcmp(s, "--emit-mlir") == 0 ? &o.emit_mlir
                            : strcmp(s, "--report") == 0    ? &o.report_path
                            : strcmp(s, "--quantize") == 0 || strcmp(s, "--scheme") == 0
                                ? &o.quantize
                            : strcmp(s, "--calib-method") == 0 ? &o.calib_method
                            : strcmp(s, "--exclude") == 0   ? &o.exclude
                            : strcmp(s, "--int16") == 0     ? &o.int16
                            : strcmp(s, "--mixed") == 0     ? &o.mixed
                            : strcmp(s, "--weight-rounding") == 0 ? &o.weight_rounding
                                                            : NULL;
        if (strcmp(s, "--no-keep-float") == 0 || strcmp(s, "--bias-correction") == 0) {
            *(s[2] == 'n' ? &o.no_keep_float : &o.bias_correction) = 1;
            continue;
        }
        bool shape = strcmp(s, "--input-shape") == 0, cal = strcmp(s, "--calib") == 0;
        if ((slot || shape || cal) && i + 1 >= argc)
            return cli_error(TOSAC_ERR_INPUT, "%s needs a value", s);
        if (slot) {
            *slot = argv[++i];
        } else if (cal) {
            if (o.n_calib == MAX_CALIB)
                return cli_error(TOSAC_ERR_INPUT, "more than %d --calib", MAX_CALIB);
            calib[o.n_calib++] = argv[++i];
        } else if (shape) {
            if (o.n_input_shapes == MAX_SHAPES)
                return cli_error(TOSAC_ERR_INPUT, "more than %d --input-shape", MAX_SHAPES);
            shapes[o.n_input_shapes++] = argv[++i];
        } else if (strcmp(s, "--int-io") == 0) {
            o.int_io = 1;
        } else if (s[0] == '-') {
            return cli_error(TOSAC_ERR_INPUT, "unknown option '%s' for compile", s);
        } else if (!model) {
            model = s;
        } else {
            return cli_error(TOSAC_ERR_INPUT, "unexpected argument '%s'", s);
        }
    }
    if (!model)
        return cli_error(TOSAC_ERR_INPUT, "no model given (%s)", "tosac compile --help");
    if (!o.spec)
        return cli_error(TOSAC_ERR_INPUT, "--spec is required (e.g. --spec TOSA-1.0+INT)");
    if (!out)
        return cli_error(TOSAC_ERR_INPUT, "-o PROGRAM is required");
    if ((o.n_calib || o.calib_method || o.exclude || o.int16 || o.mixed || o.no_keep_float ||
         o.bias_correction || o.weight_rounding) && !o.quantize)
        return cli_error(TOSAC_ERR_INPUT, "--calib is only used with --quantize a8w8|a16w8 "
                         "(as are --calib-method, --exclude, --int16, --mixed, "
                         "--no-keep-float, --bias-correction and --weight-rounding)");
    o.quant_progress = cli_quant_progress(&o.quant_progress_ctx);
    o.input_shapes = shapes;
    o.calib = calib;
    bool report_stdout = o.report_path && strcmp(o.report_path, "-") == 0;
    if (report_stdout)
        o.report_path = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    char *report = NULL;
    tosac_code rc = tosac_compile_file_report(model, out, &o, &report, &err);
    if (rc)
        return cli_report(&err);
    if (report_stdout)
        printf("%s\n", report);
    if (!cli_quiet)
        print_summary(report);
    free(report);
    return 0;
}
