/* tosac inspect on .tosa graphs: exit codes and the key lines of text and JSON output. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/tosa.h"
#include "util/json.h"

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

/* Names with control characters and invalid UTF-8 (the reader takes any bytes): --json output
 * is still valid JSON and says which names they were. */
static void test_json_odd_names(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp(), path[512];
    snprintf(path, sizeof path, "%s/odd.tosa", dir);
    tosac_error e;
    tosac_error_clear(&e);
    tosa_graph *g = tosa_graph_new(1, 0);
    tosa_block *b = tosa_region_add_block(tosa_graph_add_region(g, "main"), "main");
    const int64_t two = 2;
    int x = tosa_block_add_tensor(b, "a\nb\xff\"", TOSAC_DT_I8, 1, &two, NULL, 0, &e);
    int y = tosa_block_add_tensor(b, "\xc3\xa9\x01", TOSAC_DT_I8, 1, &two, NULL, 0, &e);
    assert_true(tosa_block_add_op(b, TOSA_OP_IDENTITY, NULL, &x, 1, &y, 1, &e) >= 0);
    assert_int_equal(tosa_block_set_io(b, &x, 1, &y, 1, &e), TOSAC_OK);
    assert_int_equal(tosa_graph_write_file(g, path, &e), TOSAC_OK);
    tosa_graph_free(g);
    char *out = NULL;
    assert_int_equal(tu_cli(&out, NULL, "inspect", path, "--json", NULL), 0);
    tosac_json *doc = NULL;
    if (tosac_json_parse(out, strlen(out), &doc, &e) != TOSAC_OK)
        fail_msg("not JSON: %s\n%s", e.msg, out);
    const tosac_json *blk = tosac_json_at(tosac_json_get(tosac_json_at(tosac_json_get(doc, "regions"), 0),
                                                         "blocks"), 0);
    const tosac_json *ts = tosac_json_get(blk, "tensors");
    assert_string_equal(tosac_json_string(tosac_json_get(tosac_json_at(ts, 0), "name")),
                        "a\nb\xef\xbf\xbd\"");
    assert_string_equal(tosac_json_string(tosac_json_get(tosac_json_at(ts, 1), "name")), "\xc3\xa9\x01");
    tosac_json_free(doc);
    free(out);
    tu_rmtree(dir);
    free(dir);
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
        cmocka_unit_test(test_json_odd_names),
        cmocka_unit_test(test_bad_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
