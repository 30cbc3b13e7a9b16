/* conformance_runner DIR...: runs TOSA conformance tests (shared/conformance/README.md) on
 * the interpreter. DIR is one test folder (holding desc.json) or an operator folder of
 * them. Prints one line per failing test and finally "N passed, M failed"; exit 1 if any
 * failed. Integer and bool outputs must be bit-exact; FP outputs are judged by the
 * compliance mode of meta.compliance.tensors[<output name>]. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compliance.h"
#include "interp/interp_internal.h"
#include "interp/interp_io.h"
#include "tosac/interp.h"
#include "tosac/npy.h"
#include "util/json.h"

static const char *join(char *buf, size_t len, const char *dir, const char *file)
{
    if (snprintf(buf, len, "%s/%s", dir, file) >= (int)len)
        buf[0] = '\0'; /* too long: an empty path fails to open, with a message */
    return buf;
}

/* Loads dir/<file> and retags it to the graph's dtype `want` (I48 comes as int64, etc.). */
static tosac_code load(const char *dir, const char *file, tosac_dtype want, tosac_tensor *t,
                       tosac_error *err)
{
    char path[4096];
    if (!file)
        return tosac_fail(err, TOSAC_ERR_INPUT, "desc.json names no file");
    if (tosac_npy_read(join(path, sizeof path, dir, file), t, err))
        return err->code;
    if (want != TOSAC_DT_UNKNOWN && interp_adapt_tensor(t, want, file, err)) {
        tosac_tensor_free(t);
        return err->code;
    }
    return TOSAC_OK;
}

static bool same_shape(const tosac_tensor *a, const tosac_tensor *b)
{
    return tosac_shape_equal(a->rank, a->shape, b->rank, b->shape);
}

/* Element i of t as double (F64 data as is, the rest through the interpreter's reader). */
static double as_double(const tosac_tensor *t, int64_t i)
{
    return t->dtype == TOSAC_DT_F64 ? ((const double *)t->data)[i] : (double)interp_get_float(t, i);
}

/* Loads an fp64 reference file as a double array (caller frees), checking its shape. */
static double *load_doubles(const char *dir, const char *file, const tosac_tensor *like,
                            tosac_error *err)
{
    tosac_tensor t;
    if (load(dir, file, TOSAC_DT_UNKNOWN, &t, err))
        return NULL;
    int64_t n = tosac_tensor_numel(&t);
    double *v = NULL;
    if (!same_shape(&t, like))
        tosac_fail(err, TOSAC_ERR_INPUT, "%s has another shape than the output", file);
    else if (!(v = malloc((size_t)(n ? n : 1) * sizeof *v)))
        tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    else
        for (int64_t i = 0; i < n; i++)
            v[i] = as_double(&t, i);
    tosac_tensor_free(&t);
    return v;
}

static tosac_code check_exact_int(const tosac_tensor *got, const tosac_tensor *exp,
                                  tosac_error *err)
{
    int64_t n = tosac_tensor_numel(got);
    for (int64_t i = 0; i < n; i++) {
        int64_t a = interp_get_int(got, i), b = interp_get_int(exp, i);
        if (a != b)
            return tosac_fail(err, TOSAC_ERR_INPUT, "element %lld: got %lld, expected %lld",
                              (long long)i, (long long)a, (long long)b);
    }
    return TOSAC_OK;
}

