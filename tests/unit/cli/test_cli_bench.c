/* tosac bench: the figures it prints and its argument errors, on a conformance .tosa graph
 * and a zoo ONNX model. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONV_DIR "conformance/conv2d/conv2d_1x1_1x7x6x3_i8xi8_acci32_st11_pad0001_dilat22_lclbnd0"

static long figure(const char *out, const char *name)
{
    char key[64];
    snprintf(key, sizeof key, "%s: ", name);
    const char *p = strstr(out, key);
    return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

static void test_tosa_random_inputs(void **state)
{
    (void)state;
    char path[1024], *out = NULL, *errs = NULL;
    snprintf(path, sizeof path, "%s", tu_shared(CONV_DIR "/test.tosa"));
    assert_int_equal(tu_cli(&out, &errs, "bench", path, "--runs", "7", "--warmup", "0", NULL), 0);
    assert_int_equal(figure(out, "runs"), 7);
    assert_int_equal(figure(out, "warmup"), 0);
    assert_int_equal(figure(out, "threads"), 1);
    assert_non_null(strstr(out, "median_ms: "));
    assert_non_null(strstr(out, "min_ms: "));
    assert_non_null(strstr(out, "cpu_ms: "));
    assert_true(figure(out, "peak_rss_kib") > 0);
    assert_string_equal(errs, "");
    free(out);
    free(errs);
}

static void test_onnx_with_input_file(void **state)
{
    (void)state;
    char model[1024], input[1024], *out = NULL;
    snprintf(model, sizeof model, "%s", tu_shared("models/synth_qdq_s8_op13_conv/model.onnx"));
    snprintf(input, sizeof input, "x=%s", tu_shared("models/synth_qdq_s8_op13_conv/inputs/00/x.npy"));
    assert_int_equal(tu_cli(&out, NULL, "bench", model, "--input", input, "--runs", "3", NULL), 0);
    assert_int_equal(figure(out, "runs"), 3);
    free(out);
}

static void test_errors(void **state)
{
    (void)state;
    char conv[1024], ppocr[1024];
    snprintf(conv, sizeof conv, "%s", tu_shared(CONV_DIR "/test.tosa"));
    snprintf(ppocr, sizeof ppocr, "%s", tu_shared("models/ppocr_mobile_v2_cls/model.onnx"));
    tu_cli_expect_exit2("--runs takes a whole number", (const char *[]){"bench", conv, "--runs", "0", NULL});
    tu_cli_expect_exit2("--threads applies to programs, not to TOSA graphs",
                        (const char *[]){"bench", conv, "--threads", "4", NULL});
    tu_cli_expect_exit2("--reference applies to programs, not to ONNX models",
                        (const char *[]){"bench", ppocr, "--reference", NULL});
    tu_cli_expect_exit2("--threads takes a whole number from 1 to 256, not '0'",
                        (const char *[]){"bench", conv, "--threads", "0", NULL});
    tu_cli_expect_exit2("--threads takes a whole number from 1 to 256, not '2x'",
                        (const char *[]){"bench", conv, "--threads", "2x", NULL});
    tu_cli_expect_exit2("needs a value", (const char *[]){"bench", conv, "--runs", NULL});
    tu_cli_expect_exit2("unknown option '--fast'", (const char *[]){"bench", conv, "--fast", NULL});
    tu_cli_expect_exit2("no input named 'nope'", (const char *[]){"bench", conv, "--input", "nope=/x.npy", NULL});
    /* ppocr's input has dynamic dims: the message says how to give them */
    tu_cli_expect_exit2("--input-shape x=", (const char *[]){"bench", ppocr, NULL});
    tu_cli_expect_exit2("cannot open", (const char *[]){"bench", "/nonexistent.tosa", NULL});
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tosa_random_inputs),
        cmocka_unit_test(test_onnx_with_input_file),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
