/* .npy I/O of a graph for the run subcommands (see cli_graph_io.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_graph_io.h"
#include "cli_runtime.h"
#include "tosac/npy.h"
#include "util/fileio.h"
#include "util/format.h"

void cli_parse_input(char *v, cli_input *out)
{
    char *eq = strchr(v, '=');
    out->name = eq ? v : NULL;
    out->path = eq ? eq + 1 : v;
    if (eq)
        *eq = '\0';
}

tosac_code cli_parse_run_args(int argc, char **argv, const char *what, cli_run_args *a,
                              tosac_error *err)
{
    memset(a, 0, sizeof *a);
    a->outdir = ".";
    a->threads = 1;
    bool prog = strcmp(what, "programs") == 0;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        bool in = strcmp(s, "--input") == 0 || strcmp(s, "-i") == 0;
        bool out = strcmp(s, "--output-dir") == 0 || strcmp(s, "-o") == 0;
        bool dump = strcmp(s, "--dump-intermediates") == 0;
        if ((in || out || dump) && i + 1 >= argc)
            return tosac_fail(err, TOSAC_ERR_INPUT, "%s needs a value", s);
        if (in) {
            if (a->n_inputs == CLI_MAX_INPUTS)
                return tosac_fail(err, TOSAC_ERR_INPUT, "more than %d inputs", CLI_MAX_INPUTS);
            cli_parse_input(argv[++i], &a->inputs[a->n_inputs++]);
        } else if (out) {
            a->outdir = argv[++i];
        } else if (dump) {
            a->dump_dir = argv[++i];
        } else if (prog && strcmp(s, "--threads") == 0) {
            if (i + 1 >= argc)
                return tosac_fail(err, TOSAC_ERR_INPUT, "%s needs a value", s);
            tosac_code rc = cli_rt_parse_threads(argv[++i], &a->threads, err);
            if (rc)
                return rc;
        } else if (prog && strcmp(s, "--reference") == 0) {
            a->reference = 1;
        } else if (strcmp(s, "--threads") == 0 || strcmp(s, "--reference") == 0) {
            return tosac_fail(err, TOSAC_ERR_INPUT, "%s applies to programs, not to running %s",
                              s, what);
        } else if (s[0] == '-') {
            return tosac_fail(err, TOSAC_ERR_INPUT, "unknown option '%s' for running %s", s, what);
        } else if (!a->file) {
            a->file = s;
        } else {
            return tosac_fail(err, TOSAC_ERR_INPUT, "unexpected argument '%s'", s);
        }
    }
    return a->file ? TOSAC_OK : tosac_fail(err, TOSAC_ERR_INPUT, "no %s given", what);
}

static int input_slot(const cli_input *in, const char *const *names, int n,
                      const tosac_tensor *vals, tosac_error *err)
{
    if (in->name) {
        for (int i = 0; i < n; i++)
            if (strcmp(names[i], in->name) == 0)
                return i;
        char list[300];
        tosac_fail(err, TOSAC_ERR_INPUT, "there is no input named '%s' (inputs: %s)", in->name,
                   cli_name_list(names, n, list, sizeof list));
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (!vals[i].data)
            return i;
    tosac_fail(err, TOSAC_ERR_INPUT, "more inputs given than there are (%d)", n);
    return -1;
}

tosac_code cli_check_input(const char *path, const char *name, const tosac_tensor *t,
                           tosac_dtype dtype, int rank, const int64_t *shape, tosac_error *err)
{
    int ok = dtype == TOSAC_DT_UNKNOWN || t->dtype == dtype;
    if (rank >= 0) {
        ok = ok && t->rank == rank;
        for (int d = 0; ok && d < rank; d++)
            ok = shape[d] < 0 || shape[d] == t->shape[d];
    }
    if (ok)
        return TOSAC_OK;
    char want[160], got[128];
    size_t n = tosac_format(want, sizeof want, "%s",
                            dtype == TOSAC_DT_UNKNOWN ? "" : tosac_dtype_name(dtype));
    if (rank >= 0) { /* dimensions the graph leaves open print as ? */
        n += tosac_format(want + n, sizeof want - n, "[");
        for (int d = 0; d < rank; d++)
            n += shape[d] < 0 ? tosac_format(want + n, sizeof want - n, "%s?", d ? "," : "")
                              : tosac_format(want + n, sizeof want - n, "%s%lld", d ? "," : "",
                                             (long long)shape[d]);
        tosac_format(want + n, sizeof want - n, "]");
    }
    return tosac_fail(err, TOSAC_ERR_INPUT, "'%s': input '%s' must be %s, got %s%s", path, name,
                      want, tosac_dtype_name(t->dtype),
                      tosac_shape_str(t->rank, t->shape, got, sizeof got));
}