static tosac_code check_fp(const char *dir, const tosac_json *desc_out, const tosac_json *meta,
                           const tosac_tensor *got, const tosac_tensor *exp, tosac_error *err)
{
    cmp_rule rule;
    if (cmp_rule_from_json(meta, &rule, err))
        return err->code;
    int64_t n = tosac_tensor_numel(got);
    const char *precise = tosac_json_string(tosac_json_get(desc_out, "precise_file"));
    const char *bounds = tosac_json_string(tosac_json_get(desc_out, "bounds_file"));
    double *imp = malloc((size_t)(n ? n : 1) * sizeof *imp), *ref = NULL, *bnd = NULL;
    tosac_code rc = TOSAC_OK;
    if (!imp) {
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        goto out;
    }
    for (int64_t i = 0; i < n; i++)
        imp[i] = as_double(got, i);
    if (precise) {
        ref = load_doubles(dir, precise, got, err);
    } else { /* no fp64 reference: judge against the expected file's values */
        ref = malloc((size_t)(n ? n : 1) * sizeof *ref);
        if (ref)
            for (int64_t i = 0; i < n; i++)
                ref[i] = as_double(exp, i);
    }
    if (!ref) {
        rc = err->code ? err->code : tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        goto out;
    }
    if (bounds && !(bnd = load_doubles(dir, bounds, got, err))) {
        rc = err->code;
        goto out;
    }
    char why[400];
    if (!cmp_check(&rule, imp, ref, bnd, n, why, sizeof why))
        rc = tosac_fail(err, TOSAC_ERR_INPUT, "%s: %s",
                        tosac_json_string(tosac_json_get(meta, "mode")), why);
out:
    free(imp);
    free(ref);
    free(bnd);
    return rc;
}

/* Compares output k (graph output `got`) with the files desc.json names for it. */
static tosac_code check_output(const char *dir, const tosac_json *desc, const tosac_json *o,
                               const tosac_tensor *got, tosac_error *err)
{
    const char *name = tosac_json_string(tosac_json_get(o, "name"));
    tosac_error local;
    tosac_error_clear(&local);
    tosac_tensor exp;
    tosac_code rc = load(dir, tosac_json_string(tosac_json_get(o, "file")), got->dtype, &exp, &local);
    bool loaded = rc == TOSAC_OK;
    char a[160], b[160];
    if (!loaded) {
        /* reported below */
    } else if (!same_shape(got, &exp)) {
        rc = tosac_fail(&local, TOSAC_ERR_INPUT, "shape %s, expected %s",
                        tosac_shape_str(got->rank, got->shape, a, sizeof a),
                        tosac_shape_str(exp.rank, exp.shape, b, sizeof b));
    } else if (!tosac_dtype_is_float(got->dtype)) {
        rc = check_exact_int(got, &exp, &local);
    } else {
        const tosac_json *tensors = tosac_json_get(
            tosac_json_get(tosac_json_get(desc, "meta"), "compliance"), "tensors");
        const tosac_json *meta = tosac_json_get(tensors, name);
        rc = meta ? check_fp(dir, o, meta, got, &exp, &local)
                  : tosac_fail(&local, TOSAC_ERR_INPUT, "no compliance entry");
    }
    if (loaded)
        tosac_tensor_free(&exp);
    if (rc)
        return tosac_fail(err, rc, "output '%s': %s", name ? name : "?", local.msg);
    return TOSAC_OK;
}

