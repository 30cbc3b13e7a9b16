/* Spec strings: every extension x version x profile rule, tokens, errors, queries, printing.
 * The expected rules are written out here by hand from the XML's <profile_extensions>
 * (spec/tosa-1.0.2.xml and spec/tosa.xml), independently of the generated tables. */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "tosac/spec.h"

enum { NEED_INT = 1, NEED_FP = 2, NEED_ANY = 3 };
static const struct {
    const char *token;
    int in_1_0;  /* defined by TOSA 1.0.2 (all are defined by 1.1) */
    int need;    /* <profile_supported> */
} rules[] = {
    {"int16", 1, NEED_INT},     {"int4", 1, NEED_INT},       {"int64", 0, NEED_ANY},
    {"bf16", 1, NEED_FP},       {"fp8e4m3", 1, NEED_FP},     {"fp8e5m2", 1, NEED_FP},
    {"fft", 1, NEED_FP},        {"var", 1, NEED_ANY},        {"cf", 1, NEED_ANY},
    {"dynamic", 1, NEED_ANY},   {"doubleround", 1, NEED_INT}, {"inexactround", 1, NEED_INT},
    {"shape", 0, NEED_ANY},     {"mxcommon", 0, NEED_FP},    {"mxfp4e2m1", 0, NEED_FP},
    {"mxfp6e2m3", 0, NEED_FP},  {"mxfp6e3m2", 0, NEED_FP},   {"mxfp8e4m3", 0, NEED_FP},
    {"mxfp8e5m2", 0, NEED_FP},  {"mxint8", 0, NEED_FP},      {"mxfpconv", 0, NEED_FP},
};
#define N_RULES (int)(sizeof rules / sizeof rules[0])

static tosa_spec parse_ok(const char *s)
{
    tosac_error err;
    tosac_error_clear(&err);
    tosa_spec sp;
    tosac_code rc = tosa_spec_parse(s, &sp, &err);
    if (rc)
        fail_msg("'%s' rejected: %s", s, err.msg);
    return sp;
}

/* Parses s expecting TOSAC_ERR_INPUT; returns the message (static buffer). */
static const char *parse_bad(const char *s)
{
    static tosac_error err;
    tosac_error_clear(&err);
    tosa_spec sp;
    memset(&sp, 0x5a, sizeof sp);
    tosa_spec before = sp;
    tosac_code rc = tosa_spec_parse(s, &sp, &err);
    if (rc != TOSAC_ERR_INPUT)
        fail_msg("'%s' accepted (rc %d)", s ? s : "(null)", rc);
    assert_memory_equal(&sp, &before, sizeof sp); /* untouched on failure */
    assert_null(strchr(err.msg, '\n'));
    return err.msg;
}

static void test_extension_version_profile_matrix(void **state)
{
    (void)state;
    static const char *const versions[] = {"1.0", "1.1"};
    static const struct {
        const char *text;
        int mask;
    } profiles[] = {{"INT", NEED_INT}, {"FP", NEED_FP}, {"INT+FP", NEED_ANY}};
    int valid = 0, invalid = 0;
    for (int v = 0; v < 2; v++)
        for (int p = 0; p < 3; p++)
            for (int r = 0; r < N_RULES; r++) {
                char s[128];
                snprintf(s, sizeof s, "TOSA-%s+%s+%s", versions[v], profiles[p].text, rules[r].token);
                int exists = v == 1 || rules[r].in_1_0;
                int fits = (rules[r].need & profiles[p].mask) != 0;
                if (exists && fits) {
                    tosa_spec sp = parse_ok(s);
                    assert_true(tosa_spec_supports_extension(&sp, rules[r].token));
                    valid++;
                    continue;
                }
                const char *msg = parse_bad(s);
                char quoted[32];
                snprintf(quoted, sizeof quoted, "'%s'", rules[r].token);
                assert_non_null(strstr(msg, quoted));
                if (!exists)
                    assert_non_null(strstr(msg, "needs TOSA 1.1 (this is 1.0)"));
                else
                    assert_non_null(strstr(msg, rules[r].need == NEED_INT ? "needs the INT profile"
                                                                          : "needs the FP profile"));
                invalid++;
            }
    /* 1.0: 11 extensions (4 INT, 4 FP, 3 either); 1.1: 21 (4 INT, 12 FP, 5 either) */
    assert_int_equal(valid, (7 + 7 + 11) + (9 + 17 + 21));
    assert_int_equal(invalid, 2 * 3 * N_RULES - valid);
}

