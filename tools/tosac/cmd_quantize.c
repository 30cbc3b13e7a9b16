/* tosac quantize MODEL.onnx --scheme a8w8|a16w8 --calib FILE.npy|NAME=FILE.npy|DIR ... -o QDQ.onnx
 *                [--calib-method METHOD] [--exclude NAME|OP_TYPE,...] [--report FILE.json]
 *                [--int16 NAME|OP_TYPE,... | --mixed auto[=N]] [--no-keep-float]
  *                [--bias-correction] [--weight-rounding nearest|gptq] [--bodies] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compile/compile_int_io.h"
#include "tosac/onnx.h"
#include "util/fileio.h"
#include "tosac/quant.h"

typedef struct quant_args {
    const char *model, *out, *scheme, *method, *exclude, *report, *int16, *mixed,
        *rounding;
    bool no_keep_float, bias_correction;
    bool bodies;    /* --bodies (quant_options.bodies) */
    const char **calib;
    int n_calib;
    bool int_io;    /* --int-io (compile_int_io.h) */
} quant_args;

static void usage(void)
{
    printf("usage: tosac quantize MODEL.onnx --scheme a8w8|a16w8 --calib FILE.npy|NAME=FILE.npy|DIR ..."
           " -o QDQ.onnx\n"
           "  --calib  calibration samples: FILE.npy (one-input model), NAME=FILE.npy per input,\n"
           "           or DIR with one sub-folder per sample holding <input>.npy, or (a one-input\n"
           "           model) DIR of .npy files, one sample each; repeatable\n"
           "  --calib-method  how activation ranges come from the samples: minmax,\n"
           "           moving-average, percentile[=P] (each tail clipped at 100-P %%, P 99.99),\n"
           "           mse (default) or entropy (a histogram searched for the least squared\n"
           "           error / KL; docs/USAGE.md says why mse is the default)\n"
           "  --exclude NAME|OP_TYPE,...  nodes (by name or operator type) that stay float\n"
           "  --no-keep-float  quantize even the nodes where quantization destroys the signal\n"
           "           (by default a node whose output SQNR on the samples falls below 10 dB,\n"
           "           20 dB under its inputs', is named in a warning and kept float with the\n"
           "           nodes feeding it, e.g. the Log of a power spectrum)\n"
           "  --int16 NAME|OP_TYPE,...  (a8w8) int16 activations for these nodes (mixed\n"
           "           precision; compile needs +int16 in the spec)\n"
           "  --mixed auto[=N]  (a8w8) raise the N nodes losing the most SQNR to int16 (auto:\n"
           "           a tenth of the quantized nodes, at least one)\n"
           "  --bias-correction  move each Conv/Gemm bias by the mean shift its weights'\n"
           "           rounding causes on the samples (off by default: bench/RESULTS.md; with\n"
           "           gptq rounding there is nothing left to correct)\n"
           "  --weight-rounding nearest|gptq  how int8 weights are rounded: gptq (default)\n"
           "           rounds each Conv/Gemm weight in turn, carrying its error onto the\n"
           "           weights not yet rounded through the layer input's covariance on the\n"
           "           samples (one more pass); nearest rounds each to its nearest step\n"
           "  --bodies quantize inside If/Loop bodies too, their edges at the outer values'\n"
           "           parameters (what compile --quantize does under +cf: integer COND_IF /\n"
           "           WHILE_LOOP edges)\n"
           "  --report FILE.json  per activation: min/max seen, range, scale, zero point, dtype,\n"
           "           SQNR (dB) of its quantization on the calibration samples (null: exact)\n"
           "  --int-io the model's inputs and outputs are the quantized integers: each input's\n"
           "           QuantizeLinear and each output's DequantizeLinear are left out (their\n"
           "           scale and zero point are printed, and stay on the DQ after each input)\n"
           "  -o       written whole or not at all; refused when it names the model or a --calib file\n"
           "Example:\n"
           "  tosac quantize model.onnx --scheme a8w8 --calib samples/ -o model_qdq.onnx \\\n"
           "      --report quant.json\n"
           "  tosac quantize model.onnx --scheme a8w8 --calib samples/ --mixed auto \\\n"
           "      -o model_mixed.onnx\n");
}

