/* tosac inspect on .tosa graphs: exit codes and the key lines of text and JSON output. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RESCALE "conformance/rescale/rescale_0_i48_outi8_sc0_dr0_pc0_iu0_ou0/test.tosa"

static void test_text(void **state)
{
    (void)state;
    char *out = NULL, *err = NULL;
    int rc = tu_cli(&out, &err, "inspect", tu_shared(RESCALE), NULL);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "version 1.0.0\n"));
    assert_non_null(strstr(out, "block \"main\": 6 tensors, 5 operators\n"));
    assert_non_null(strstr(out, "    inputs: [\"input-0\"]\n"));
    assert_non_null(strstr(out, "    outputs: [\"result-0\"]\n"));
    assert_non_null(strstr(out, "      \"input-1\" INT16 [1] const\n"));
    assert_non_null(strstr(out, "      \"input-0\" INT48 []\n"));
    assert_non_null(strstr(out, "      4 RESCALE [\"input-0\", \"input-1\", \"input-2\", "
                                "\"rescale_input_zp\", \"rescale_output_zp\"] -> [\"result-0\"] "
                                "scale32=false rounding_mode=\"SINGLE_ROUND\" per_channel=false "
                                "input_unsigned=false output_unsigned=false\n"));
    free(out);
    free(err);
}

static void test_json(void **state)
{
    (void)state;
    char *out = NULL, *err = NULL;
    int rc = tu_cli(&out, &err, "inspect", tu_shared(RESCALE), "--json", NULL);
    assert_int_equal(rc, 0);
    assert_int_equal(tu_count_lines(out), 1);
    assert_non_null(strstr(out, "\"version\": \"1.0.0\""));
    assert_non_null(strstr(out, "{\"name\": \"input-1\", \"type\": \"INT16\", \"shape\": [1], "
                                "\"const\": true"));
    assert_non_null(strstr(out, "{\"op\": \"RESCALE\", \"inputs\": [\"input-0\", \"input-1\", "
                                "\"input-2\", \"rescale_input_zp\", \"rescale_output_zp\"], "
                                "\"outputs\": [\"result-0\"], \"attributes\": {\"scale32\": "
                                "false, \"rounding_mode\": \"SINGLE_ROUND\""));
    free(out);
    free(err);
}

static void test_bad_file(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    char path[512];
    snprintf(path, sizeof path, "%s/bad.tosa", dir);
    FILE *f = fopen(path, "wb");
    /* identifier right, root offset far outside the file */
    fwrite("\x00\x10\x00\x00TOSA\x00\x00\x00\x00", 1, 12, f);
    fclose(f);
    char *out = NULL, *err = NULL;
    int rc = tu_cli(&out, &err, "inspect", path, NULL);
    assert_int_equal(rc, 2);
    assert_int_equal(tu_count_lines(err), 1);
    assert_non_null(strstr(err, "tosac: error: "));
    assert_non_null(strstr(err, "corrupt .tosa file: root table"));
    assert_string_equal(out, "");
    free(out);
    free(err);
    rc = tu_cli(&out, &err, "inspect", tu_shared(RESCALE), "--bogus", NULL);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(err, "unknown option '--bogus'"));
    free(out);
    free(err);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_bad_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
