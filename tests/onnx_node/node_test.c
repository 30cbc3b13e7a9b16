/* ONNX backend node tests (/usr/share/libonnx-testdata/data/node/<case>/): each case is a
 * one-operator model.onnx with test_data_set_N/input_N.pb and output_N.pb TensorProtos.
 *
 * A case is runnable when our importer loads its model. It passes when every data set runs
 * and every output matches: same dtype and shape, integers and bools exact, floats within
 * the ONNX backend-test tolerance |got - expected| <= 1e-7 + 1e-3 * |expected| (NaN matches
 * NaN, infinities must agree).
 *
 * Usage: node_test DATA_DIR [--expect LIST [--status STATUS.md]] [--list-failures]
 *   Prints "node tests: N passed, M failed, K not runnable". With --expect, exits 1 when a
 *   case named in LIST (one name a line, '#' comments) does not pass. With --status too,
 *   every case must be in exactly one of LIST and STATUS.md's case list (lines
 *   "- test_x (failed|not runnable): reason"), each listed case must still fail that way
 *   (an unexpected pass is an error until it moves to LIST), and STATUS.md's
 *   "**node tests: N passed, M failed, K not runnable**" line must give the counts: a
 *   regression can only turn green by a visible STATUS.md entry with its reason.
 *   --list-failures prints each failing / not runnable case with its reason. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_exec.h"
#include "kernels/kern.h"
#include "tosac/onnx.h"

enum { PASS, FAIL, NOT_RUNNABLE };

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted directory entries (not starting with '.') matching prefix; returns the count. */
static int list_dir(const char *path, const char *prefix, char ***out)
{
    DIR *d = opendir(path);
    int n = 0, cap = 0;
    char **v = NULL;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.' || strncmp(e->d_name, prefix, strlen(prefix)) != 0)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            v = realloc(v, (size_t)cap * sizeof *v);
        }
        v[n++] = strdup(e->d_name);
    }
    if (d)
        closedir(d);
    if (n)
        qsort(v, (size_t)n, sizeof *v, cmp_str);
    *out = v;
    return n;
}

static void free_list(char **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static int close_enough(double g, double e)
{
    if (isnan(e) || isnan(g))
        return isnan(e) && isnan(g);
    if (isinf(e) || isinf(g))
        return g == e;
    return fabs(g - e) <= 1e-7 + 1e-3 * fabs(e);
}

static int compare(const tosac_tensor *got, const tosac_tensor *exp, char *why, size_t len)
{
    if (got->dtype != exp->dtype || got->rank != exp->rank ||
        memcmp(got->shape, exp->shape, sizeof(int64_t) * (size_t)got->rank) != 0) {
        char a[128], b[128];
        snprintf(why, len, "got %s%s, expected %s%s", tosac_dtype_name(got->dtype),
                 tosac_shape_str(got->rank, got->shape, a, sizeof a), tosac_dtype_name(exp->dtype),
                 tosac_shape_str(exp->rank, exp->shape, b, sizeof b));
        return 0;
    }
    int64_t n = tosac_tensor_numel(exp);
    int is_float = tosac_dtype_is_float(exp->dtype);
    for (int64_t i = 0; i < n; i++) {
        if (is_float) {
            double g = kern_get_f64(got->dtype, got->data, i), e = kern_get_f64(exp->dtype, exp->data, i);
            if (!close_enough(g, e)) {
                snprintf(why, len, "element %lld is %.9g, expected %.9g", (long long)i, g, e);
                return 0;
            }
        } else if (exp->dtype == TOSAC_DT_U64
                       ? ((const uint64_t *)got->data)[i] != ((const uint64_t *)exp->data)[i]
                       : kern_get_i64(got->dtype, got->data, i) != kern_get_i64(exp->dtype, exp->data, i)) {
            snprintf(why, len, "element %lld is %lld, expected %lld", (long long)i,
                     (long long)kern_get_i64(got->dtype, got->data, i),
                     (long long)kern_get_i64(exp->dtype, exp->data, i));
            return 0;
        }
    }
    return 1;
}

/* ONNX's test generator stores bfloat16 data as UINT16 TensorProtos (numpy has no bfloat16):
 * the bits are the bf16 values, so a u16 tensor where the model declares bf16 is relabelled. */
static void bf16_from_u16(tosac_tensor *t, const ir_tensor *declared)
{
    if (t->dtype == TOSAC_DT_U16 && declared->dtype == TOSAC_DT_BF16)
        t->dtype = TOSAC_DT_BF16;
}

/* Runs one data set; 1 if it passes, else 0 with why. */
static int run_set(const ir_model *m, cpu_plan *plan, const char *dir, char *why, size_t len)
{
    const ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int ok = 0;
    tosac_tensor *ins = calloc((size_t)g->n_inputs + 1, sizeof *ins);
    tosac_tensor *outs = calloc((size_t)g->n_outputs + 1, sizeof *outs);
    char path[8192 + 64];
    tosac_code rc = TOSAC_OK;
    for (int i = 0; i < g->n_inputs && !rc; i++) {
        snprintf(path, sizeof path, "%s/input_%d.pb", dir, i);
        rc = onnx_read_tensor_file(path, &ins[i], NULL, &err);
        if (!rc)
            bf16_from_u16(&ins[i], &g->tensors[g->inputs[i]]);
    }
    if (!rc)
        rc = cpu_plan_run(plan, ins, g->n_inputs, outs, g->n_outputs, &err);
    if (rc)
        snprintf(why, len, "%s", err.msg);
    for (int i = 0; i < g->n_outputs && !rc; i++) {
        tosac_tensor exp;
        snprintf(path, sizeof path, "%s/output_%d.pb", dir, i);
        if ((rc = onnx_read_tensor_file(path, &exp, NULL, &err))) {
            snprintf(why, len, "expected output %d: %s", i, err.msg);
            break;
        }
        bf16_from_u16(&exp, &g->tensors[g->outputs[i]]);
        char w[400];
        if (!compare(&outs[i], &exp, w, sizeof w)) {
            snprintf(why, len, "output %d (%s): %s", i, g->tensors[g->outputs[i]].name, w);
            rc = TOSAC_ERR_INPUT;
        }
        tosac_tensor_free(&exp);
    }
    ok = rc == TOSAC_OK;
    for (int i = 0; i < g->n_inputs; i++)
        tosac_tensor_free(&ins[i]);
    for (int i = 0; i < g->n_outputs; i++)
        tosac_tensor_free(&outs[i]);
    free(ins);
    free(outs);
    return ok;
}

static int run_case(const char *root, const char *name, char *why, size_t len)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/%s/model.onnx", root, name);
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *m;
    if (onnx_import_file(path, &m, &err)) {
        snprintf(why, len, "import: %s", err.msg);
        return NOT_RUNNABLE;
    }
    cpu_plan *plan;
    if (cpu_plan_create(m->graph, ir_model_opset(m, ""), &plan, &err)) {
        snprintf(why, len, "%s", err.msg);
        ir_model_free(m);
        return FAIL;
    }
    snprintf(path, sizeof path, "%s/%s", root, name);
    char **sets;
    int ns = list_dir(path, "test_data_set_", &sets), result = ns ? PASS : FAIL;
    if (!ns)
        snprintf(why, len, "no test data sets");
    for (int i = 0; i < ns && result == PASS; i++) {
        snprintf(path, sizeof path, "%s/%s/%s", root, name, sets[i]);
        if (!run_set(m, plan, path, why, len))
            result = FAIL;
    }
    free_list(sets, ns);
    cpu_plan_free(plan);
    ir_model_free(m);
    return result;
}

