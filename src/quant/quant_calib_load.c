/* Calibration data loading: --calib FILE.npy | NAME=FILE.npy | DIR, checked against the graph
 * inputs (dtype, rank, known dims, finite values) so a wrong file is reported by name before
 * any run. */
#include "tosac/limits.h"
#include "quant/quant_internal.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tosac/npy.h"
#include "util/fileio.h"

#define MAX_SAMPLES TOSAC_LIMIT_CALIB_SAMPLES

typedef struct loader {
    const ir_graph *g;
    quant_calib *c;
    int cap;
    bool open;       /* the last sample is still being filled by NAME=FILE arguments */
} loader;

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int find_input(const ir_graph *g, const char *name, size_t len)
{
    for (int i = 0; i < g->n_inputs; i++) {
        const char *n = g->tensors[g->inputs[i]].name;
        if (strlen(n) == len && strncmp(n, name, len) == 0)
            return i;
    }
    return -1;
}

tosac_code quant_calib_check(const ir_graph *g, const tosac_tensor *t, int input,
                             const char *what, tosac_error *err)
{
    const ir_tensor *in = &g->tensors[g->inputs[input]];
    char a[128], b[128];
    if (in->dtype != TOSAC_DT_UNKNOWN && t->dtype != in->dtype)
        return tosac_fail(err, TOSAC_ERR_INPUT,
                          "calibration input '%s' (%s) has dtype %s, the model expects %s",
                          in->name, what, tosac_dtype_name(t->dtype), tosac_dtype_name(in->dtype));
    bool ok = in->rank < 0 || in->rank == t->rank;
    for (int d = 0; ok && in->rank >= 0 && d < in->rank; d++)
        ok = in->shape[d] < 0 || in->shape[d] == t->shape[d];
    if (!ok)
        return tosac_fail(err, TOSAC_ERR_INPUT,
                          "calibration input '%s' (%s) has shape %s, the model expects %s",
                          in->name, what, tosac_shape_str(t->rank, t->shape, a, sizeof a),
                          ir_tensor_type_str(in, b, sizeof b));
    return TOSAC_OK;
}

static tosac_code new_sample(loader *L, tosac_error *err)
{
    quant_calib *c = L->c;
    if (c->n_samples == MAX_SAMPLES)
        return tosac_fail(err, TOSAC_ERR_INPUT, "more than %d calibration samples", MAX_SAMPLES);
    if (c->n_samples == L->cap) {
        int cap = L->cap ? 2 * L->cap : 8;
        tosac_tensor *t = realloc(c->tensors, (size_t)cap * (size_t)c->n_inputs * sizeof *t);
        if (!t)
            return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        c->tensors = t;
        L->cap = cap;
    }
    memset(&c->tensors[(size_t)c->n_samples * (size_t)c->n_inputs], 0,
           (size_t)c->n_inputs * sizeof *c->tensors);
    c->n_samples++;
    return TOSAC_OK;
}

static tosac_tensor *slot(loader *L, int input)
{
    return &L->c->tensors[(size_t)(L->c->n_samples - 1) * (size_t)L->c->n_inputs + (size_t)input];
}

/* A NaN or inf input makes every range downstream meaningless: refused, by file. */
static tosac_code check_finite(const ir_graph *g, const tosac_tensor *t, int input,
                               const char *path, tosac_error *err)
{
    if (!tosac_dtype_is_float(t->dtype))
        return TOSAC_OK;
    int64_t n = tosac_tensor_numel(t);
    for (int64_t i = 0; i < n; i++) {
        double v = tosac_tensor_f64_at(t, i);
        if (!isfinite(v))
            return tosac_fail(err, TOSAC_ERR_INPUT,
                              "calibration input '%s' (%s): element %lld is %s; calibration "
                              "data must be finite",
                              g->tensors[g->inputs[input]].name, path, (long long)i,
                              isnan(v) ? "NaN" : v > 0 ? "inf" : "-inf");
    }
    return TOSAC_OK;
}

