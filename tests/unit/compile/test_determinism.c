/* Deterministic output (issue 12): the same model, spec and calibration data give
 * byte-identical files on every run. Each case runs the CLI twice into two fresh directories
 * and compares every file it wrote, byte for byte:
 * - `tosac quantize` (a8w8, calibrated) of the PP-OCR classifier: the QDQ ONNX model;
 * - `tosac compile --quantize a8w8` of it under TOSA-1.0+INT with `--emit-tosa` and
 *   `--report`: the program (plan and measured scratch included), every .tosa and .json, the
 *   report;
 * - `tosac compile` of Silero VAD v5 under TOSA-1.0+FP (25 If nodes, delegates in their bodies,
 *   so the body numbering and the per-body plans are covered).
 * What breaks it: uninitialised padding in a writer, iteration in pointer or hash order, a
 * plan or a measured scratch size that depends on addresses (the runtime arena used for
 * measuring is page-aligned for this reason). */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"

static void same_file(const char *a, const char *b)
{
    void *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    tosac_error err;
    if (tosac_read_file(a, &x, &nx, &err) || tosac_read_file(b, &y, &ny, &err))
        fail_msg("%s", err.msg);
    if (nx != ny || memcmp(x, y, nx))
        fail_msg("%s and %s differ (%zu vs %zu bytes)", a, b, nx, ny);
    free(x);
    free(y);
}

/* Runs args (with "@" standing for the run's directory prefix) in dir. */
static void run_in(const char *const *args, const char *dir)
{
    const char *argv[24];
    char buf[24][4200];
    int n = 0;
    for (; args[n]; n++) {
        if (args[n][0] == '@') {
            snprintf(buf[n], sizeof buf[n], "%s/%s", dir, args[n] + 1);
            argv[n] = buf[n];
        } else {
            argv[n] = args[n];
        }
    }
    argv[n] = NULL;
    char *errs = NULL;
    int rc = tu_cli_argv(NULL, &errs, argv);
    if (rc != 0)
        fail_msg("tosac %s: exit %d: %s", args[0], rc, errs ? errs : "");
    free(errs);
}

static void twice(const char *const *args, const char *const *files)
{
    char *a = tu_mkdtemp(), *b = tu_mkdtemp();
    run_in(args, a);
    run_in(args, b);
    for (int i = 0; files[i]; i++) {
        char fa[4200], fb[4200];
        snprintf(fa, sizeof fa, "%s/%s", a, files[i]);
        snprintf(fb, sizeof fb, "%s/%s", b, files[i]);
        same_file(fa, fb);
    }
    tu_rmtree_free(a);
    tu_rmtree_free(b);
}

static void test_quantize_and_compile(void **state)
{
    (void)state;
    char model[4200], calib[4200];
    snprintf(model, sizeof model, "%s", tu_shared("models/ppocr_mobile_v2_cls/model.onnx"));
    snprintf(calib, sizeof calib, "%s", tu_shared("models/ppocr_mobile_v2_cls/inputs"));
    const char *q[] = {"quantize", model, "--scheme", "a8w8", "--calib", calib, "-o", "@q.onnx",
                       NULL};
    const char *qfiles[] = {"q.onnx", NULL};
    twice(q, qfiles);
    const char *c[] = {"compile", model, "--spec", "TOSA-1.0+INT", "--quantize", "a8w8",
                       "--calib", calib, "-o", "@p.prog", "--emit-tosa", "@emit", "--report",
                       "@r.json", "--quiet", NULL};
    const char *cfiles[] = {"p.prog", "r.json", "emit/0.tosa", "emit/0.json", NULL};
    twice(c, cfiles);
}

static void test_control_flow_program(void **state)
{
    (void)state;
    char model[4200];
    snprintf(model, sizeof model, "%s", tu_source("tests/data/silero_vad_v5/model.onnx"));
    const char *c[] = {"compile", model, "--spec", "TOSA-1.0+FP", "--input-shape", "input=1,576",
                       "--input-shape", "state=2,1,128", "-o", "@p.prog", "--report", "@r.json",
                       "--quiet", NULL};
    const char *files[] = {"p.prog", "r.json", NULL};
    twice(c, files);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantize_and_compile),
        cmocka_unit_test(test_control_flow_program),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