static void test_error_lists_what_is_valid(void **state)
{
    (void)state;
    assert_string_equal(parse_bad("TOSA-1.0+INT+int64"),
                        "'int64' needs TOSA 1.1 (this is 1.0); valid extensions for 1.0: int16, "
                        "int4, bf16, fp8e4m3, fp8e5m2, fft, var, cf, dynamic, doubleround, "
                        "inexactround");
    assert_string_equal(parse_bad("TOSA-1.0+FP+int16"),
                        "'int16' needs the INT profile (spec has only FP); valid extensions with "
                        "FP in 1.0: bf16, fp8e4m3, fp8e5m2, fft, var, cf, dynamic");
    assert_string_equal(parse_bad("TOSA-1.1+INT+bf16"),
                        "'bf16' needs the FP profile (spec has only INT); valid extensions with "
                        "INT in 1.1: int16, int4, int64, var, cf, dynamic, doubleround, "
                        "inexactround, shape");
    const char *m = parse_bad("TOSA-1.0+INT+foo");
    assert_non_null(strstr(m, "unknown token 'foo'"));
    assert_non_null(strstr(m, "profiles INT, FP"));
    assert_non_null(strstr(m, "level 8k"));
    assert_non_null(strstr(m, "subset u55"));
    assert_non_null(strstr(parse_bad("TOSA-1.0+int"), "did you mean 'INT'?"));
    assert_non_null(strstr(parse_bad("TOSA-1.0+INT+8K"), "did you mean '8k'?"));
    assert_non_null(strstr(parse_bad("TOSA-1.0+INT+Int16"), "did you mean 'int16'?"));
    assert_non_null(strstr(parse_bad("TOSA-1.0+INT+U55"), "did you mean 'u55'?"));
}

static void test_versions(void **state)
{
    (void)state;
    tosa_spec sp = parse_ok("TOSA-1.0+INT");
    assert_int_equal(sp.major, 1);
    assert_int_equal(sp.minor, 0);
    assert_int_equal(sp.patch, -1);
    sp = parse_ok("TOSA-1.0.2+INT");
    assert_int_equal(sp.patch, 2);
    parse_ok("TOSA-1.0.0+INT");
    parse_ok("TOSA-1.1.0+FP");
    assert_string_equal(parse_bad("TOSA-2.0+INT"),
                        "TOSA version '2.0' is not supported (valid versions: 1.0, 1.1)");
    assert_non_null(strstr(parse_bad("TOSA-0.80+INT"), "'0.80' is not supported"));
    assert_non_null(strstr(parse_bad("TOSA-1.2+INT"), "'1.2' is not supported"));
    assert_non_null(strstr(parse_bad("TOSA-1.0.3+INT"), "'1.0.3' is unknown (newest 1.0 is 1.0.2)"));
    assert_non_null(strstr(parse_bad("TOSA-1.1.1+INT"), "'1.1.1' is unknown"));
    assert_non_null(strstr(parse_bad("TOSA-1+INT"), "bad TOSA version '1'"));
    assert_non_null(strstr(parse_bad("TOSA-1.+INT"), "bad TOSA version '1.'"));
    assert_non_null(strstr(parse_bad("TOSA-1.0.+INT"), "bad TOSA version"));
    assert_non_null(strstr(parse_bad("TOSA-1.0x+INT"), "bad TOSA version '1.0x'"));
    assert_non_null(strstr(parse_bad("TOSA-+INT"), "bad TOSA version"));
    assert_non_null(strstr(parse_bad("TOSA-99999999999.0+INT"), "bad TOSA version"));
    assert_non_null(strstr(parse_bad("tosa-1.0+INT"), "does not start with 'TOSA-'"));
    assert_non_null(strstr(parse_bad("INT"), "does not start with 'TOSA-'"));
    assert_non_null(strstr(parse_bad(""), "empty spec string"));
    assert_non_null(strstr(parse_bad(NULL), "empty spec string"));
    assert_non_null(strstr(parse_bad("TOSA-1.0+INT "), "byte 0x20 at offset 12"));
    assert_non_null(strstr(parse_bad("TOSA-1.0\n+INT"), "non-printable"));
}

