/* What `tosac compile` (and `tosac quantize -o`) promise about their outcome, through the CLI:
 * the summary line on success (exact, and agreeing with the report), --quiet, --report -;
 * outputs naming an input refused with the input untouched; all outputs or none; --emit-tosa
 * replacing an older compile's delegate files and nothing else; scheme/spec mismatches and a
 * float model under an integer-only spec as one-line errors with the fix, nothing written. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tosac/error.h"
#include "util/fileio.h"
#include "util/json.h"

#define CONV "models/synth_qdq_s8_op13_conv"

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static char *path_in(const char *dir, const char *name)
{
    char *p = malloc(strlen(dir) + strlen(name) + 2);
    assert_non_null(p);
    sprintf(p, "%s/%s", dir, name);
    return p;
}

/* The number of entries of dir (without . and ..). */
static int count_entries(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    assert_non_null(p);
    assert_int_equal(fscanf(p, "%d", &n), 1);
    pclose(p);
    return n;
}

static void test_summary_line(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp(), *prg = path_in(dir, "c.prg"), *rep = path_in(dir, "r.json");
    char *model = strdup(tu_shared(CONV "/model.onnx")), *out = NULL, *errs = NULL;
    /* the QDQ conv: its Conv delegated, the input Q and output DQ on the CPU (boundary), the
     * four other Q/DQ folded: 1 of 3 compute nodes delegated */
    assert_int_equal(tu_cli(&out, &errs, "compile", model, "--spec", "TOSA-1.0+INT", "-o", prg,
                            "--report", rep, NULL), 0);
    assert_string_equal(errs, "tosac: compiled: 1 delegate, 1/3 compute nodes delegated; on the "
                              "CPU: 2 boundary rule\n");
    assert_string_equal(out, "");
    free(out);
    free(errs);
    /* --quiet: nothing on stderr; --report -: the same report on stdout */
    char *want = tu_slurp(rep);
    assert_int_equal(tu_cli(&out, &errs, "compile", model, "--spec", "TOSA-1.0+INT", "-o", prg,
                            "--report", "-", "--quiet", NULL), 0);
    assert_string_equal(errs, "");
    assert_int_equal(strlen(out), strlen(want) + 1);
    assert_memory_equal(out, want, strlen(want));
    assert_int_equal(out[strlen(want)], '\n');
    free(out);
    free(errs);
    free(want);
    free(model);
    free(prg);
    free(rep);
    tu_rmtree(dir);
    free(dir);
}

/* The summary of a model with several CPU categories, or with delegates inside If bodies,
 * counts what the report says, commonest first. The counts come from the report file, parsed
 * here; at most 3 categories are expected (the models are chosen so). */
static void check_summary(const char *model, const char *const *extra, bool want_bodies)
{
    char *dir = tu_mkdtemp(), *prg = path_in(dir, "i.prg"), *rep = path_in(dir, "r.json");
    const char *args[32] = {"compile", model, "-o", prg, "--report", rep};
    int na = 6;
    for (int i = 0; extra[i]; i++)
        args[na++] = extra[i];
    args[na] = NULL;
    char *errs = NULL;
    assert_int_equal(tu_cli_argv(NULL, &errs, args), 0);
    tosac_json *r = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    char *text = tu_slurp(rep);
    assert_int_equal(tosac_json_parse(text, strlen(text), &r, &err), TOSAC_OK);
    const tosac_json *nodes = tosac_json_get(r, "nodes");
    const char *cat[8];
    int cnt[8] = {0}, n_cat = 0, total = 0, dlg = 0;
    for (int i = 0; i < tosac_json_count(nodes); i++) {
        const tosac_json *n = tosac_json_at(nodes, i);
        const char *pl = tosac_json_string(tosac_json_get(n, "placement"));
        if (strcmp(pl, "folded") == 0)
            continue;
        total++;
        if (strcmp(pl, "delegate") == 0) {
            dlg++;
            continue;
        }
        const char *c = tosac_json_string(tosac_json_get(n, "category"));
        int k = 0;
        while (k < n_cat && strcmp(cat[k], c) != 0)
            k++;
        assert_true(k < 8);
        if (k == n_cat)
            cat[n_cat++] = c;
        cnt[k]++;
    }
    assert_true(n_cat >= 1 && n_cat <= 3);
    int64_t nd = 0, nb = 0;
    assert_true(tosac_json_int(tosac_json_get(r, "n_delegates"), &nd));
    assert_true(tosac_json_int(tosac_json_get(r, "body_delegates"), &nb));
    assert_true(want_bodies ? nb > 0 : nb == 0);
    char line[512];
    int len = snprintf(line, sizeof line, "tosac: compiled: %lld delegate%s", (long long)(nd + nb),
                       nd + nb == 1 ? "" : "s");
    if (nb)
        len += snprintf(line + len, sizeof line - (size_t)len, " (%lld in control-flow bodies)",
                        (long long)nb);
    len += snprintf(line + len, sizeof line - (size_t)len, ", %d/%d compute nodes delegated; on "
                    "the CPU: ", dlg, total);
    for (int shown = 0; shown < n_cat; shown++) {
        int best = -1;
        for (int k = 0; k < n_cat; k++)
            if (cnt[k] > 0 && (best < 0 || cnt[k] > cnt[best]))
                best = k;
        len += snprintf(line + len, sizeof line - (size_t)len, "%s%d %s", shown ? ", " : "",
                        cnt[best], cat[best]);
        cnt[best] = 0;
    }
    snprintf(line + len, sizeof line - (size_t)len, "\n");
    assert_string_equal(errs, line);
    tosac_json_free(r);
    free(text);
    free(errs);
    free(prg);
    free(rep);
    tu_rmtree(dir);
    free(dir);
}