static tosac_code parse_args(int argc, char **argv, quant_args *a, tosac_error *err)
{
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        const char **slot = strcmp(s, "--scheme") == 0         ? &a->scheme
                            : strcmp(s, "--calib-method") == 0 ? &a->method
                            : strcmp(s, "--exclude") == 0      ? &a->exclude
                            : strcmp(s, "--report") == 0       ? &a->report
                            : strcmp(s, "--int16") == 0        ? &a->int16
                            : strcmp(s, "--mixed") == 0        ? &a->mixed
                            : strcmp(s, "--weight-rounding") == 0 ? &a->rounding
                            : strcmp(s, "-o") == 0 || strcmp(s, "--output") == 0 ? &a->out
                                                               : NULL;
        if (strcmp(s, "--no-keep-float") == 0 || strcmp(s, "--bias-correction") == 0) {
            *(s[2] == 'n' ? &a->no_keep_float : &a->bias_correction) = true;
            continue;
        }
        bool has_value = slot || strcmp(s, "--calib") == 0;
        if (has_value && i + 1 >= argc)
            return tosac_fail(err, TOSAC_ERR_INPUT, "%s needs a value", s);
        if (slot)
            *slot = argv[++i];
        else if (has_value)
            a->calib[a->n_calib++] = argv[++i];
        else if (strcmp(s, "--int-io") == 0)
            a->int_io = true;
        else if (strcmp(s, "--bodies") == 0)
            a->bodies = true;
        else if (s[0] == '-')
            return tosac_fail(err, TOSAC_ERR_INPUT, "unknown option '%s' for tosac quantize", s);
        else if (!a->model)
            a->model = s;
        else
            return tosac_fail(err, TOSAC_ERR_INPUT, "unexpected argument '%s'", s);
    }
    if (!a->model)
        return tosac_fail(err, TOSAC_ERR_INPUT, "no model given");
    if (!a->scheme)
        return tosac_fail(err, TOSAC_ERR_INPUT, "no --scheme given (a8w8 or a16w8)");
    if (!a->n_calib)
        return tosac_fail(err, TOSAC_ERR_INPUT, "no --calib data given");
    if (!a->out)
        return tosac_fail(err, TOSAC_ERR_INPUT, "no output given (-o QDQ.onnx)");
    /* -o must not overwrite what the command reads: the model or a calibration file */
    char mp[TOSAC_MSG_PATH];
    if (tosac_same_file(a->out, a->model))
        return tosac_fail(err, TOSAC_ERR_INPUT, "-o '%s' names the input model: it would be "
                          "overwritten", tosac_msg_path(a->out, mp));
    if (a->report && (tosac_same_file(a->report, a->model) || tosac_same_file(a->report, a->out)))
        return tosac_fail(err, TOSAC_ERR_INPUT, "--report '%s' names the model or the output",
                          tosac_msg_path(a->report, mp));
    for (int i = 0; i < a->n_calib; i++) {
        const char *eq = strchr(a->calib[i], '=');
        for (int k = 0; k < 2; k++) { /* -o, then --report */
            const char *o = k ? a->report : a->out;
            if (o && (tosac_file_within(o, a->calib[i]) || (eq && tosac_file_within(o, eq + 1))))
                return tosac_fail(err, TOSAC_ERR_INPUT, "%s '%s' names a --calib input (or a "
                                  "file in a --calib folder): it would be overwritten",
                                  k ? "--report" : "-o",
                                  tosac_msg_path(o, mp));
        }
    }
    return TOSAC_OK;
}

/* --int-io: what the integers mean, one line per quantized input and output. */
static void print_int_io(const ir_graph *g)
{
    for (int side = 0; side < 2 && !cli_quiet; side++)
        for (int i = 0; i < (side ? g->n_outputs : g->n_inputs); i++) {
            const ir_tensor *t = &g->tensors[side ? g->outputs[i] : g->inputs[i]];
            if (t->quant && t->quant->n == 1)
                fprintf(stderr, "tosac: %s %s: %s scale %.9g zero_point %lld\n",
                        side ? "output" : "input", t->name, tosac_dtype_name(t->dtype),
                        (double)t->quant->scale[0], (long long)t->quant->zero_point[0]);
        }
}

/* The model and the report appear together or not at all. */
static tosac_code write_outputs(const ir_model *m, const char *out, const char *report_path,
                                const char *report, tosac_error *err)
{
    void *buf = NULL;
    size_t len = 0;
    tosac_code rc = onnx_export_bytes(m, &buf, &len, err);
    tosac_stage st = {0};
    if (!rc)
        rc = tosac_stage_file(&st, out, buf, len, err);
    if (!rc && report_path)
        rc = tosac_stage_file(&st, report_path, report, strlen(report), err);
    if (!rc)
        rc = tosac_stage_commit(&st, err);
    else
        tosac_stage_abort(&st);
    free(buf);
    return rc;
}

int cmd_quantize(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        usage();
        return 0;
    }
    tosac_error err;
    tosac_error_clear(&err);
    quant_args a = {0};
    a.calib = calloc((size_t)argc + 1, sizeof *a.calib);
    if (!a.calib)
        return cli_error(TOSAC_ERR_INTERNAL, "out of memory");
    quant_options o = {.scheme = QUANT_A8W8};
    char *report = NULL;
    quant_calib calib = {0};
    ir_model *m = NULL;
    tosac_code rc = parse_args(argc, argv, &a, &err);
    if (!rc)
        rc = quant_parse_scheme(a.scheme, &o.scheme, &err);
    if (!rc && a.method)
        rc = quant_parse_method(a.method, &o, &err);
    o.exclude = a.exclude;
    o.int16 = a.int16;
    o.no_keep_float = a.no_keep_float;
    o.bias_correction = a.bias_correction;
    o.bodies = a.bodies;
    if (!rc && a.mixed)
        rc = quant_parse_mixed(a.mixed, &o, &err);
    if (!rc && a.rounding)
        rc = quant_parse_rounding(a.rounding, &o, &err);
    o.report = a.report ? &report : NULL;
    o.progress = cli_quant_progress(&o.progress_ctx);
    if (!rc)
        rc = onnx_import_file(a.model, &m, &err);
    if (!rc)
        rc = quant_calib_load(m, a.calib, a.n_calib, &calib, &err);
    if (!rc)
        rc = tosac_quantize(m, &o, &calib, &err);
    if (!rc && a.int_io && !(rc = compile_int_io(m->graph, &err)))
        print_int_io(m->graph);
    rc = rc ? rc : write_outputs(m, a.out, a.report, report, &err);
    free(report);
    quant_calib_free(&calib);
    ir_model_free(m);
    free(a.calib);
    return rc ? cli_report(&err) : 0;
}