static tosac_code load_into(loader *L, int input, const char *path, tosac_error *err)
{
    tosac_tensor *t = slot(L, input);
    tosac_code rc = tosac_npy_read(path, t, err);
    if (!rc)
        rc = quant_calib_check(L->g, t, input, path, err);
    return rc ? rc : check_finite(L->g, t, input, path, err);
}

/* The sample still being filled is complete only when every input was given. */
static tosac_code close_sample(loader *L, tosac_error *err)
{
    if (!L->open)
        return TOSAC_OK;
    L->open = false;
    for (int i = 0; i < L->c->n_inputs; i++)
        if (!slot(L, i)->data)
            return tosac_fail(err, TOSAC_ERR_INPUT,
                              "calibration sample %d has no value for input '%s' "
                              "(use --calib %s=FILE.npy)",
                              L->c->n_samples, L->g->tensors[L->g->inputs[i]].name,
                              L->g->tensors[L->g->inputs[i]].name);
    return TOSAC_OK;
}

/* One folder holding <input>.npy for every input. */
static tosac_code load_folder(loader *L, const char *dir, tosac_error *err)
{
    tosac_code rc = new_sample(L, err);
    for (int i = 0; i < L->c->n_inputs && !rc; i++) {
        char name[256], path[4096];
        tosac_sanitize_name(L->g->tensors[L->g->inputs[i]].name, name, sizeof name);
        if ((size_t)snprintf(path, sizeof path, "%s/%s.npy", dir, name) >= sizeof path)
            return tosac_fail(err, TOSAC_ERR_INPUT, "calibration path in '%s' is too long", dir);
        if (!is_file(path))
            return tosac_fail(err, TOSAC_ERR_INPUT,
                              "calibration folder '%s' has no file %s.npy for input '%s'", dir,
                              name, L->g->tensors[L->g->inputs[i]].name);
        rc = load_into(L, i, path, err);
    }
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct names {
    char **v;
    int n, cap;
} names;

static tosac_code names_add(names *l, const char *s, tosac_error *err)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        char **v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v)
            return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        l->v = v;
        l->cap = cap;
    }
    if (!(l->v[l->n] = malloc(strlen(s) + 1)))
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    strcpy(l->v[l->n++], s);
    return TOSAC_OK;
}