static void test_summary_agrees_with_report(void **state)
{
    (void)state;
    char *model = strdup(tu_shared("models/synth_int64_ops_op13/model.onnx"));
    check_summary(model, (const char *const[]){"--spec", "TOSA-1.1+INT+int64", NULL}, false);
    free(model);
    /* the If branches hold the delegates: counted apart from the top level's nodes */
    model = strdup(tu_shared("models/silero_vad_op18_ifless/model.onnx"));
    check_summary(model, (const char *const[]){"--spec", "TOSA-1.0+FP", "--input-shape",
                                               "input=1,576", "--input-shape", "state=2,1,128",
                                               NULL}, true);
    free(model);
}

static void expect_refused(const char *model, const char *want_msg, const char *const *args)
{
    char *before = tu_slurp(model), *errs = NULL;
    assert_int_equal(tu_cli_argv(NULL, &errs, args), 2);
    if (!strstr(errs, want_msg))
        fail_msg("expected '%s' in: %s", want_msg, errs);
    assert_int_equal(tu_count_lines(errs), 1);
    char *after = tu_slurp(model);
    assert_string_equal(before, after); /* .onnx starts with bytes != 0: compared up to a NUL */
    assert_memory_equal(before, after, 64);
    free(before);
    free(after);
    free(errs);
}

static void test_outputs_naming_an_input_refused(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp(), *model = path_in(dir, "m.onnx"), *alias = path_in(dir, "alias.onnx");
    char *prg = path_in(dir, "p.prg"), *npy = path_in(dir, "x.npy");
    char *src = strdup(tu_shared(CONV "/model.onnx"));
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s' && cp '%s' '%s'", src, model,
             tu_shared(CONV "/inputs/00/x.npy"), npy);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(link(model, alias), 0); /* another name for the same file */
    const char *spec = "TOSA-1.0+INT";
    expect_refused(model, "-o '", (const char *const[]){"compile", model, "--spec", spec, "-o",
                                                        model, NULL});
    expect_refused(model, "names an input", (const char *const[]){"compile", model, "--spec",
                                                                  spec, "-o", alias, NULL});
    expect_refused(model, "--report '", (const char *const[]){"compile", model, "--spec", spec,
                                                              "-o", prg, "--report", model,
                                                              NULL});
    expect_refused(model, "--emit-tosa '", (const char *const[]){"compile", model, "--spec", spec,
                                                                 "-o", prg, "--emit-tosa", alias,
                                                                 NULL});
    expect_refused(model, "-o and --report both name", (const char *const[]){
        "compile", model, "--spec", spec, "-o", prg, "--report", prg, NULL});
    expect_refused(npy, "names an input", (const char *const[]){
        "compile", model, "--spec", spec, "--quantize", "a8w8", "--calib", npy, "-o", npy, NULL});
    assert_false(exists(prg));
    /* tosac quantize -o: neither the model nor a calibration file */
    expect_refused(model, "names the input model", (const char *const[]){
        "quantize", alias, "--scheme", "a8w8", "--calib", npy, "-o", model, NULL});
    char named[600];
    snprintf(named, sizeof named, "x=%s", npy);
    expect_refused(npy, "names a --calib input", (const char *const[]){
        "quantize", model, "--scheme", "a8w8", "--calib", named, "-o", npy, NULL});
    assert_int_equal(count_entries(dir), 3); /* m.onnx, alias.onnx, x.npy: no temporaries */
    free(src);
    free(model);
    free(alias);
    free(prg);
    free(npy);
    tu_rmtree(dir);
    free(dir);
}

/* One output failing (--emit-tosa under a regular file) leaves every output as it was. */
static void test_all_outputs_or_none(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp(), *prg = path_in(dir, "p.prg"), *rep = path_in(dir, "r.json");
    char *file = path_in(dir, "afile"), *emit = path_in(dir, "afile/tosa"), *errs = NULL;
    char *model = strdup(tu_shared(CONV "/model.onnx"));
    put(prg, "an older program");
    put(file, "not a directory");
    assert_int_equal(tu_cli(NULL, &errs, "compile", model, "--spec", "TOSA-1.0+INT", "-o", prg,
                            "--report", rep, "--emit-tosa", emit, NULL), 2);
    assert_non_null(strstr(errs, "afile"));
    free(errs);
    char *kept = tu_slurp(prg);
    assert_string_equal(kept, "an older program");
    free(kept);
    assert_false(exists(rep));
    assert_int_equal(count_entries(dir), 2); /* p.prg, afile: no temporaries */
    /* an emit folder that did not exist is not left behind either */
    char *fresh = path_in(dir, "new/tosa"), *fresh_top = path_in(dir, "new");
    assert_int_equal(tu_cli(NULL, &errs, "compile", model, "--spec", "TOSA-1.0+INT", "-o", file,
                            "--emit-tosa", fresh, "--report", emit, NULL), 2);
    free(errs);
    assert_false(exists(fresh_top));
    kept = tu_slurp(file);
    assert_string_equal(kept, "not a directory");
    free(kept);
    assert_int_equal(count_entries(dir), 2);
    free(fresh);
    free(fresh_top);
    free(model);
    free(prg);
    free(rep);
    free(file);
    free(emit);
    tu_rmtree(dir);
    free(dir);
}

