/* tosac run GRAPH.tosa --input [NAME=]FILE.npy ... [--output-dir DIR]
 * Runs the graph's main block on the interpreter and writes every output as
 * DIR/<sanitized output name>.npy. Inputs bind by tensor name, or in graph input order
 * when NAME= is left out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_graph_io.h"
#include "interp/interp_io.h"
#include "tosac/interp.h"
#include "tosac/npy.h"
#include "util/fileio.h"

#define MAX_ARGS_INPUTS 256

typedef struct run_args {
    const char *graph;
    const char *out_dir;
    cli_input inputs[MAX_ARGS_INPUTS];
    int n_inputs;
} run_args;

static tosac_code parse_args(int argc, char **argv, run_args *a, tosac_error *err)
{
    memset(a, 0, sizeof *a);
    a->out_dir = ".";
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        bool is_input = strcmp(s, "--input") == 0 || strcmp(s, "-i") == 0;
        bool is_dir = strcmp(s, "--output-dir") == 0 || strcmp(s, "-o") == 0;
        if (is_input || is_dir) {
            if (i + 1 >= argc || argv[i + 1][0] == '\0')
                return tosac_fail(err, TOSAC_ERR_INPUT, "%s needs a value", s);
            const char *v = argv[++i];
            if (is_dir) {
                a->out_dir = v;
                continue;
            }
            if (a->n_inputs == MAX_ARGS_INPUTS)
                return tosac_fail(err, TOSAC_ERR_INPUT, "more than %d --input options", MAX_ARGS_INPUTS);
            a->inputs[a->n_inputs++] = (cli_input){NULL, v};
        } else if (s[0] == '-') {
            return tosac_fail(err, TOSAC_ERR_INPUT, "unknown option '%s' (try 'tosac run --help')", s);
        } else if (a->graph) {
            return tosac_fail(err, TOSAC_ERR_INPUT, "more than one graph given ('%s', '%s')", a->graph, s);
        } else {
            a->graph = s;
        }
    }
    return TOSAC_OK;
}

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Splits each --input into NAME and FILE. "a=b.npy" is named input a, unless "a" is no
 * input of the graph and the whole text is an existing file (a path holding '='). */
static tosac_code resolve_names(run_args *a, const tosa_block *m, char **owned, tosac_error *err)
{
    for (int i = 0; i < a->n_inputs; i++) {
        const char *v = a->inputs[i].path;
        const char *eq = strchr(v, '=');
        if (!eq)
            continue;
        char *name = strndup(v, (size_t)(eq - v));
        if (!name)
            return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        bool known = false;
        for (int k = 0; k < m->n_inputs; k++)
            known |= strcmp(m->tensors[m->inputs[k]].name, name) == 0;
        if (!known && file_exists(v)) {
            free(name);
            continue;
        }
        if (!known) {
            const char *names[64];
            int nn = 0;
            for (int k = 0; k < m->n_inputs && nn < 64; k++)
                names[nn++] = m->tensors[m->inputs[k]].name;
            char list[300];
            tosac_fail(err, TOSAC_ERR_INPUT, "the graph has no input named '%s' (inputs: %s)", name,
                       cli_name_list(names, nn, list, sizeof list));
            free(name);
            return TOSAC_ERR_INPUT;
        }
        owned[i] = name;
        a->inputs[i].name = name;
        a->inputs[i].path = eq + 1;
    }
    return TOSAC_OK;
}

/* slot[k] = which --input feeds block input k: named ones first, then positional ones in
 * order into the remaining slots. */
static tosac_code assign_slots(const run_args *a, const tosa_block *m, int *slot, tosac_error *err)
{
    for (int k = 0; k < m->n_inputs; k++)
        slot[k] = -1;
    for (int i = 0; i < a->n_inputs; i++) {
        if (!a->inputs[i].name)
            continue;
        for (int k = 0; k < m->n_inputs; k++)
            if (strcmp(m->tensors[m->inputs[k]].name, a->inputs[i].name) == 0) {
                if (slot[k] >= 0)
                    return tosac_fail(err, TOSAC_ERR_INPUT, "input '%s' is given twice", a->inputs[i].name);
                slot[k] = i;
            }
    }
    int next = 0;
    for (int i = 0; i < a->n_inputs; i++) {
        if (a->inputs[i].name)
            continue;
        while (next < m->n_inputs && slot[next] >= 0)
            next++;
        if (next == m->n_inputs)
            return tosac_fail(err, TOSAC_ERR_INPUT, "too many inputs: the graph takes %d", m->n_inputs);
        slot[next] = i;
    }
    for (int k = 0; k < m->n_inputs; k++)
        if (slot[k] < 0)
            return tosac_fail(err, TOSAC_ERR_INPUT, "input '%s' is missing (--input %s=FILE.npy)",
                              m->tensors[m->inputs[k]].name, m->tensors[m->inputs[k]].name);
    return TOSAC_OK;
}

