/* tosac run MODEL.onnx: runs the float (or QDQ) model on the CPU executor and writes each
 * graph output as DIR/<name>.npy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cpu/cpu_exec.h"
#include "tosac/npy.h"
#include "tosac/onnx.h"
#include "util/fileio.h"

#define MAX_INPUTS 64

typedef struct run_args {
    const char *model;
    const char *outdir;
    cli_input inputs[MAX_INPUTS];
    int n_inputs;
} run_args;

static tosac_code parse_args(int argc, char **argv, run_args *a, tosac_error *err)
{
    memset(a, 0, sizeof *a);
    a->outdir = ".";
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (strcmp(s, "--input") == 0 || strcmp(s, "-i") == 0) {
            if (i + 1 >= argc)
                return tosac_fail(err, TOSAC_ERR_INPUT, "%s needs a value", s);
            if (a->n_inputs == MAX_INPUTS)
                return tosac_fail(err, TOSAC_ERR_INPUT, "more than %d inputs", MAX_INPUTS);
            char *v = argv[++i];
            char *eq = strchr(v, '=');
            cli_input *in = &a->inputs[a->n_inputs++];
            if (eq) {
                *eq = '\0';
                in->name = v;
                in->path = eq + 1;
            } else {
                in->path = v;
            }
        } else if (strcmp(s, "--output-dir") == 0 || strcmp(s, "-o") == 0) {
            if (i + 1 >= argc)
                return tosac_fail(err, TOSAC_ERR_INPUT, "%s needs a value", s);
            a->outdir = argv[++i];
        } else if (s[0] == '-') {
            return tosac_fail(err, TOSAC_ERR_INPUT, "unknown option '%s' for running ONNX models", s);
        } else if (!a->model) {
            a->model = s;
        } else {
            return tosac_fail(err, TOSAC_ERR_INPUT, "unexpected argument '%s'", s);
        }
    }
    if (!a->model)
        return tosac_fail(err, TOSAC_ERR_INPUT, "no model given");
    return TOSAC_OK;
}

/* Loads the .npy files into graph-input order: named ones by name, the rest positionally. */
static tosac_code load_inputs(const run_args *a, const ir_graph *g, tosac_tensor *vals,
                              tosac_error *err)
{
    int next_pos = 0;
    for (int k = 0; k < a->n_inputs; k++) {
        const cli_input *in = &a->inputs[k];
        int slot = -1;
        if (in->name) {
            for (int i = 0; i < g->n_inputs; i++)
                if (strcmp(g->tensors[g->inputs[i]].name, in->name) == 0)
                    slot = i;
            if (slot < 0)
                return tosac_fail(err, TOSAC_ERR_INPUT, "the model has no input named '%s'",
                                  in->name);
        } else {
            while (next_pos < g->n_inputs && vals[next_pos].data)
                next_pos++;
            if (next_pos >= g->n_inputs)
                return tosac_fail(err, TOSAC_ERR_INPUT, "more inputs given than the model has (%d)",
                                  g->n_inputs);
            slot = next_pos;
        }
        if (vals[slot].data)
            return tosac_fail(err, TOSAC_ERR_INPUT, "input '%s' is given twice",
                              g->tensors[g->inputs[slot]].name);
        tosac_code rc = tosac_npy_read(in->path, &vals[slot], err);
        if (rc)
            return rc;
    }
    for (int i = 0; i < g->n_inputs; i++)
        if (!vals[i].data)
            return tosac_fail(err, TOSAC_ERR_INPUT, "input '%s' is not given (use --input %s=FILE.npy)",
                              g->tensors[g->inputs[i]].name, g->tensors[g->inputs[i]].name);
    return TOSAC_OK;
}

static tosac_code write_outputs(const char *dir, const ir_graph *g, const tosac_tensor *outs,
                                tosac_error *err)
{
    tosac_code rc = tosac_mkdirs(dir, err);
    for (int i = 0; i < g->n_outputs && !rc; i++) {
        char name[256], path[4096];
        tosac_sanitize_name(g->tensors[g->outputs[i]].name, name, sizeof name);
        if ((size_t)snprintf(path, sizeof path, "%s/%s.npy", dir, name) >= sizeof path)
            return tosac_fail(err, TOSAC_ERR_INPUT, "output path for '%s' is too long", name);
        rc = tosac_npy_write(path, &outs[i], err);
    }
    return rc;
}

int run_onnx(int argc, char **argv)
{
    tosac_error err;
    tosac_error_clear(&err);
    run_args a;
    ir_model *m = NULL;
    tosac_tensor *ins = NULL, *outs = NULL;
    int n_in = 0, n_out = 0;
    tosac_code rc = parse_args(argc, argv, &a, &err);
    if (!rc)
        rc = onnx_import_file(a.model, &m, &err);
    if (!rc) {
        n_in = m->graph->n_inputs;
        n_out = m->graph->n_outputs;
        ins = calloc((size_t)n_in + 1, sizeof *ins);
        outs = calloc((size_t)n_out + 1, sizeof *outs);
        if (!ins || !outs)
            rc = tosac_fail(&err, TOSAC_ERR_INTERNAL, "out of memory");
    }
    if (!rc)
        rc = load_inputs(&a, m->graph, ins, &err);
    if (!rc)
        rc = cpu_run_model(m, ins, n_in, outs, n_out, &err);
    if (!rc)
        rc = write_outputs(a.outdir, m->graph, outs, &err);
    for (int i = 0; ins && i < n_in; i++)
        tosac_tensor_free(&ins[i]);
    for (int i = 0; outs && i < n_out; i++)
        tosac_tensor_free(&outs[i]);
    free(ins);
    free(outs);
    ir_model_free(m);
    return rc ? cli_report(&err) : 0;
}
