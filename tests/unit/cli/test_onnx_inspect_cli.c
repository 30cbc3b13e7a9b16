/* tosac inspect MODEL.onnx: text, --json, --dot, --input-shape, and clean failures. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"

static char *model(const char *name)
{
    static char buf[512];
    snprintf(buf, sizeof buf, "%s", tu_shared(name));
    return buf;
}

static void has(const char *text, const char *want)
{
    if (!strstr(text, want))
        fail_msg("missing '%s' in:\n%s", want, text);
}

static void test_text(void **state)
{
    (void)state;
    char *out, *errs;
    int rc = tu_cli(&out, &errs, "inspect", model("models/synth_qdq_s8_op13_add/model.onnx"), NULL);
    assert_int_equal(rc, 0);
    has(out, "opsets: ai.onnx=13\n");
    has(out, "inputs:\n  a: float32[1,8,10,10]\n  b: float32[1,8,10,10]\noutputs:\n  y: float32[1,8,10,10]\n");
    has(out, "initializers: 6 (15 bytes)\n");
    has(out, "operators: 7 nodes (7 including subgraphs)\n");
    has(out, "  DequantizeLinear         3\n");
    has(out, "[4] Add: a_dq, b_dq -> y_f f32[1,8,10,10]\n");
    free(out);
    free(errs);
}

static void test_dynamic_and_input_shape(void **state)
{
    (void)state;
    char *out, *errs;
    const char *m = model("models/ppocr_mobile_v2_cls/model.onnx");
    assert_int_equal(tu_cli(&out, &errs, "inspect", m, NULL), 0);
    has(out, "  x: float32[p2o.DynamicDimension.0,3,p2o.DynamicDimension.1,p2o.DynamicDimension.2]\n");
    has(out, "operators: 471 nodes");
    free(out);
    free(errs);
    assert_int_equal(tu_cli(&out, &errs, "inspect", m, "--input-shape", "x=1,3,48,192", NULL), 0);
    has(out, "  softmax_0.tmp_0: float32[1,2]\n");
    free(out);
    free(errs);
    assert_int_equal(tu_cli(&out, &errs, "inspect", m, "--input-shape", "y=1", NULL), 2);
    has(errs, "tosac: error: --input-shape: the model has no input 'y'");
    free(out);
    free(errs);
}

static void test_json_and_dot(void **state)
{
    (void)state;
    char *out, *errs;
    const char *m = model("models/silero_vad_op18_ifless/model.onnx");
    assert_int_equal(tu_cli(&out, &errs, "inspect", m, "--json", NULL), 0);
    has(out, "\"opsets\": {\"ai.onnx\": 18}");
    has(out, "{\"name\": \"input\", \"dtype\": \"float32\", \"shape\": [\"batch\", \"sequence\"]}");
    has(out, "{\"name\": \"sr\", \"dtype\": \"int64\", \"shape\": []}");
    has(out, "\"num_nodes\": 4,\n  \"num_nodes_total\": 90,");
    has(out, "\"If\": 1");
    free(out);
    free(errs);
    assert_int_equal(tu_cli(&out, &errs, "inspect", m, "--dot", NULL), 0);
    has(out, "digraph \"main_graph\" {");
    has(out, "[label=\"If\\nnode_cond__1\"]");
    free(out);
    free(errs);
    assert_int_equal(tu_cli(&out, &errs, "inspect", m, "--dot", "--json", NULL), 2);
    has(errs, "exclude each other");
    free(out);
    free(errs);
}

static void test_bad_files(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp(), path[512], *out, *errs;
    tosac_error err;
    tosac_error_clear(&err);
    void *buf;
    size_t len;
    assert_int_equal(tosac_read_file(tu_shared("models/synth_qdq_s8_op13_conv/model.onnx"), &buf,
                                     &len, &err),
                     TOSAC_OK);
    snprintf(path, sizeof path, "%s/cut.onnx", dir);
    assert_int_equal(tosac_write_file(path, buf, len / 2, &err), TOSAC_OK);
    assert_int_equal(tu_cli(&out, &errs, "inspect", path, NULL), 2);
    assert_int_equal(tu_count_lines(errs), 1);
    has(errs, "tosac: error: ");
    free(out);
    free(errs);
    free(buf);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_dynamic_and_input_shape),
        cmocka_unit_test(test_json_and_dot),
        cmocka_unit_test(test_bad_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
