/* .npy inputs and outputs of a graph for the `run` subcommands: --input [NAME=]FILE.npy
 * parsing, binding in graph-input order, and DIR/<output name>.npy writing. */
#ifndef TOSAC_CLI_GRAPH_IO_H
#define TOSAC_CLI_GRAPH_IO_H

#include "cli.h"
#include "tosac/ir.h"

#define CLI_MAX_INPUTS 64
#define CLI_MAX_VALUES 1024 /* graph inputs / outputs bound by name */

typedef struct cli_run_args {
    const char *file;
    const char *outdir;
    cli_input inputs[CLI_MAX_INPUTS];
    int n_inputs;
    int threads;        /* --threads N (programs only; 1 by default) */
    int reference;      /* --reference (programs only) */
    const char *dump_dir; /* --dump-intermediates DIR (cli_dump.h), or NULL */
} cli_run_args;

/* "[NAME=]FILE.npy" (v is split in place at the '='). */
void cli_parse_input(char *v, cli_input *out);
/* argv[0] is the subcommand; what names the file kind in messages ("programs" also take
 * --threads N and --reference). */
tosac_code cli_parse_run_args(int argc, char **argv, const char *what, cli_run_args *a,
                              tosac_error *err);
/* Named inputs by name, the rest positionally; vals has g->n_inputs zeroed entries. */
tosac_code cli_load_inputs(const cli_run_args *a, const ir_graph *g, tosac_tensor *vals,
                           tosac_error *err);
tosac_code cli_write_outputs(const char *dir, const ir_graph *g, const tosac_tensor *outs,
                             tosac_error *err);

/* The same over a list of n names (the runtime's signature); decl (NULL: no check) holds
 * what each input must be, checked by cli_check_input as it is read. */
tosac_code cli_load_named_inputs(const cli_run_args *a, const char *const *names, int n,
                                 const tosac_tensor *decl, tosac_tensor *vals, tosac_error *err);
/* A loaded input against its declaration: dtype TOSAC_DT_UNKNOWN, rank < 0 or a dimension
 * < 0 is not declared. The error names the .npy file it came from. */
tosac_code cli_check_input(const char *path, const char *name, const tosac_tensor *t,
                           tosac_dtype dtype, int rank, const int64_t *shape, tosac_error *err);
tosac_code cli_write_named_outputs(const char *dir, const char *const *names, int n,
                                   const tosac_tensor *const *outs, tosac_error *err);

#endif