static tosac_code write_outputs(const char *dir, const tosa_block *m, const tosac_tensor *outs,
                                tosac_error *err)
{
    size_t dl = strlen(dir);
    char (*files)[1024] = calloc((size_t)m->n_outputs + 1, sizeof *files);
    if (!files)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    tosac_code rc = TOSAC_OK;
    /* Name every file first so a collision fails before anything is written. */
    for (int k = 0; k < m->n_outputs && !rc; k++) {
        char base[512];
        tosac_sanitize_name(m->tensors[m->outputs[k]].name, base, sizeof base);
        if (dl + strlen(base) + 6 > sizeof files[k])
            rc = tosac_fail(err, TOSAC_ERR_INPUT, "output path too long in '%s'", dir);
        else
            snprintf(files[k], sizeof files[k], "%s/%s.npy", dir, base);
        for (int j = 0; j < k && !rc; j++)
            if (strcmp(files[j], files[k]) == 0)
                rc = tosac_fail(err, TOSAC_ERR_INPUT, "outputs '%s' and '%s' would both be written to %s",
                                m->tensors[m->outputs[j]].name, m->tensors[m->outputs[k]].name, files[k]);
    }
    if (!rc)
        rc = tosac_mkdirs(dir, err);
    for (int k = 0; k < m->n_outputs && !rc; k++) {
        tosac_tensor t;
        rc = interp_to_npy_tensor(&outs[k], &t, err);
        if (rc)
            break;
        rc = tosac_npy_write(files[k], &t, err);
        tosac_tensor_free(&t);
        if (!rc) {
            char sh[160];
            printf("%s: %s%s\n", files[k], tosac_dtype_name(outs[k].dtype),
                   tosac_shape_str(outs[k].rank, outs[k].shape, sh, sizeof sh));
        }
    }
    free(files);
    return rc;
}

int run_tosa(int argc, char **argv)
{
    tosac_error err;
    tosac_error_clear(&err);
    run_args a;
    tosa_graph *g = NULL;
    char *owned[MAX_ARGS_INPUTS] = {0};
    tosac_tensor *ins = NULL, *outs = NULL;
    int n_loaded = 0, n_out = 0;
    int *slot = NULL;
    tosac_code rc = parse_args(argc, argv, &a, &err);
    if (!rc && !a.graph)
        rc = tosac_fail(&err, TOSAC_ERR_INPUT, "run needs a graph file");
    if (!rc)
        rc = tosa_graph_read_file(a.graph, &g, &err);
    const tosa_block *m = rc ? NULL : tosa_graph_main_block(g);
    if (!rc && !m)
        rc = tosac_fail(&err, TOSAC_ERR_INPUT, "'%s' has no main block", a.graph);
    if (rc)
        goto out;
    slot = calloc((size_t)m->n_inputs + 1, sizeof *slot);
    ins = calloc((size_t)m->n_inputs + 1, sizeof *ins);
    outs = calloc((size_t)m->n_outputs + 1, sizeof *outs);
    if (!slot || !ins || !outs) {
        rc = tosac_fail(&err, TOSAC_ERR_INTERNAL, "out of memory");
        goto out;
    }
    if ((rc = resolve_names(&a, m, owned, &err)) || (rc = assign_slots(&a, m, slot, &err)))
        goto out;
    for (; n_loaded < m->n_inputs; n_loaded++) {
        const tosa_tensor *decl = &m->tensors[m->inputs[n_loaded]];
        char what[300];
        const char *path = a.inputs[slot[n_loaded]].path;
        snprintf(what, sizeof what, "'%s': input '%s'", path, decl->name);
        if ((rc = tosac_npy_read(path, &ins[n_loaded], &err)))
            goto out;
        /* the dtype is adapted below (an int64 file for an i48 input, ...): the shape only */
        if ((rc = cli_check_input(path, decl->name, &ins[n_loaded], TOSAC_DT_UNKNOWN, decl->rank,
                                  decl->shape, &err)) ||
            (rc = interp_adapt_tensor(&ins[n_loaded], decl->dtype, what, &err))) {
            n_loaded++; /* interp_adapt_tensor leaves it allocated */
            goto out;
        }
    }
    n_out = m->n_outputs;
    if ((rc = tosa_interp_run(g, ins, n_loaded, outs, n_out, &err)))
        goto out;
    rc = write_outputs(a.out_dir, m, outs, &err);
out:
    for (int i = 0; ins && i < n_loaded; i++)
        tosac_tensor_free(&ins[i]);
    for (int i = 0; outs && i < n_out; i++)
        tosac_tensor_free(&outs[i]);
    for (int i = 0; i < MAX_ARGS_INPUTS; i++)
        free(owned[i]);
    free(slot);
    free(ins);
    free(outs);
    tosa_graph_free(g);
    return rc ? cli_report(&err) : 0;
}