static void test_profiles_duplicates_u55_level(void **state)
{
    (void)state;
    assert_non_null(strstr(parse_bad("TOSA-1.0"), "names no profile"));
    assert_non_null(strstr(parse_bad("TOSA-1.1+int64"), "names no profile"));
    assert_non_null(strstr(parse_bad("TOSA-1.0+8k"), "names no profile"));
    assert_string_equal(parse_bad("TOSA-1.0+INT+INT"), "duplicate token 'INT' in spec string");
    assert_non_null(strstr(parse_bad("TOSA-1.0+FP+INT+FP"), "duplicate token 'FP'"));
    assert_non_null(strstr(parse_bad("TOSA-1.0+INT+int16+int16"), "duplicate token 'int16'"));
    assert_non_null(strstr(parse_bad("TOSA-1.0+INT+8k+8k"), "duplicate token '8k'"));
    assert_non_null(strstr(parse_bad("TOSA-1.0+INT+u55+u55"), "duplicate token 'u55'"));
    assert_non_null(strstr(parse_bad("TOSA-1.0+INT+"), "empty token"));
    assert_non_null(strstr(parse_bad("TOSA-1.0++INT"), "empty token"));
    assert_non_null(strstr(parse_bad("TOSA-1.0+FP+u55"), "'u55' (Arm Ethos-U55) is integer-only"));
    assert_non_null(strstr(parse_bad("TOSA-1.0+INT+FP+u55"), "integer-only"));
    /* u55 is integer-only and implies INT; FP-only extensions then need FP */
    tosa_spec sp = parse_ok("TOSA-1.0+u55");
    assert_true(tosa_spec_supports_integer(&sp));
    assert_false(tosa_spec_supports_float(&sp));
    assert_true(tosa_spec_is_u55_subset(&sp));
    assert_non_null(strstr(parse_bad("TOSA-1.0+u55+bf16"), "'bf16' needs the FP profile"));
    sp = parse_ok("TOSA-1.0+int16+INT+u55+8k"); /* order does not matter */
    assert_int_equal(sp.level, TOSA_LEVEL_8K);
    assert_true(tosa_spec_supports_extension(&sp, "int16"));
    sp = parse_ok("TOSA-1.0+FP+INT");
    assert_true(tosa_spec_supports_integer(&sp) && tosa_spec_supports_float(&sp));
    assert_false(tosa_spec_is_u55_subset(&sp));
    assert_int_equal(sp.level, TOSA_LEVEL_NONE);
}

static void test_queries(void **state)
{
    (void)state;
    tosa_spec sp = parse_ok("TOSA-1.1+INT+int64");
    assert_true(tosa_spec_keeps_int64(&sp));
    assert_true(tosa_spec_supports_extension(&sp, "int64"));
    assert_false(tosa_spec_supports_extension(&sp, "int16"));
    assert_false(tosa_spec_supports_extension(&sp, "INT"));
    assert_false(tosa_spec_supports_extension(&sp, "nonsense"));
    assert_false(tosa_spec_supports_extension(&sp, NULL));
    sp = parse_ok("TOSA-1.1+FP+int64");            /* EXT-INT64 goes with PRO-FP too */
    assert_true(tosa_spec_keeps_int64(&sp));
    sp = parse_ok("TOSA-1.1+INT+FP+int64");
    assert_true(tosa_spec_keeps_int64(&sp));
    sp = parse_ok("TOSA-1.1+INT");
    assert_false(tosa_spec_keeps_int64(&sp));
    /* a microscaling format brings EXT-MX-COMMON with it */
    sp = parse_ok("TOSA-1.1+FP+mxfp4e2m1");
    assert_true(tosa_spec_supports_extension(&sp, "mxcommon"));
    assert_true(tosa_spec_has_ext(&sp, TOSA_EXT_MX_FP4E2M1));
    assert_false(tosa_spec_has_ext(&sp, TOSA_EXT_MX_INT8));
    assert_int_equal(tosa_spec_features(&sp), TOSA_FEAT_FP | TOSA_FEAT_EXT(TOSA_EXT_MX_COMMON) |
                                                  TOSA_FEAT_EXT(TOSA_EXT_MX_FP4E2M1));
    sp = parse_ok("TOSA-1.1+FP+mxcommon");
    assert_false(tosa_spec_has_ext(&sp, TOSA_EXT_MX_FP4E2M1));
    assert_int_equal(tosa_ext_from_token("cf"), TOSA_EXT_CONTROLFLOW);
    assert_int_equal(tosa_ext_from_token("var"), TOSA_EXT_VARIABLE);
    assert_int_equal(tosa_ext_from_token("EXT-INT16"), -1);
    assert_string_equal(tosa_ext_xml_name(TOSA_EXT_MXFP_CONV), "EXT-MXFP-CONV");
    assert_string_equal(tosa_ext_token(TOSA_EXT_MX_FP6E3M2), "mxfp6e3m2");
    assert_null(tosa_ext_token(TOSA_EXT_COUNT));
}