/* --emit-tosa into an older compile's folder: its <n>.tosa / <n>.json beyond this compile's
 * delegates go; files tosac does not write stay. */
static void test_emit_replaces_stale_delegates(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp(), *prg = path_in(dir, "p.prg"), *emit = path_in(dir, "tosa");
    char *model = strdup(tu_shared(CONV "/model.onnx"));
    assert_int_equal(mkdir(emit, 0777), 0);
    const char *stale[] = {"0.tosa", "0.json", "1.tosa", "1.json", "7.tosa", "12.json"};
    const char *kept[] = {"notes.txt", "01.tosa", "3.tosa.bak", "x.json", "-1.tosa"};
    for (size_t i = 0; i < sizeof stale / sizeof *stale; i++) {
        char *p = path_in(emit, stale[i]);
        put(p, "old");
        free(p);
    }
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) {
        char *p = path_in(emit, kept[i]);
        put(p, "mine");
        free(p);
    }
    assert_int_equal(tu_cli(NULL, NULL, "compile", model, "--spec", "TOSA-1.0+INT", "-o", prg,
                            "--emit-tosa", emit, "--quiet", NULL), 0);
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) {
        char *p = path_in(emit, kept[i]), *t = tu_slurp(p);
        assert_string_equal(t, "mine");
        free(t);
        free(p);
    }
    char *t0 = path_in(emit, "0.tosa"), *j0 = path_in(emit, "0.json");
    char *t = tu_slurp(j0);
    assert_non_null(strstr(t, "\"inputs\""));
    free(t);
    t = tu_slurp(t0);
    assert_memory_equal(t + 4, "TOSA", 4);
    free(t);
    assert_int_equal(count_entries(emit), 2 + 5); /* 0.tosa, 0.json and the user's five */
    free(t0);
    free(j0);
    free(model);
    free(prg);
    free(emit);
    tu_rmtree(dir);
    free(dir);
}

static void expect_error(const char *want1, const char *want2, const char *const *args,
                         const char *out)
{
    char *errs = NULL;
    assert_int_equal(tu_cli_argv(NULL, &errs, args), 2);
    if (!strstr(errs, want1) || !strstr(errs, want2))
        fail_msg("expected '%s' and '%s' in: %s", want1, want2, errs);
    assert_int_equal(tu_count_lines(errs), 1);
    assert_false(exists(out));
    free(errs);
}

static void test_scheme_and_spec_mismatch(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp(), *prg = path_in(dir, "p.prg");
    char *model = strdup(tu_source("examples/ppocr_cls/model.onnx"));
    char *calib = strdup(tu_source("examples/ppocr_cls/inputs"));
    expect_error("--quantize a16w8 needs +int16", "use --spec TOSA-1.0+INT+int16",
                 (const char *const[]){"compile", model, "--spec", "TOSA-1.0+INT", "--quantize",
                                       "a16w8", "--calib", calib, "-o", prg, NULL}, prg);
    expect_error("--quantize a8w8 needs the INT profile", "use --spec TOSA-1.0+INT+FP",
                 (const char *const[]){"compile", model, "--spec", "TOSA-1.0+FP", "--quantize",
                                       "a8w8", "--calib", calib, "-o", prg, NULL}, prg);
    expect_error("needs the INT profile and +int16", "use --spec TOSA-1.0+INT+FP+int16",
                 (const char *const[]){"compile", model, "--spec", "TOSA-1.0+FP", "--quantize",
                                       "a16w8", "--calib", calib, "-o", prg, NULL}, prg);
    /* a float model, integer-only spec, no --quantize: nothing could be delegated */
    expect_error("is a float model and TOSA-1.0+INT has no FP profile",
                 "quantize it (--quantize a8w8",
                 (const char *const[]){"compile", model, "--spec", "TOSA-1.0+INT",
                                       "--input-shape", "x=1,3,48,192", "-o", prg, NULL}, prg);
    free(model);
    free(calib);
    free(prg);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary_line),
        cmocka_unit_test(test_summary_agrees_with_report),
        cmocka_unit_test(test_outputs_naming_an_input_refused),
        cmocka_unit_test(test_all_outputs_or_none),
        cmocka_unit_test(test_emit_replaces_stale_delegates),
        cmocka_unit_test(test_scheme_and_spec_mismatch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