tosac_code cli_load_named_inputs(const cli_run_args *a, const char *const *names, int n,
                                 const tosac_tensor *decl, tosac_tensor *vals, tosac_error *err)
{
    for (int k = 0; k < a->n_inputs; k++) {
        int slot = input_slot(&a->inputs[k], names, n, vals, err);
        if (slot < 0)
            return err->code;
        if (vals[slot].data)
            return tosac_fail(err, TOSAC_ERR_INPUT, "input '%s' is given twice", names[slot]);
        tosac_code rc = tosac_npy_read(a->inputs[k].path, &vals[slot], err);
        if (!rc && decl)
            rc = cli_check_input(a->inputs[k].path, names[slot], &vals[slot], decl[slot].dtype,
                                 decl[slot].rank, decl[slot].shape, err);
        if (rc)
            return rc;
    }
    for (int i = 0; i < n; i++)
        if (!vals[i].data)
            return tosac_fail(err, TOSAC_ERR_INPUT, "input '%s' is not given (use --input "
                              "%s=FILE.npy)", names[i], names[i]);
    return TOSAC_OK;
}

tosac_code cli_load_inputs(const cli_run_args *a, const ir_graph *g, tosac_tensor *vals,
                           tosac_error *err)
{
    const char *names[CLI_MAX_VALUES];
    if (g->n_inputs > CLI_MAX_VALUES)
        return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "more than %d graph inputs",
                          CLI_MAX_VALUES);
    tosac_tensor *decl = calloc((size_t)g->n_inputs + 1, sizeof *decl);
    if (!decl)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    for (int i = 0; i < g->n_inputs; i++) {
        const ir_tensor *t = &g->tensors[g->inputs[i]];
        names[i] = t->name;
        decl[i].dtype = t->dtype;
        decl[i].rank = t->rank;
        for (int d = 0; d < t->rank; d++)
            decl[i].shape[d] = t->shape[d];
    }
    tosac_code rc = cli_load_named_inputs(a, names, g->n_inputs, decl, vals, err);
    free(decl);
    return rc;
}

tosac_code cli_write_named_outputs(const char *dir, const char *const *names, int n,
                                   const tosac_tensor *const *outs, tosac_error *err)
{
    tosac_code rc = tosac_mkdirs(dir, err);
    for (int i = 0; i < n && !rc; i++) {
        char name[256], path[4096];
        tosac_sanitize_name(names[i], name, sizeof name);
        if ((size_t)snprintf(path, sizeof path, "%s/%s.npy", dir, name) >= sizeof path)
            return tosac_fail(err, TOSAC_ERR_INPUT, "output path for '%s' is too long", name);
        rc = tosac_npy_write(path, outs[i], err);
    }
    return rc;
}

tosac_code cli_write_outputs(const char *dir, const ir_graph *g, const tosac_tensor *outs,
                             tosac_error *err)
{
    const char *names[CLI_MAX_VALUES];
    const tosac_tensor *ts[CLI_MAX_VALUES];
    if (g->n_outputs > CLI_MAX_VALUES)
        return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "more than %d graph outputs",
                          CLI_MAX_VALUES);
    for (int i = 0; i < g->n_outputs; i++) {
        names[i] = g->tensors[g->outputs[i]].name;
        ts[i] = &outs[i];
    }
    return cli_write_named_outputs(dir, names, g->n_outputs, ts, err);
}
