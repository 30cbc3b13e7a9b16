/* tosac_compile_file: what compile writes, and when. Nothing destroys work: an output naming
 * the input model (or another output) is refused before anything runs; the program, the
 * report and the --emit-tosa files are written under temporary names and put in place only
 * after the program has passed its read-back check (compile_verify.c) and every file was
 * written; --emit-tosa then drops the <n>.tosa / <n>.json an older compile left there. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/program_internal.h"
#include "tosac/compile.h"
#include "tosac/onnx.h"
#include "util/fileio.h"

/* True when path names an input the command reads: the model or a --calib file. */
static bool is_input(const char *path, const char *model, const tosac_compile_options *o)
{
    if (tosac_same_file(path, model))
        return true;
    for (int i = 0; i < o->n_calib; i++) {
        const char *eq = strchr(o->calib[i], '=');
        if (tosac_file_within(path, o->calib[i]) || (eq && tosac_file_within(path, eq + 1)))
            return true;
    }
    return false;
}

/* -o, --report and --emit-tosa must name neither an input nor each other. */
static tosac_code check_paths(const char *model, const char *out, const tosac_compile_options *o,
                              tosac_error *err)
{
    const char *what[4] = {"-o", "--report", "--emit-tosa", "--emit-mlir"};
    const char *path[4] = {out, o->report_path, o->emit_dir, o->emit_mlir};
    char mp[TOSAC_MSG_PATH];
    for (int i = 0; i < 4; i++) {
        if (!path[i])
            continue;
        if (is_input(path[i], model, o))
            return tosac_fail(err, TOSAC_ERR_INPUT,
                              "%s '%s' names an input of the command (the model or a --calib "
                              "file or a file in a --calib folder): it would be overwritten", what[i],
                              tosac_msg_path(path[i], mp));
        for (int k = 0; k < i; k++)
            if (path[k] && tosac_same_file(path[i], path[k]))
                return tosac_fail(err, TOSAC_ERR_INPUT, "%s and %s both name '%s'", what[k],
                                  what[i], tosac_msg_path(path[i], mp));
    }
    return TOSAC_OK;
}

static tosac_code stage_emit(tosac_stage *st, const tosac_program *p, const char *dir,
                             tosac_error *err)
{
    tosac_code rc = tosac_stage_mkdirs(st, dir, err);
    for (int k = 0; !rc && k < p->n_delegates; k++) {
        char path[4096];
        void *t = NULL;
        size_t tl = 0;
        snprintf(path, sizeof path, "%s/%d.tosa", dir, k);
        rc = tosa_graph_write(p->delegates[k], &t, &tl, err);
        if (!rc)
            rc = tosac_stage_file(st, path, t, tl, err);
        free(t);
        snprintf(path, sizeof path, "%s/%d.json", dir, k);
        if (!rc)
            rc = tosac_stage_file(st, path, p->meta[k], strlen(p->meta[k]), err);
    }
    return rc;
}

/* Every delegate in one MLIR module, func.func @delegate_<n>. */
static tosac_code stage_mlir(tosac_stage *st, const tosac_program *p, const char *path,
                             tosac_error *err)
{
    const char **names = calloc((size_t)p->n_delegates + 1, sizeof *names);
    char *buf = calloc((size_t)p->n_delegates + 1, 24);
    char *text = NULL;
    size_t len = 0;
    tosac_code rc = names && buf ? TOSAC_OK
                                 : tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    for (int k = 0; !rc && k < p->n_delegates; k++) {
        snprintf(buf + 24 * k, 24, "delegate_%d", k);
        names[k] = buf + 24 * k;
    }
    if (!rc)
        rc = tosa_graphs_to_mlir((const tosa_graph *const *)p->delegates, names, p->n_delegates,
                                 &text, &len, err);
    if (!rc)
        rc = tosac_stage_file(st, path, text, len, err);
    free(text);
    free(buf);
    free(names);
    return rc;
}

/* n when name is "<n>.tosa" or "<n>.json" as emit writes it (decimal, no sign, no leading
 * zero), else -1. */
static long delegate_file_number(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (!dot || (strcmp(dot, ".tosa") != 0 && strcmp(dot, ".json") != 0) || dot == name ||
        (name[0] == '0' && dot != name + 1) || dot - name > 9)
        return -1;
    long n = 0;
    for (const char *c = name; c < dot; c++) {
        if (*c < '0' || *c > '9')
            return -1;
        n = n * 10 + (*c - '0');
    }
    return n;
}

/* Removes the delegate files of an older compile (numbers from n_delegates up) from dir;
 * nothing else in dir is touched. */
