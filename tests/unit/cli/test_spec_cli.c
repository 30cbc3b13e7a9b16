/* tosac spec: exit codes, the --json fields, --ops lines, one-line errors naming the token. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

static void test_json_fields(void **state)
{
    (void)state;
    char *out = NULL, *err = NULL;
    assert_int_equal(tu_cli(&out, &err, "spec", "TOSA-1.0+INT+int16+u55", "--json", NULL), 0);
    assert_string_equal(err, "");
    assert_int_equal(tu_count_lines(out), 1);
    assert_non_null(strstr(out, "\"spec\": \"TOSA-1.0+INT+int16+u55\""));
    assert_non_null(strstr(out, "\"version\": \"1.0\""));
    assert_non_null(strstr(out, "\"profiles\": [\"INT\"]"));
    assert_non_null(strstr(out, "\"extensions\": [\"int16\"]"));
    assert_non_null(strstr(out, "\"u55\": true"));
    assert_non_null(strstr(out, "\"level\": \"none\""));
    assert_non_null(strstr(out, "\"keeps_int64\": false"));
    assert_non_null(strstr(out, "\"max_rank\": 32"));
    assert_null(strstr(out, "\"operators\""));
    free(out);
    free(err);

    assert_int_equal(tu_cli(&out, NULL, "spec", "--json", "TOSA-1.1+FP+INT+int64+8k", NULL), 0);
    assert_non_null(strstr(out, "\"spec\": \"TOSA-1.1+INT+FP+int64+8k\""));
    assert_non_null(strstr(out, "\"version\": \"1.1\""));
    assert_non_null(strstr(out, "\"profiles\": [\"INT\", \"FP\"]"));
    assert_non_null(strstr(out, "\"extensions\": [\"int64\"]"));
    assert_non_null(strstr(out, "\"u55\": false"));
    assert_non_null(strstr(out, "\"level\": \"8k\""));
    assert_non_null(strstr(out, "\"keeps_int64\": true"));
    assert_non_null(strstr(out, "\"max_rank\": 6"));
    assert_non_null(strstr(out, "\"max_shape_len\": 16"));
    free(out);

    /* implied extensions are listed */
    assert_int_equal(tu_cli(&out, NULL, "spec", "TOSA-1.1+FP+mxint8", "--json", NULL), 0);
    assert_non_null(strstr(out, "\"extensions\": [\"mxcommon\", \"mxint8\"]"));
    free(out);
}

static void test_text(void **state)
{
    (void)state;
    char *out = NULL;
    assert_int_equal(tu_cli(&out, NULL, "spec", "TOSA-1.0+INT", NULL), 0);
    assert_non_null(strstr(out, "spec: TOSA-1.0+INT\n"));
    assert_non_null(strstr(out, "profiles: INT\n"));
    assert_non_null(strstr(out, "extensions: none\n"));
    assert_non_null(strstr(out, "u55: no\n"));
    /* 75 operators, 20 need FP or an extension (see test_spec_tables); 130 of the 389
     * <typesupport> rows of tosa-1.0.2.xml have an op_profile PRO-INT alone (counted with a
     * throwaway script over the XML), 148 with PRO-INT or EXT-INT16 */
    assert_non_null(strstr(out, "operators: 55 of 75 allowed, 130 type combinations"));
    free(out);
    assert_int_equal(tu_cli(&out, NULL, "spec", "TOSA-1.0+INT+int16", NULL), 0);
    assert_non_null(strstr(out, "operators: 55 of 75 allowed, 148 type combinations"));
    free(out);
    assert_int_equal(tu_cli(&out, NULL, "spec", "TOSA-1.0+INT", "--ops", NULL), 0);
    assert_int_equal(tu_count_lines(out), 130);
    free(out);
}

static void test_ops(void **state)
{
    (void)state;
    char *out = NULL;
    assert_int_equal(tu_cli(&out, NULL, "spec", "TOSA-1.0+INT+int16", "--ops", NULL), 0);
    assert_non_null(strstr(out, "\nCONV2D in_t=i8 weight_t=i8 out_t=i32 acc_t=i32 (PRO-INT)\n"));
    assert_non_null(strstr(out, "\nCONV2D in_t=i16 weight_t=i8 out_t=i48 acc_t=i48 (EXT-INT16)\n"));
    assert_non_null(strstr(out, "\nADD in_out_t=i32 (PRO-INT | PRO-FP)\n"));
    assert_non_null(strstr(out, "\nCUSTOM (PRO-INT | PRO-FP)\n"));
    assert_null(strstr(out, "f32"));
    assert_null(strstr(out, "\nERF "));
    assert_null(strstr(out, "int4"));
    free(out);
    assert_int_equal(tu_cli(&out, NULL, "spec", "TOSA-1.0+INT", "--ops", NULL), 0);
    assert_null(strstr(out, "i16 weight_t=i8 out_t=i48"));
    free(out);
    assert_int_equal(tu_cli(&out, NULL, "spec", "TOSA-1.1+FP+mxfp4e2m1", "--ops", NULL), 0);
    assert_non_null(strstr(out, "\nCONCAT in_out_t=bs32:fp4e2m1 (EXT-MX-COMMON & EXT-MX-FP4E2M1)\n"));
    free(out);
    assert_int_equal(tu_cli(&out, NULL, "spec", "TOSA-1.0+FP", "--ops", "--json", NULL), 0);
    assert_non_null(strstr(out, "{\"name\": \"ERF\", \"types\": [\"in_out_t\"], \"legal\": [[\"f16\"], [\"f32\"]]}"));
    assert_int_equal(tu_count_lines(out), 1);
    free(out);
}