static void test_to_string(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"TOSA-1.0+INT", "TOSA-1.0+INT"},
        {"TOSA-1.0.2+FP+INT", "TOSA-1.0.2+INT+FP"},
        {"TOSA-1.0+u55+8k+int16", "TOSA-1.0+INT+int16+8k+u55"},
        {"TOSA-1.1+FP+INT+shape+int64+bf16", "TOSA-1.1+INT+FP+int64+bf16+shape"},
        {"TOSA-1.1+FP+mxfpconv+mxfp4e2m1", "TOSA-1.1+FP+mxfp4e2m1+mxfpconv"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tosa_spec sp = parse_ok(cases[i][0]);
        char buf[128];
        int n = tosa_spec_to_string(&sp, buf, sizeof buf);
        assert_string_equal(buf, cases[i][1]);
        assert_int_equal(n, (int)strlen(cases[i][1]));
        tosa_spec again = parse_ok(buf);
        assert_memory_equal(&again, &sp, sizeof sp);
    }
    tosa_spec sp = parse_ok("TOSA-1.0+INT+int16");
    char small[8];
    assert_int_equal(tosa_spec_to_string(&sp, small, sizeof small), 18);
    assert_string_equal(small, "TOSA-1.");
}

/* Long and odd strings: one bounded line, no crash (the sanitizer build checks reads). */
static void test_hostile_input(void **state)
{
    (void)state;
    static char s[20000];
    strcpy(s, "TOSA-1.0");
    for (int i = 0; i < 2000; i++)
        strcat(s, "+INT");
    assert_non_null(strstr(parse_bad(s), "duplicate token 'INT'"));
    strcpy(s, "TOSA-1.0+INT+");
    memset(s + 13, 'x', 5000);
    s[5013] = '\0';
    const char *m = parse_bad(s);
    assert_true(strlen(m) < 400);
    assert_non_null(strstr(m, "unknown token 'xxxx"));
    s[8] = '\0';
    memset(s + 8, '7', 3000); /* TOSA-1.0777...: version too long */
    s[3008] = '\0';
    assert_non_null(strstr(parse_bad(s), "bad TOSA version"));
    assert_non_null(strstr(parse_bad("TOSA-1.0+INT+\xc3\xa9"), "non-printable"));
    assert_non_null(strstr(parse_bad("TOSA-1.0+INT+int16\x7f"), "byte 0x7f"));
    assert_non_null(strstr(parse_bad("TOSA-1.0+INT+int16x"), "unknown token 'int16x'"));
    assert_non_null(strstr(parse_bad("TOSA-1.0+INT+in"), "unknown token 'in'"));
    assert_non_null(strstr(parse_bad("TOSA-"), "bad TOSA version ''"));
    assert_non_null(strstr(parse_bad("TOSA-1.0+"), "empty token"));
    assert_non_null(strstr(parse_bad("TOSA-1.0+INT+mxfp4e2m1"), "'mxfp4e2m1' needs TOSA 1.1"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_extension_version_profile_matrix),
        cmocka_unit_test(test_error_lists_what_is_valid),
        cmocka_unit_test(test_versions),
        cmocka_unit_test(test_profiles_duplicates_u55_level),
        cmocka_unit_test(test_queries),
        cmocka_unit_test(test_to_string),
        cmocka_unit_test(test_hostile_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