static tosac_code remove_stale(const char *dir, int n_delegates, tosac_error *err)
{
    char mp[TOSAC_MSG_PATH];
    DIR *d = opendir(dir);
    if (!d) {
        const char *why = strerror(errno);
        return tosac_fail(err, TOSAC_ERR_INPUT, "cannot read directory '%s': %s",
                          tosac_msg_path(dir, mp), why);
    }
    tosac_code rc = TOSAC_OK;
    struct dirent *e;
    while (!rc && (e = readdir(d))) {
        if (delegate_file_number(e->d_name) < n_delegates)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (remove(path) != 0) {
            const char *why = strerror(errno);
            rc = tosac_fail(err, TOSAC_ERR_INPUT, "cannot remove the stale delegate file '%s': "
                            "%s", tosac_msg_path(path, mp), why);
        }
    }
    closedir(d);
    return rc;
}

/* A float model (no quantization operators, a float input or output) for a spec without FP:
 * no operator can be delegated. */
static bool float_model_for_int_spec(const ir_model *m, const tosac_compile_options *o)
{
    tosa_spec spec;
    tosac_error e;
    if (o->quantize || tosa_spec_parse(o->spec ? o->spec : "", &spec, &e) ||
        tosa_spec_supports_float(&spec))
        return false;
    const ir_graph *g = m->graph;
    for (int i = 0; i < g->n_nodes; i++) {
        const char *op = g->nodes[i].op_type;
        size_t n = strlen(op);
        if (strstr(op, "Quantize") || strncmp(op, "QLinear", 7) == 0 ||
            (n > 7 && strcmp(op + n - 7, "Integer") == 0))
            return false;
    }
    bool f = false;
    for (int i = 0; i < g->n_inputs + g->n_outputs; i++) {
        int t = i < g->n_inputs ? g->inputs[i] : g->outputs[i - g->n_inputs];
        f |= tosac_dtype_is_float(g->tensors[t].dtype);
    }
    return f;
}

tosac_code tosac_compile_file_report(const char *model_path, const char *out_path,
                                     const tosac_compile_options *o, char **report,
                                     tosac_error *err)
{
    if (report)
        *report = NULL;
    tosac_code rc = check_paths(model_path, out_path, o, err);
    tosa_spec spec0; /* a bad spec string is its own error, before the model is read */
    if (!rc && o->spec)
        rc = tosa_spec_parse(o->spec, &spec0, err);
    if (rc)
        return rc;
    ir_model *m = NULL;
    rc = onnx_import_file(model_path, &m, err);
    if (!rc && o->quantize)
        rc = tosac_compile_quantize(m, o, err);
    if (rc) {
        ir_model_free(m);
        return rc;
    }
    bool float_on_int = float_model_for_int_spec(m, o);
    tosac_program *p = NULL;
    char *rep = NULL, mp[TOSAC_MSG_PATH];
    void *bytes = NULL;
    size_t len = 0;
    tosa_spec spec;
    tosac_error local; /* the model's problems name its file */
    tosac_error_clear(&local);
    rc = tosac_compile_model(m, o, &p, &rep, &local);
    if (rc)
        rc = tosac_fail(err, rc, "'%s': %s", tosac_msg_path(model_path, mp), local.msg);
    if (!rc && float_on_int && p->n_delegates == 0)
        rc = tosac_fail(err, TOSAC_ERR_UNSUPPORTED,
                        "'%s' is a float model and %s has no FP profile, so nothing can be "
                        "delegated: quantize it (--quantize a8w8 --calib SAMPLES) or add +FP",
                        tosac_msg_path(model_path, mp), o->spec);
    if (!rc) {
        tosac_error_clear(&local);
        rc = tosac_program_build(p, &bytes, &len, &local);
        if (rc)
            rc = tosac_fail(err, rc, "'%s': %s", tosac_msg_path(model_path, mp), local.msg);
    }
    if (!rc)
        rc = tosa_spec_parse(o->spec, &spec, err);
    if (!rc)
        rc = tosac_compile_verify(bytes, len, &spec, err);
    tosac_stage st;
    memset(&st, 0, sizeof st);
    if (!rc)
        rc = tosac_stage_file(&st, out_path, bytes, len, err);
    if (!rc && o->emit_dir)
        rc = stage_emit(&st, p, o->emit_dir, err);
    if (!rc && o->emit_mlir)
        rc = stage_mlir(&st, p, o->emit_mlir, err);
    if (!rc && o->report_path)
        rc = tosac_stage_file(&st, o->report_path, rep, strlen(rep), err);
    if (rc)
        tosac_stage_abort(&st);
    else
        rc = tosac_stage_commit(&st, err);
    if (!rc && o->emit_dir)
        rc = remove_stale(o->emit_dir, p->n_delegates, err);
    free(bytes);
    tosac_program_free(p);
    if (!rc && report)
        *report = rep;
    else
        free(rep);
    return rc;
}

tosac_code tosac_compile_file(const char *model_path, const char *out_path,
                              const tosac_compile_options *o, tosac_error *err)
{
    return tosac_compile_file_report(model_path, out_path, o, NULL, err);
}