static void names_free(names *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

static bool ends_npy(const char *s)
{
    size_t n = strlen(s);
    return n > 4 && strcmp(s + n - 4, ".npy") == 0;
}

/* The sample sub-folders and the .npy files of dir, each in name order. */
static tosac_code list_dir(const char *dir, names *subs, names *files, tosac_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return tosac_fail(err, TOSAC_ERR_INPUT, "cannot read calibration folder '%s'", dir);
    tosac_code rc = TOSAC_OK;
    struct dirent *e;
    while (!rc && (e = readdir(d))) {
        char path[4096];
        if (e->d_name[0] == '.' ||
            (size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path)
            continue;
        if (is_dir(path))
            rc = names_add(subs, path, err);
        else if (ends_npy(e->d_name) && is_file(path))
            rc = names_add(files, path, err);
    }
    closedir(d);
    if (subs->n > 1) /* qsort wants a non-NULL base even for no elements */
        qsort(subs->v, (size_t)subs->n, sizeof *subs->v, cmp_str);
    if (files->n > 1)
        qsort(files->v, (size_t)files->n, sizeof *files->v, cmp_str);
    return rc;
}

/* DIR/<sample>/ folders in name order; DIR itself when it holds the input files; or, for a
 * one-input model, DIR's .npy files as one sample each (in name order). */
static tosac_code load_dir(loader *L, const char *dir, tosac_error *err)
{
    char probe[4096], name[256];
    tosac_sanitize_name(L->g->n_inputs ? L->g->tensors[L->g->inputs[0]].name : "", name,
                        sizeof name);
    snprintf(probe, sizeof probe, "%s/%s.npy", dir, name);
    names subs = {0}, files = {0};
    tosac_code rc = list_dir(dir, &subs, &files, err);
    bool one_input = L->c->n_inputs == 1;
    /* <input>.npy alone (or beside other inputs' files) is one sample folder */
    if (!rc && is_file(probe) && (!one_input || files.n == 1)) {
        names_free(&subs);
        names_free(&files);
        return load_folder(L, dir, err);
    }
    if (!rc && subs.n && files.n)
        rc = tosac_fail(err, TOSAC_ERR_INPUT,
                        "calibration folder '%s' holds both sample sub-folders and .npy files; "
                        "use one layout",
                        dir);
    else if (!rc && !subs.n && files.n && !one_input)
        rc = tosac_fail(err, TOSAC_ERR_INPUT,
                        "calibration folder '%s' holds .npy files but no %s.npy: a folder of "
                        "one-file samples is for a one-input model (this one has %d inputs)",
                        dir, name, L->c->n_inputs);
    else if (!rc && !subs.n && !files.n)
        rc = tosac_fail(err, TOSAC_ERR_INPUT,
                        "calibration folder '%s' has neither %s.npy nor sample sub-folders nor "
                        ".npy files",
                        dir, name);
    for (int i = 0; i < subs.n && !rc; i++)
        rc = load_folder(L, subs.v[i], err);
    for (int i = 0; i < files.n && !rc; i++)
        if (!(rc = new_sample(L, err)))
            rc = load_into(L, 0, files.v[i], err);
    names_free(&subs);
    names_free(&files);
    return rc;
}

static tosac_code load_arg(loader *L, const char *arg, tosac_error *err)
{
    const char *eq = strchr(arg, '=');
    int input = eq ? find_input(L->g, arg, (size_t)(eq - arg)) : -1;
    if (eq && input < 0 && !is_file(arg) && !is_dir(arg))
        return tosac_fail(err, TOSAC_ERR_INPUT, "--calib %s: the model has no input named '%.*s'",
                          arg, (int)(eq - arg), arg);
    if (input >= 0) {
        if (L->open && slot(L, input)->data) {
            tosac_code rc = close_sample(L, err);
            if (rc)
                return rc;
        }
        if (!L->open) {
            tosac_code rc = new_sample(L, err);
            if (rc)
                return rc;
            L->open = true;
        }
        return load_into(L, input, eq + 1, err);
    }
    tosac_code rc = close_sample(L, err);
    if (rc)
        return rc;
    if (is_dir(arg))
        return load_dir(L, arg, err);
    if (L->c->n_inputs != 1)
        return tosac_fail(err, TOSAC_ERR_INPUT,
                          "--calib %s: the model has %d inputs; give NAME=FILE.npy for each, "
                          "or a folder of samples",
                          arg, L->c->n_inputs);
    if (!is_file(arg))
        return tosac_fail(err, TOSAC_ERR_INPUT, "--calib %s: no such file or folder", arg);
    if ((rc = new_sample(L, err)))
        return rc;
    return load_into(L, 0, arg, err);
}

tosac_code quant_calib_load(const ir_model *m, const char *const *args, int n_args,
                            quant_calib *out, tosac_error *err)
{
    memset(out, 0, sizeof *out);
    const ir_graph *g = m->graph;
    if (g->n_inputs < 1)
        return tosac_fail(err, TOSAC_ERR_INPUT, "the model has no inputs to calibrate");
    if (n_args < 1)
        return tosac_fail(err, TOSAC_ERR_INPUT, "no calibration data given (--calib)");
    out->n_inputs = g->n_inputs;
    loader L = {g, out, 0, false};
    tosac_code rc = TOSAC_OK;
    for (int a = 0; a < n_args && !rc; a++)
        rc = load_arg(&L, args[a], err);
    if (!rc)
        rc = close_sample(&L, err);
    if (rc)
        quant_calib_free(out);
    return rc;
}

void quant_calib_free(quant_calib *c)
{
    for (int i = 0; c->tensors && i < c->n_samples * c->n_inputs; i++)
        tosac_tensor_free(&c->tensors[i]);
    free(c->tensors);
    memset(c, 0, sizeof *c);
}