static tosac_code run_test(const char *dir, tosac_error *err)
{
    char path[4096];
    tosac_json *desc = NULL;
    tosa_graph *g = NULL;
    tosac_tensor *ins = NULL, *outs = NULL;
    int n_in = 0, n_out = 0;
    tosac_code rc = tosac_json_parse_file(join(path, sizeof path, dir, "desc.json"), &desc, err);
    if (!rc)
        rc = tosa_graph_read_file(join(path, sizeof path, dir, "test.tosa"), &g, err);
    const tosa_block *main = rc ? NULL : tosa_graph_main_block(g);
    if (!rc && !main)
        rc = tosac_fail(err, TOSAC_ERR_INPUT, "test.tosa has no main block");
    if (rc)
        goto out;
    /* Inputs in block order, found by name in desc.inputs. */
    const tosac_json *dins = tosac_json_get(desc, "inputs"), *douts = tosac_json_get(desc, "outputs");
    ins = calloc((size_t)main->n_inputs + 1, sizeof *ins);
    outs = calloc((size_t)main->n_outputs + 1, sizeof *outs);
    if (!ins || !outs) {
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        goto out;
    }
    for (; n_in < main->n_inputs; n_in++) {
        const tosa_tensor *decl = &main->tensors[main->inputs[n_in]];
        const tosac_json *d = NULL;
        for (int k = 0; k < tosac_json_count(dins) && !d; k++)
            if (tosac_json_string(tosac_json_get(tosac_json_at(dins, k), "name")) &&
                strcmp(tosac_json_string(tosac_json_get(tosac_json_at(dins, k), "name")), decl->name) == 0)
                d = tosac_json_at(dins, k);
        if (!d) {
            rc = tosac_fail(err, TOSAC_ERR_INPUT, "graph input '%s' is not in desc.json", decl->name);
            goto out;
        }
        if ((rc = load(dir, tosac_json_string(tosac_json_get(d, "file")), decl->dtype, &ins[n_in], err)))
            goto out;
    }
    n_out = main->n_outputs;
    if ((rc = tosa_interp_run(g, ins, n_in, outs, n_out, err)))
        goto out;
    if (tosac_json_count(douts) != n_out) {
        rc = tosac_fail(err, TOSAC_ERR_INPUT, "desc.json lists %d outputs, the graph has %d",
                        tosac_json_count(douts), n_out);
        goto out;
    }
    for (int k = 0; k < n_out && !rc; k++) {
        const tosac_json *o = tosac_json_at(douts, k);
        const char *name = tosac_json_string(tosac_json_get(o, "name"));
        int idx = -1;
        for (int j = 0; j < n_out; j++)
            if (name && strcmp(main->tensors[main->outputs[j]].name, name) == 0)
                idx = j;
        if (idx < 0)
            rc = tosac_fail(err, TOSAC_ERR_INPUT, "desc output '%s' is not a graph output",
                            name ? name : "?");
        else
            rc = check_output(dir, desc, o, &outs[idx], err);
    }
out:
    for (int i = 0; i < n_in; i++)
        tosac_tensor_free(&ins[i]);
    for (int i = 0; ins && outs && i < n_out; i++)
        tosac_tensor_free(&outs[i]);
    free(ins);
    free(outs);
    tosa_graph_free(g);
    tosac_json_free(desc);
    return rc;
}

static bool has_desc(const char *dir)
{
    char path[4096];
    struct stat st;
    return stat(join(path, sizeof path, dir, "desc.json"), &st) == 0;
}

static void run_one(const char *dir, int *passed, int *failed)
{
    tosac_error err;
    tosac_error_clear(&err);
    if (run_test(dir, &err) == TOSAC_OK) {
        (*passed)++;
        return;
    }
    const char *slash = strrchr(dir, '/');
    printf("FAIL %s: %s\n", slash ? slash + 1 : dir, err.msg);
    (*failed)++;
}

static int filter_dirs(const struct dirent *e)
{
    return e->d_name[0] != '.';
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: conformance_runner DIR...\n");
        return 2;
    }
    int passed = 0, failed = 0;
    for (int a = 1; a < argc; a++) {
        if (has_desc(argv[a])) {
            run_one(argv[a], &passed, &failed);
            continue;
        }
        struct dirent **list;
        int n = scandir(argv[a], &list, filter_dirs, alphasort);
        if (n < 0) {
            printf("FAIL %s: cannot read the folder\n", argv[a]);
            failed++;
            continue;
        }
        for (int i = 0; i < n; i++) {
            char sub[4096];
            join(sub, sizeof sub, argv[a], list[i]->d_name);
            if (has_desc(sub))
                run_one(sub, &passed, &failed);
            free(list[i]);
        }
        free(list);
    }
    printf("%d passed, %d failed\n", passed, failed);
    /* A folder without a single test is missing data, not a pass. */
    if (passed + failed == 0) {
        printf("FAIL no conformance test (no desc.json) under %s\n", argv[1]);
        return 1;
    }
    return failed > 0 ? 1 : 0;
}
