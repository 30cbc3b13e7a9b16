/* Zoo models under TOSA-1.0+INT+u55 through the CLI, after Vela 5.1.0's Ethos-U55 rules
 * (docs/ETHOS_U_LIMITS.md):
 *   - ppocr (examples/ppocr_cls, quantized a8w8 at compile time): its global average pools
 *     (AVG_POOL2D 12x96, 3x96, 2x96, unpadded) are taken, so the network is one delegate
 *     (was 10, split at each pool); the final Softmax stays on the CPU for its int32
 *     REDUCE_MAX; the program still classifies every sample like onnxruntime;
 *   - mobilenet_v2 / resnet18 QDQ: one delegate with only the boundary Q/DQ on the CPU (the
 *     residual ADDs' input RESCALEs stay next to their ADD, lower_u55.c), and the program's
 *     output is bit-identical to the TOSA-1.0+INT program's (checked against onnxruntime by
 *     the zoo_compile suite). */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/npy.h"
#include "util/fileio.h"
#include "util/json.h"

static tosac_json *read_report(const char *path)
{
    void *buf;
    size_t len;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_read_file(path, &buf, &len, &err), TOSAC_OK);
    tosac_json *doc = NULL;
    assert_int_equal(tosac_json_parse(buf, len, &doc, &err), TOSAC_OK);
    free(buf);
    return doc;
}

static int64_t delegates(const tosac_json *doc)
{
    int64_t n = -1;
    assert_true(tosac_json_int(tosac_json_get(doc, "n_delegates"), &n));
    return n;
}

/* The CPU nodes other than the boundary Q/DQ, as "op_type: reason; ...". */
static void cpu_nodes(const tosac_json *doc, char *buf, size_t len)
{
    const tosac_json *nodes = tosac_json_get(doc, "nodes");
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < tosac_json_count(nodes); i++) {
        const tosac_json *n = tosac_json_at(nodes, i);
        const char *where = tosac_json_string(tosac_json_get(n, "placement"));
        const char *cat = tosac_json_string(tosac_json_get(n, "category"));
        if (strcmp(where, "cpu") != 0 || (cat && strcmp(cat, "boundary rule") == 0))
            continue;
        int w = snprintf(buf + used, len - used, "%s%s: %s", used ? "; " : "",
                         tosac_json_string(tosac_json_get(n, "op_type")),
                         tosac_json_string(tosac_json_get(n, "reason")));
        if (w > 0 && (size_t)w < len - used)
            used += (size_t)w;
    }
}

static void test_ppocr(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp(), prog[512], report[512], model[512], calib[512], *errs = NULL;
    snprintf(prog, sizeof prog, "%s/ppocr.prog", dir);
    snprintf(report, sizeof report, "%s/report.json", dir);
    snprintf(model, sizeof model, "%s", tu_source("examples/ppocr_cls/model.onnx"));
    snprintf(calib, sizeof calib, "%s", tu_source("examples/ppocr_cls/inputs"));
    int rc = tu_cli(NULL, &errs, "compile", model, "--spec", "TOSA-1.0+INT+u55", "--quantize",
                    "a8w8", "--calib", calib, "-o", prog, "--report", report, NULL);
    if (rc != 0)
        fail_msg("compile failed (%d): %s", rc, errs);
    free(errs);
    tosac_json *doc = read_report(report);
    assert_int_equal(delegates(doc), 1);
    char cpu[2048];
    cpu_nodes(doc, cpu, sizeof cpu);
    assert_string_equal(cpu, "Softmax: U55 restriction: REDUCE_MAX of int32 is not supported on "
                             "Ethos-U55 (it reduces with pooling: i8/i16 only)");
    tosac_json_free(doc);
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
        tosac_error err;
        assert_int_equal(tosac_npy_read(want, &a, &err), TOSAC_OK);
        assert_int_equal(tosac_npy_read(got, &b, &err), TOSAC_OK);
        const float *pa = a.data, *pb = b.data;
        /* same class as onnxruntime: samples 00-03 upright, 04-07 rotated */
        assert_int_equal(pb[1] > pb[0], pa[1] > pa[0]);
        assert_int_equal(pb[1] > pb[0], s >= 4);
        tosac_tensor_free(&a);
        tosac_tensor_free(&b);
    }
    free(dir);
}

/* Compiles model under spec into dir/<tag>.prog and runs it on sample 00 into dir/<tag>/. */
static void compile_run(const char *model, const char *spec, const char *dir, const char *tag,
                        tosac_json **doc)
{
    char rel[256], m[1024], prog[600], report[600], in[1024], out[600], *errs = NULL;
    snprintf(rel, sizeof rel, "models/%s/model.onnx", model);
    snprintf(m, sizeof m, "%s", tu_shared(rel));
    snprintf(rel, sizeof rel, "models/%s/inputs/00/input.npy", model);
    snprintf(in, sizeof in, "%s", tu_shared(rel));
    snprintf(prog, sizeof prog, "%s/%s.prog", dir, tag);
    snprintf(report, sizeof report, "%s/%s.json", dir, tag);
    snprintf(out, sizeof out, "%s/%s", dir, tag);
    int rc = tu_cli(NULL, &errs, "compile", m, "--spec", spec, "-o", prog, "--report", report,
                    NULL);
    if (rc != 0)
        fail_msg("%s under %s: compile failed (%d): %s", model, spec, rc, errs);
    free(errs);
    rc = tu_cli(NULL, &errs, "run", prog, "--input", in, "--output-dir", out, NULL);
    if (rc != 0)
        fail_msg("%s under %s: run failed (%d): %s", model, spec, rc, errs);
    free(errs);
    *doc = read_report(report);
}

static void check_cnn(const char *model)
{
    char *dir = tu_mkdtemp();
    tosac_json *u55 = NULL, *plain = NULL;
    compile_run(model, "TOSA-1.0+INT+u55", dir, "u55", &u55);
    compile_run(model, "TOSA-1.0+INT", dir, "int", &plain);
    assert_int_equal(delegates(u55), 1);
    char cpu[2048];
    cpu_nodes(u55, cpu, sizeof cpu);
    assert_string_equal(cpu, "");
    char a[700], b[700];
    snprintf(a, sizeof a, "%s/u55/logits.npy", dir);
    snprintf(b, sizeof b, "%s/int/logits.npy", dir);
    tosac_tensor x, y;
    tosac_error err;
    assert_int_equal(tosac_npy_read(a, &x, &err), TOSAC_OK);
    assert_int_equal(tosac_npy_read(b, &y, &err), TOSAC_OK);
    assert_int_equal(x.nbytes, y.nbytes);
    assert_memory_equal(x.data, y.data, x.nbytes);
    tosac_tensor_free(&x);
    tosac_tensor_free(&y);
    tosac_json_free(u55);
    tosac_json_free(plain);
    free(dir);
}

static void test_mobilenet_v2(void **state)
{
    (void)state;
    check_cnn("mobilenet_v2_qdq_u8s8_op13");
}

static void test_resnet18(void **state)
{
    (void)state;
    check_cnn("resnet18_qdq_u8s8_op13");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ppocr),
        cmocka_unit_test(test_mobilenet_v2),
        cmocka_unit_test(test_resnet18),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
