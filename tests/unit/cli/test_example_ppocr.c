/* The README's main job, end to end through the CLI: quantize the PaddleOCR orientation
 * classifier (examples/ppocr_cls) with a8w8 on its 8 samples, compile it for TOSA-1.0+INT,
 * run the program on every sample and compare with onnxruntime's float outputs. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/npy.h"
#include "util/fileio.h"
#include "util/json.h"

static void test_quantize_compile_run(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp(), prog[512], report[512], model[512], calib[512], *errs = NULL;
    snprintf(prog, sizeof prog, "%s/ppocr.prog", dir);
    snprintf(report, sizeof report, "%s/report.json", dir);
    snprintf(model, sizeof model, "%s", tu_source("examples/ppocr_cls/model.onnx"));
    snprintf(calib, sizeof calib, "%s", tu_source("examples/ppocr_cls/inputs"));
    int rc = tu_cli(NULL, &errs, "compile", model, "--spec", "TOSA-1.0+INT", "--quantize", "a8w8",
                    "--calib", calib, "-o", prog, "--report", report, NULL);
    if (rc != 0)
        fail_msg("compile failed (%d): %s", rc, errs);
    free(errs);

    /* The report: at least the convolutions (53 in the model) run in TOSA delegates. */
    void *buf;
    size_t len;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_read_file(report, &buf, &len, &err), TOSAC_OK);
    tosac_json *doc = NULL;
    assert_int_equal(tosac_json_parse(buf, len, &doc, &err), TOSAC_OK);
    const tosac_json *nodes = tosac_json_get(doc, "nodes");
    assert_non_null(nodes);
    int convs_delegated = 0;
    for (int i = 0; i < tosac_json_count(nodes); i++) {
        const tosac_json *n = tosac_json_at(nodes, i);
        const char *op = tosac_json_string(tosac_json_get(n, "op_type"));
        const char *where = tosac_json_string(tosac_json_get(n, "placement"));
        if (op && where && strcmp(op, "Conv") == 0 && strcmp(where, "delegate") == 0)
            convs_delegated++;
    }
    assert_int_equal(convs_delegated, 53);
    /* One delegate: only the input's QuantizeLinear and the output's DequantizeLinear stay on
     * the CPU (an INT-only delegate reads and writes integer tensors). */
    int64_t n_delegates = -1;
    assert_true(tosac_json_int(tosac_json_get(doc, "n_delegates"), &n_delegates));
    assert_int_equal(n_delegates, 1);
    tosac_json_free(doc);
    free(buf);

    for (int s = 0; s < 8; s++) {
        char in[700], out[700], got[800], want[800];
        snprintf(in, sizeof in, "%s/%02d/x.npy", calib, s);
        snprintf(out, sizeof out, "%s/out%d", dir, s);
        rc = tu_cli(NULL, &errs, "run", prog, "--input", in, "--output-dir", out, NULL);
        if (rc != 0)
            fail_msg("run failed on sample %d (%d): %s", s, rc, errs);
        free(errs);
        snprintf(got, sizeof got, "%s/softmax_0.tmp_0.npy", out);
        snprintf(want, sizeof want, "%s/%02d/softmax_0.tmp_0.npy",
                 tu_source("examples/ppocr_cls/expected"), s);
        tosac_tensor a, b;
        assert_int_equal(tosac_npy_read(want, &a, &err), TOSAC_OK);
        assert_int_equal(tosac_npy_read(got, &b, &err), TOSAC_OK);
        assert_int_equal(b.dtype, TOSAC_DT_F32);
        assert_int_equal(tosac_tensor_numel(&b), 2);
        const float *pa = a.data, *pb = b.data;
        /* Same class as float onnxruntime on every sample (4 upright, 4 rotated). */
        assert_int_equal(pa[1] > pa[0], pb[1] > pb[0]);
        assert_int_equal(pb[1] > pb[0], s >= 4);
        /* Probabilities within one a8w8 output step of a [0,1] value (1/255) + 1e-3. */
        for (int k = 0; k < 2; k++)
            assert_true(fabsf(pa[k] - pb[k]) <= 1e-3f + 1.0f / 255.0f);
        tosac_tensor_free(&a);
        tosac_tensor_free(&b);
    }
    tu_rmtree(dir);
    free(dir);
}

static void test_quantize_option_errors(void **state)
{
    (void)state;
    char model[512], calib[512], *errs = NULL;
    snprintf(model, sizeof model, "%s", tu_source("examples/ppocr_cls/model.onnx"));
    snprintf(calib, sizeof calib, "%s", tu_source("examples/ppocr_cls/inputs"));
    assert_int_equal(tu_cli(NULL, &errs, "compile", model, "--spec", "TOSA-1.0+INT", "--quantize",
                            "a4w4", "--calib", calib, "-o", "/tmp/never.prog", NULL), 2);
    assert_non_null(strstr(errs, "a4w4"));
    assert_int_equal(tu_count_lines(errs), 1);
    free(errs);
    assert_int_equal(tu_cli(NULL, &errs, "compile", model, "--spec", "TOSA-1.0+INT", "--calib",
                            calib, "-o", "/tmp/never.prog", NULL), 2);
    assert_non_null(strstr(errs, "--calib is only used with --quantize"));
    free(errs);
    assert_int_equal(tu_cli(NULL, &errs, "compile", model, "--spec", "TOSA-1.0+INT", "--quantize",
                            "a8w8", "-o", "/tmp/never.prog", NULL), 2);
    assert_non_null(strstr(errs, "needs calibration data"));
    free(errs);
    FILE *f = fopen("/tmp/never.prog", "rb");
    assert_null(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantize_compile_run),
        cmocka_unit_test(test_quantize_option_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