/* +u55 lists only what Vela 5.1.0 places on Ethos-U55 (docs/ETHOS_U_LIMITS.md). Of INT's 55
 * operators, 19 go: LOGICAL_RIGHT_SHIFT, BITWISE_AND/OR/XOR/NOT, LOGICAL_AND/OR/XOR/NOT,
 * EQUAL, GREATER, GREATER_EQUAL, SELECT, INTDIV, REDUCE_ALL/ANY, GATHER, SCATTER, CUSTOM (36
 * rows). Of the others' 130 - 36 rows, 24 more: the bool rows of CONCAT, PAD, RESHAPE, REVERSE,
 * SLICE, TILE, TRANSPOSE, IDENTITY, CONST and 6 of CAST, CAST from i32 to i8/i16, int32
 * REDUCE_MAX/MIN and REVERSE, int8/int16 ARITHMETIC_RIGHT_SHIFT and LOGICAL_LEFT_SHIFT. */
static void test_u55_ops(void **state)
{
    (void)state;
    char *out = NULL;
    assert_int_equal(tu_cli(&out, NULL, "spec", "TOSA-1.0+INT+u55", NULL), 0);
    assert_non_null(strstr(out, "operators: 36 of 75 allowed, 70 type combinations"));
    free(out);
    assert_int_equal(tu_cli(&out, NULL, "spec", "TOSA-1.0+INT+int16+u55", "--ops", NULL), 0);
    static const char *const present[] = {
        "\nMATMUL in_t=i8 out_t=i32 (PRO-INT)\n", "\nARGMAX in_t=i8 out_t=i32 (PRO-INT)\n",
        "\nREDUCE_MAX in_out_t=i16 ", "\nCAST in_t=i8 out_t=i32 ", "\nCAST in_t=i16 out_t=i8 ",
        "\nCLZ in_out_t=i32 ", "\nTABLE in_t=i16 table_t=i16 out_t=i32 (EXT-INT16)\n",
        "\nCONV3D ", "\nTRANSPOSE_CONV2D ", "\nRESIZE "};
    static const char *const absent[] = {
        "MATMUL in_t=i16", "ARGMAX in_t=i16", "REDUCE_MAX in_out_t=i32", "REDUCE_MIN in_out_t=i32",
        "CAST in_t=i32 out_t=i8", "CAST in_t=i32 out_t=i16", "=bool", "REVERSE in_out_t=i32",
        "ARITHMETIC_RIGHT_SHIFT in_out_t=i8", "\nINTDIV", "\nSELECT", "\nGATHER", "\nSCATTER",
        "\nEQUAL", "\nGREATER", "\nBITWISE_", "\nLOGICAL_AND", "\nLOGICAL_RIGHT_SHIFT",
        "\nREDUCE_ALL", "\nCUSTOM"};
    char *all = malloc(strlen(out) + 2); /* a newline in front: every line starts "\n" */
    assert_non_null(all);
    all[0] = '\n';
    strcpy(all + 1, out);
    for (size_t i = 0; i < sizeof present / sizeof present[0]; i++)
        if (!strstr(all, present[i]))
            fail_msg("missing under +u55: %s", present[i] + 1);
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++)
        if (strstr(all, absent[i]))
            fail_msg("listed under +u55: %s", absent[i]);
    free(all);
    free(out);
}

static void test_errors(void **state)
{
    (void)state;
    char *out = NULL, *err = NULL;
    assert_int_equal(tu_cli(&out, &err, "spec", "TOSA-1.0+INT+int64", NULL), 2);
    assert_string_equal(out, "");
    assert_int_equal(tu_count_lines(err), 1);
    assert_non_null(strstr(err, "tosac: error: 'int64' needs TOSA 1.1 (this is 1.0)"));
    free(out);
    free(err);
    assert_int_equal(tu_cli(NULL, &err, "spec", "TOSA-1.0+INT+bogus", "--json", NULL), 2);
    assert_int_equal(tu_count_lines(err), 1);
    assert_non_null(strstr(err, "unknown token 'bogus'"));
    free(err);
    assert_int_equal(tu_cli(NULL, &err, "spec", "TOSA-1.0+FP+u55", NULL), 2);
    assert_non_null(strstr(err, "'u55'"));
    free(err);
    assert_int_equal(tu_cli(NULL, &err, "spec", NULL), 2);
    assert_non_null(strstr(err, "needs a SPEC"));
    free(err);
    assert_int_equal(tu_cli(NULL, &err, "spec", "TOSA-1.0+INT", "TOSA-1.0+FP", NULL), 2);
    assert_non_null(strstr(err, "one SPEC"));
    free(err);
    assert_int_equal(tu_cli(NULL, &err, "spec", "TOSA-1.0+INT", "--yaml", NULL), 2);
    assert_non_null(strstr(err, "unknown option '--yaml'"));
    free(err);
}

static void test_help(void **state)
{
    (void)state;
    char *out = NULL;
    assert_int_equal(tu_cli(&out, NULL, "spec", "--help", NULL), 0);
    assert_non_null(strstr(out, "usage: tosac spec SPEC [--json] [--ops]"));
    assert_non_null(strstr(out, "mxfpconv"));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_fields),
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_ops),
        cmocka_unit_test(test_u55_ops),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_help),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
