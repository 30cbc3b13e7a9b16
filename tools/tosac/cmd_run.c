/* tosac run / inspect: dispatch on the kind of file given. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Options of run/inspect/bench that take a value (so their value is not the file). */
static int takes_value(const char *opt)
{
    static const char *const opts[] = {"--input", "-i", "--output-dir", "-o", "--runs",
                                       "--threads", "--input-shape",
                                       "--dump-intermediates", NULL};
    for (int i = 0; opts[i]; i++)
        if (strcmp(opt, opts[i]) == 0)
            return 1;
    return 0;
}

static const char *first_positional(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] != '-')
            return argv[i];
        if (takes_value(argv[i]))
            i++;
    }
    return NULL;
}

static int dispatch(int argc, char **argv, int (*tosa)(int, char **), int (*onnx)(int, char **),
                    int (*prog)(int, char **), const char *usage)
{
    if (cli_wants_help(argc, argv)) {
        fputs(usage, stdout);
        return 0;
    }
    const char *path = first_positional(argc, argv);
    if (!path)
        return cli_error(TOSAC_ERR_INPUT, "%s needs a file (try 'tosac %s --help')", argv[0],
                         argv[0]);
    tosac_error err;
    tosac_error_clear(&err);
    cli_file_kind kind;
    if (cli_detect_file(path, &kind, &err))
        return cli_report(&err);
    switch (kind) {
    case CLI_FILE_TOSA: return tosa(argc, argv);
    case CLI_FILE_ONNX: return onnx(argc, argv);
    case CLI_FILE_PROGRAM: return prog(argc, argv);
    default: return cli_error(TOSAC_ERR_INPUT, "unrecognised file '%s'", path);
    }
}

int cmd_run(int argc, char **argv)
{
    return dispatch(argc, argv, run_tosa, run_onnx, run_program,
                    "usage: tosac run (PROGRAM | MODEL.onnx | GRAPH.tosa) --input [NAME=]FILE.npy ...\n"
                    "                 [--output-dir DIR] [--threads N] [--reference]\n"
                    "                 [--dump-intermediates DIR]\n"
                    "Runs the file on the host and writes every output as DIR/<name>.npy\n"
                    "(characters outside [A-Za-z0-9_.-] in a name become '_'; DIR defaults to '.').\n"
                    "Inputs bind by name, or in graph order when NAME= is omitted.\n"
                    "ONNX models and programs:\n"
                    "  --dump-intermediates DIR  also every value the run makes, as\n"
                    "                          DIR/<name>.npy, and DIR/index.json (file ->\n"
                    "                          tensor, op, node, order); a program's quantized\n"
                    "                          values also dequantized under the float model's\n"
                    "                          tensor names (compare two dumps with tosac compare\n"
                    "                          DIR_REF DIR). Programs: delegates run on the\n"
                    "                          reference interpreter (as --reference, same bits),\n"
                    "                          so every TOSA tensor is seen\n"
                    "Programs only:\n"
                    "  --threads N             the accelerated kernels on N threads (default 1)\n"
                    "  --reference             every delegate operator on the reference\n"
                    "                          interpreter (no accelerated kernels; same bits)\n"
                    "Example:\n"
                    "  tosac run model.prog --input input=sample.npy --output-dir out/\n"
                    "  tosac run model.onnx --input sample.npy --dump-intermediates ref/\n");
}

int cmd_inspect(int argc, char **argv)
{
    return dispatch(argc, argv, inspect_tosa, inspect_onnx, inspect_program,
                    "usage: tosac inspect (PROGRAM | MODEL.onnx | GRAPH.tosa) [--json | --dot | --mlir]\n"
                    "Prints operators, tensors, shapes, types and attributes.\n"
                    "  --json                  one JSON object instead of text (programs:\n"
                    "                          docs/REPORT.md)\n"
                    "  --dot                   Graphviz: a program's delegates as clusters,\n"
                    "                          or an ONNX model's graph\n"
                    "  --mlir                  .tosa graphs only: MLIR in the tosa dialect\n"
                    "ONNX models only:\n"
                    "  --spec SPEC             with --dot: compile for SPEC in memory and draw\n"
                    "                          what runs where, as for a program\n"
                    "  --input-shape NAME=D0,D1,...\n"
                    "                          fix a dynamic input's shape before inferring\n"
                    "                          shapes (repeatable)\n"
                    "Example:\n"
                    "  tosac inspect model.prog --dot | dot -Tsvg -o model.svg\n");
}