/* Reads the expected-pass list; returns the count (names malloc'd). */
static int read_list(const char *path, char ***out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[512], **v = NULL;
    int n = 0, cap = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n#")] = '\0';
        char *s = line;
        while (*s == ' ')
            s++;
        size_t l = strlen(s);
        while (l && s[l - 1] == ' ')
            s[--l] = '\0';
        if (!l)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            v = realloc(v, (size_t)cap * sizeof *v);
        }
        v[n++] = strdup(s);
    }
    fclose(f);
    *out = v;
    return n;
}

/* STATUS.md's case list: names[i] with kind[i] (FAIL / NOT_RUNNABLE); -1 when unreadable or
 * a line is malformed (printed). *summary gets the counts of its bold summary line. */
static int read_status(const char *path, char ***names, int **kind, int summary[3])
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[1024], **v = NULL;
    int *k = NULL, n = 0, cap = 0, bad = 0;
    summary[0] = summary[1] = summary[2] = -1;
    while (fgets(line, sizeof line, f)) {
        sscanf(line, "**node tests: %d passed, %d failed, %d not runnable**", &summary[0],
               &summary[1], &summary[2]);
        if (strncmp(line, "- test_", 7) != 0)
            continue;
        char name[256], what[32];
        int used = 0;
        if (sscanf(line + 2, "%255s (%31[a-z ]):%n", name, what, &used) != 2 || !used ||
            (strcmp(what, "failed") && strcmp(what, "not runnable")) ||
            strspn(line + 2 + used, " \r\n") == strlen(line + 2 + used)) {
            printf("FAIL %s: malformed case line (want \"- test_x (failed|not runnable): "
                   "reason\"): %s", path, line);
            bad = 1;
            continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            v = realloc(v, (size_t)cap * sizeof *v);
            k = realloc(k, (size_t)cap * sizeof *k);
        }
        k[n] = strcmp(what, "failed") == 0 ? FAIL : NOT_RUNNABLE;
        v[n++] = strdup(name);
    }
    fclose(f);
    *names = v;
    *kind = k;
    if (bad) {
        free_list(v, n);
        free(k);
        return -1;
    }
    return n;
}

