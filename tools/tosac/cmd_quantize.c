/* tosac quantize MODEL.onnx --scheme a8w8|a16w8 --calib FILE.npy|NAME=FILE.npy|DIR ... -o QDQ.onnx */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tosac/onnx.h"
#include "util/fileio.h"
#include "tosac/quant.h"

typedef struct quant_args {
    const char *model, *out, *scheme;
    const char **calib;
    int n_calib;
} quant_args;

static void usage(void)
{
    printf("usage: tosac quantize MODEL.onnx --scheme a8w8|a16w8 --calib FILE.npy|NAME=FILE.npy|DIR ..."
           " -o QDQ.onnx\n"
           "  --calib  calibration samples: FILE.npy (one-input model), NAME=FILE.npy per input,\n"
           "           or DIR with one sub-folder per sample holding <input>.npy; repeatable\n"
           "  -o       written whole or not at all; refused when it names the model or a --calib file\n");
}

static tosac_code parse_args(int argc, char **argv, quant_args *a, tosac_error *err)
{
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        bool has_value = strcmp(s, "--scheme") == 0 || strcmp(s, "--calib") == 0 ||
                         strcmp(s, "-o") == 0 || strcmp(s, "--output") == 0;
        if (has_value && i + 1 >= argc)
            return tosac_fail(err, TOSAC_ERR_INPUT, "%s needs a value", s);
        if (strcmp(s, "--scheme") == 0)
            a->scheme = argv[++i];
        else if (strcmp(s, "--calib") == 0)
            a->calib[a->n_calib++] = argv[++i];
        else if (has_value)
            a->out = argv[++i];
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
    for (int i = 0; i < a->n_calib; i++) {
        const char *eq = strchr(a->calib[i], '=');
        if (tosac_same_file(a->out, a->calib[i]) || (eq && tosac_same_file(a->out, eq + 1)))
            return tosac_fail(err, TOSAC_ERR_INPUT, "-o '%s' names a --calib input: it would "
                              "be overwritten", tosac_msg_path(a->out, mp));
    }
    return TOSAC_OK;
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
    quant_options o = {QUANT_A8W8};
    quant_calib calib = {0};
    ir_model *m = NULL;
    tosac_code rc = parse_args(argc, argv, &a, &err);
    if (!rc)
        rc = quant_parse_scheme(a.scheme, &o.scheme, &err);
    if (!rc)
        rc = onnx_import_file(a.model, &m, &err);
    if (!rc)
        rc = quant_calib_load(m, a.calib, a.n_calib, &calib, &err);
    if (!rc)
        rc = tosac_quantize(m, &o, &calib, &err);
    if (!rc)
        rc = onnx_export_file(m, a.out, &err);
    quant_calib_free(&calib);
    ir_model_free(m);
    free(a.calib);
    return rc ? cli_report(&err) : 0;
}
