/* tosac compile MODEL.onnx --spec SPEC -o PROGRAM [--emit-tosa DIR] [--report FILE.json]
 *               [--input-shape NAME=D0,..]... */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "tosac/compile.h"

#define MAX_SHAPES 64
#define MAX_CALIB 256

static const char usage[] =
    "usage: tosac compile MODEL.onnx --spec SPEC -o PROGRAM [--emit-tosa DIR]\n"
    "                     [--report FILE.json] [--input-shape NAME=D0,D1,...]...\n"
    "                     [--quantize a8w8|a16w8 --calib FILE.npy|NAME=FILE.npy|DIR ...]\n"
    "--quantize calibrates a float model on the --calib samples and quantizes it (int8\n"
    "activations for a8w8, int16 for a16w8; int8 per-channel weights) before compiling;\n"
    "inputs with dynamic dimensions then take the calibration samples' shape.\n";

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
                            : strcmp(s, "--report") == 0    ? &o.report_path
                            : strcmp(s, "--quantize") == 0  ? &o.quantize
                                                            : NULL;
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
    if (o.n_calib && !o.quantize)
        return cli_error(TOSAC_ERR_INPUT, "--calib is only used with --quantize a8w8|a16w8");
    o.input_shapes = shapes;
    o.calib = calib;
    tosac_error err;
    tosac_error_clear(&err);
    tosac_code rc = tosac_compile_file(model, out, &o, &err);
    return rc ? cli_report(&err) : 0;
}