static int index_of(char **v, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (strcmp(v[i], s) == 0)
            return i;
    return -1;
}

/* Every case in exactly one of the pass list and STATUS.md, each as it is listed. */
static int check_status(const char *path, char **cases, const int *result, int nc, char **exp,
                        int ne, const int counts[3])
{
    char **st;
    int *kind, summary[3];
    int ns = read_status(path, &st, &kind, summary);
    if (ns < 0) {
        printf("FAIL cannot read the case list of %s\n", path);
        return 1;
    }
    int status = 0;
    static const char *const kinds[3] = {"passes", "fails", "is not runnable"};
    for (int i = 0; i < nc; i++) {
        int e = index_of(exp, ne, cases[i]), s = index_of(st, ns, cases[i]);
        if (e >= 0 && s >= 0) {
            printf("STATUS %s is both expected to pass and listed in %s\n", cases[i], path);
            status = 1;
        } else if (e < 0 && s < 0) {
            printf("STATUS %s %s but is in neither the pass list nor %s\n", cases[i],
                   kinds[result[i]], path);
            status = 1;
        } else if (s >= 0 && result[i] != kind[s]) {
            printf("STATUS %s %s, %s lists it as %s%s\n", cases[i], kinds[result[i]], path,
                   kind[s] == FAIL ? "failed" : "not runnable",
                   result[i] == PASS ? ": move it to the pass list" : "");
            status = 1;
        }
    }
    for (int s = 0; s < ns; s++)
        if (index_of(cases, nc, st[s]) < 0) {
            printf("STATUS %s (listed in %s) is not a case of the data\n", st[s], path);
            status = 1;
        }
    if (summary[0] != counts[PASS] || summary[1] != counts[FAIL] ||
        summary[2] != counts[NOT_RUNNABLE]) {
        printf("STATUS %s says %d passed, %d failed, %d not runnable; the run gives %d, %d, %d\n",
               path, summary[0], summary[1], summary[2], counts[PASS], counts[FAIL],
               counts[NOT_RUNNABLE]);
        status = 1;
    }
    printf("%d cases listed in %s: %s\n", ns, path, status ? "mismatches above" : "as listed");
    free_list(st, ns);
    free(kind);
    return status;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: node_test DATA_DIR [--expect LIST] [--list-failures] [CASE...]\n");
        return 2;
    }
    const char *root = argv[1], *expect_path = NULL, *status_path = NULL;
    int list_failures = 0, n_only = 0;
    char **only = calloc((size_t)argc, sizeof *only);
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--expect") == 0 && i + 1 < argc)
            expect_path = argv[++i];
        else if (strcmp(argv[i], "--status") == 0 && i + 1 < argc)
            status_path = argv[++i];
        else if (strcmp(argv[i], "--list-failures") == 0)
            list_failures = 1;
        else
            only[n_only++] = argv[i];
    }
    char **cases;
    int nc = n_only ? n_only : list_dir(root, "test_", &cases);
    if (n_only)
        cases = only;
    if (nc <= 0) {
        printf("FAIL no node test cases under %s\n", root);
        return 1;
    }
    int *result = calloc((size_t)nc, sizeof *result);
    int counts[3] = {0, 0, 0};
    for (int i = 0; i < nc; i++) {
        char why[600] = "";
        result[i] = run_case(root, cases[i], why, sizeof why);
        counts[result[i]]++;
        if (result[i] != PASS && (list_failures || n_only))
            printf("%s %s: %s\n", result[i] == FAIL ? "FAIL" : "SKIP", cases[i], why);
        else if (n_only)
            printf("PASS %s\n", cases[i]);
    }
    printf("node tests: %d passed, %d failed, %d not runnable\n", counts[PASS], counts[FAIL],
           counts[NOT_RUNNABLE]);
    printf("node tests: %d of %d runnable pass (onnxruntime 1.30: 859 of 896)\n", counts[PASS],
           counts[PASS] + counts[FAIL]);
    int status = 0;
    if (expect_path) {
        char **exp;
        int ne = read_list(expect_path, &exp);
        if (ne < 0) {
            printf("FAIL cannot read %s\n", expect_path);
            return 1;
        }
        for (int k = 0; k < ne; k++) {
            int found = 0;
            for (int i = 0; i < nc; i++)
                if (strcmp(cases[i], exp[k]) == 0) {
                    found = 1;
                    if (result[i] != PASS) {
                        printf("REGRESSION %s no longer passes\n", exp[k]);
                        status = 1;
                    }
                }
            if (!found) {
                printf("REGRESSION %s is missing from %s\n", exp[k], root);
                status = 1;
            }
        }
        printf("%d cases expected to pass: %s\n", ne, status ? "regressions above" : "all pass");
        if (status_path && !n_only)
            status |= check_status(status_path, cases, result, nc, exp, ne, counts);
        free_list(exp, ne);
    }
    if (!n_only)
        free_list(cases, nc);
    free(only);
    free(result);
    return status;
}
