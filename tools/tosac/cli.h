/* Shared pieces of the tosac command line: error reporting, file-kind detection,
 * --input parsing. Each subcommand lives in its own cmd_*.c / <verb>_<kind>.c file. */
#ifndef TOSAC_CLI_H
#define TOSAC_CLI_H

#include <stdio.h>

#include "tosac/error.h"
#include "tosac/quant.h"
#include "tosac/tensor.h"

/* Prints "tosac: error: <msg>" on one line to stderr; returns the exit status for code. */
int cli_error(tosac_code code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cli_report(const tosac_error *err);

/* s as a JSON string literal (quoted, escaped, invalid UTF-8 replaced): inspect prints names
 * from files this way in text and JSON output alike. */
void cli_put_json_str(FILE *f, const char *s);

/* "a, b, c" (quoted names, shortened with ", ..." to fit len): the valid names a wrong one
 * is told about. */
const char *cli_name_list(const char *const *names, int n, char *buf, size_t len);

/* --quiet / -q and --verbose / -v, given anywhere after the command (main.c takes them out of
 * argv): quiet drops warnings, the compile summary and progress; verbose adds detail (the
 * compile lists every CPU node with its reason). */
extern int cli_quiet, cli_verbose;

/* True if argv holds -h or --help. */
int cli_wants_help(int argc, char **argv);

typedef enum cli_file_kind { CLI_FILE_UNKNOWN, CLI_FILE_TOSA, CLI_FILE_ONNX, CLI_FILE_PROGRAM } cli_file_kind;
/* By content: "TOSA" identifier at byte 4, the program magic, else ONNX by ".onnx" name or
 * protobuf's leading ir_version field. TOSAC_ERR_INPUT if unreadable. */
tosac_code cli_detect_file(const char *path, cli_file_kind *kind, tosac_error *err);

/* --input [NAME=]FILE.npy, repeated. */
typedef struct cli_input {
    const char *name;   /* NULL when positional */
    const char *path;
} cli_input;

/* inspect PROGRAM --dot (inspect_dot.c). */
struct tosac_program;
void inspect_program_dot(FILE *f, const struct tosac_program *p);

/* Calibration progress on stderr when it is a terminal (cmd_quantize_progress.c); NULL
 * (quiet) otherwise. *ctx gets the callback's context. */
quant_progress_fn cli_quant_progress(void **ctx);

/* Subcommands: argv[0] is the subcommand name. Return the process exit status. */
int cmd_spec(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_quantize(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_compare(int argc, char **argv);

/* Per file kind (cmd_run / cmd_inspect dispatch to these). */
int run_tosa(int argc, char **argv);
int run_onnx(int argc, char **argv);
int run_program(int argc, char **argv);
int inspect_tosa(int argc, char **argv);
int inspect_onnx(int argc, char **argv);
int inspect_program(int argc, char **argv);

#endif
