/* tosa_spec_parse on hostile strings: random sequences of real and broken tokens, versions
 * and separators, and byte mutations of valid strings. Each parse gives OK or an INPUT /
 * UNSUPPORTED error with a one-line message, never a crash (ASan). Whatever is accepted
 * prints a canonical string that parses back to the same spec and prints identically. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/spec.h"

static const char *const versions[] = {
    "TOSA-1.0", "TOSA-1.1", "TOSA-1.0.2", "TOSA-1.1.0", "TOSA-1.0.0", "TOSA-1.2", "TOSA-0.80",
    "TOSA-1", "TOSA-01.0", "TOSA-1.0.9999999", "TOSA-99999999999.0", "TOSA-", "tosa-1.0",
    "TOSA-1.0.", "TOSA-1..0", "TOSA-+1.0", "TOSA-1.-1", "", "TOSA-1.0\xff"};
static const char *const tokens[] = {
    "INT", "FP", "int16", "int4", "int64", "bf16", "fp8e4m3", "fp8e5m2", "fft", "var", "cf",
    "dynamic", "doubleround", "inexactround", "shape", "mxcommon", "mxfp4e2m1", "mxfp6e2m3",
    "mxfp6e3m2", "mxfp8e4m3", "mxfp8e5m2", "mxint8", "mxfpconv", "8k", "u55",
    /* broken ones */
    "", "int", "Int16", "INT ", " FP", "fp", "8K", "U55", "PRO-INT", "EXT-INT16", "TOSA-1.0",
    "\t", "int16\n", "\xc3\xa9", "-", "++",
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"};
static const char *const joins[] = {"+", "+", "+", "+", "+", "", " ", "++", "+ ", ","};

#define PICK(a) a[tu_below(sizeof a / sizeof a[0])]

/* Parses s (given an exactly-sized copy) and checks the round trip. Returns 1 if accepted. */
static int try_spec(const char *s)
{
    char *copy = tu_memdup(s, strlen(s) + 1);
    tosa_spec spec;
    tosac_error err;
    tosac_error_clear(&err);
    tosac_code rc = tosa_spec_parse(copy, &spec, &err);
    free(copy);
    if (rc != TOSAC_OK) {
        if (rc != TOSAC_ERR_INPUT && rc != TOSAC_ERR_UNSUPPORTED)
            fail_msg("'%s': code %d: %s", s, rc, err.msg);
        assert_true(err.msg[0] != '\0');
        assert_null(strchr(err.msg, '\n'));
        return 0;
    }
    char canon[256], again[256];
    int n = tosa_spec_to_string(&spec, canon, sizeof canon);
    assert_true(n > 0 && n < (int)sizeof canon);
    tosa_spec back;
    if (tosa_spec_parse(canon, &back, &err) != TOSAC_OK)
        fail_msg("'%s' printed as '%s', which does not parse: %s", s, canon, err.msg);
    tosa_spec_to_string(&back, again, sizeof again);
    assert_string_equal(canon, again);
    assert_int_equal(back.major, spec.major);
    assert_int_equal(back.minor, spec.minor);
    assert_int_equal(back.profiles, spec.profiles);
    assert_int_equal(back.level, spec.level);
    assert_int_equal(back.u55, spec.u55);
    return 1;
}

static void test_token_sequences(void **state)
{
    (void)state;
    tu_seed(21);
    int accepted = 0;
    for (int iter = 0; iter < 100000; iter++) {
        char s[1024];
        size_t n = (size_t)snprintf(s, sizeof s, "%s", tu_below(8) ? versions[tu_below(2)] : PICK(versions));
        for (int k = (int)tu_below(7); k > 0 && n < sizeof s; k--) {
            const char *tok = tu_below(6) ? tokens[tu_below(25)] : PICK(tokens);
            n += (size_t)snprintf(s + n, sizeof s - n, "%s%s", tu_below(10) ? "+" : PICK(joins), tok);
        }
        accepted += try_spec(s);
    }
    fprintf(stderr, "token sequences: %d of 100000 accepted\n", accepted);
    assert_true(accepted > 1000);
}

static void test_byte_mutations(void **state)
{
    (void)state;
    static const char *const seeds[] = {"TOSA-1.0+INT+int16+8k", "TOSA-1.1+FP+mxfp8e4m3+bf16",
                                        "TOSA-1.0.2+INT+u55", "TOSA-1.1+INT+FP+int64+shape+dynamic"};
    tu_seed(22);
    for (int iter = 0; iter < 50000; iter++) {
        char s[128];
        snprintf(s, sizeof s, "%s", PICK(seeds));
        size_t len = strlen(s);
        for (int e = 1 + (int)tu_below(3); e > 0; e--) {
            size_t pos = tu_below((uint32_t)len);
            s[pos] = tu_below(2) ? (char)(1 + tu_below(255)) : (char)(s[pos] ^ (1 << tu_below(7)));
            if (s[pos] == '\0')
                s[pos] = 'x';
        }
        if (tu_below(8) == 0)
            s[tu_below((uint32_t)len)] = '\0'; /* a truncation */
        try_spec(s);
    }
}

/* A string far longer than any message or buffer: still one clear error. */
static void test_very_long(void **state)
{
    (void)state;
    size_t n = 100000;
    char *s = malloc(n + 1);
    memcpy(s, "TOSA-1.0+INT+", 13);
    memset(s + 13, 'a', n - 13);
    s[n] = '\0';
    assert_int_equal(try_spec(s), 0);
    for (size_t i = 13; i + 4 < n; i += 4)
        memcpy(s + i, "+FP+", 4); /* duplicate tokens over and over */
    assert_int_equal(try_spec(s), 0);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_token_sequences),
        cmocka_unit_test(test_byte_mutations),
        cmocka_unit_test(test_very_long),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
