/* JSON reader and writer: every value kind, escapes, exact integers, strictness with the
 * byte offset of the problem, depth limit, writer commas/escapes, and a real desc.json. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"

static tosac_json *parse_ok(const char *text)
{
    tosac_json *v = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    tosac_code rc = tosac_json_parse(text, strlen(text), &v, &err);
    if (rc != TOSAC_OK)
        fail_msg("parse of '%s' failed: %s", text, err.msg);
    return v;
}

/* Parses text expecting failure; returns the message (static). */
static const char *parse_bad(const char *text, size_t len)
{
    static tosac_error err;
    tosac_json *v = (tosac_json *)1;
    tosac_error_clear(&err);
    assert_int_equal(tosac_json_parse(text, len, &v, &err), TOSAC_ERR_INPUT);
    assert_null(v);
    return err.msg;
}

static void test_scalars(void **state)
{
    (void)state;
    tosac_json *v = parse_ok(" [true, false, null, \"x\", 0, -12, 3.5, 1e2, -0.25e-1] ");
    assert_int_equal(v->type, TOSAC_JSON_ARRAY);
    assert_int_equal(tosac_json_count(v), 9);
    bool b;
    assert_true(tosac_json_bool(tosac_json_at(v, 0), &b) && b);
    assert_true(tosac_json_bool(tosac_json_at(v, 1), &b) && !b);
    assert_int_equal(tosac_json_at(v, 2)->type, TOSAC_JSON_NULL);
    assert_string_equal(tosac_json_string(tosac_json_at(v, 3)), "x");
    int64_t i;
    assert_true(tosac_json_int(tosac_json_at(v, 4), &i) && i == 0);
    assert_true(tosac_json_int(tosac_json_at(v, 5), &i) && i == -12);
    assert_false(tosac_json_int(tosac_json_at(v, 6), &i));
    double d;
    assert_true(tosac_json_double(tosac_json_at(v, 6), &d) && d == 3.5);
    /* 1e2 is an integer value written with an exponent: still exact */
    assert_true(tosac_json_int(tosac_json_at(v, 7), &i) && i == 100);
    assert_true(tosac_json_double(tosac_json_at(v, 8), &d) && d == -0.025);
    assert_null(tosac_json_at(v, 9));
    assert_null(tosac_json_at(v, -1));
    /* type-mismatched lookups return nothing */
    assert_null(tosac_json_string(tosac_json_at(v, 0)));
    assert_false(tosac_json_bool(tosac_json_at(v, 3), &b));
    assert_null(tosac_json_get(v, "a"));
    tosac_json_free(v);
}

static void test_exact_int64(void **state)
{
    (void)state;
    /* 2^53+1 is not a double; int64 extremes; one past them is not an int */
    tosac_json *v = parse_ok("[9007199254740993, 9223372036854775807, -9223372036854775808,"
                             " 9223372036854775808, -9223372036854775809]");
    int64_t i;
    assert_true(tosac_json_int(tosac_json_at(v, 0), &i));
    assert_true(i == 9007199254740993LL);
    assert_true(tosac_json_int(tosac_json_at(v, 1), &i) && i == INT64_MAX);
    assert_true(tosac_json_int(tosac_json_at(v, 2), &i) && i == INT64_MIN);
    assert_false(tosac_json_int(tosac_json_at(v, 3), &i));
    assert_false(tosac_json_int(tosac_json_at(v, 4), &i));
    double d;
    assert_true(tosac_json_double(tosac_json_at(v, 3), &d) && d == 9223372036854775808.0);
    tosac_json_free(v);
}

static void test_objects(void **state)
{
    (void)state;
    tosac_json *v = parse_ok("{\"a\": {\"b\": [1, {\"c\": \"d\"}]}, \"e\": {}, \"f\": []}");
    assert_int_equal(tosac_json_count(v), 3);
    const tosac_json *c = tosac_json_get(tosac_json_at(tosac_json_get(tosac_json_get(v, "a"), "b"), 1), "c");
    assert_string_equal(tosac_json_string(c), "d");
    assert_int_equal(tosac_json_count(tosac_json_get(v, "e")), 0);
    assert_int_equal(tosac_json_count(tosac_json_get(v, "f")), 0);
    assert_int_equal(tosac_json_count(c), -1);
    assert_string_equal(v->keys[2], "f");
    tosac_json_free(v);
}

static void test_string_escapes(void **state)
{
    (void)state;
    tosac_json *v = parse_ok("[\"q\\\"b\\\\s\\/n\\nt\\tr\\rb\\bf\\f\", \"\\u00e9\\u20ac\\ud83d\\ude00\","
                             " \"a\\u0000b\", \"\xc3\xa9\"]");
    assert_string_equal(tosac_json_string(tosac_json_at(v, 0)), "q\"b\\s/n\nt\tr\rb\bf\f");
    /* e-acute (2 bytes), euro sign (3 bytes), U+1F600 from a surrogate pair (4 bytes) */
    assert_string_equal(tosac_json_string(tosac_json_at(v, 1)),
                        "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    const tosac_json *z = tosac_json_at(v, 2);
    assert_int_equal(z->str_len, 3);
    assert_memory_equal(z->str, "a\0b", 3);
    assert_string_equal(tosac_json_string(tosac_json_at(v, 3)), "\xc3\xa9");
    tosac_json_free(v);
}

static void test_errors_name_offset(void **state)
{
    (void)state;
    assert_string_equal(parse_bad("[1, 2,]", 7),
                        "invalid JSON at byte 6: unexpected character (expected a value)");
    assert_string_equal(parse_bad("{\"a\" 1}", 7), "invalid JSON at byte 5: expected ':' after object key");
    assert_string_equal(parse_bad("{\"a\":1,\"a\":2}", 13), "invalid JSON at byte 7: duplicate key in object");
    assert_string_equal(parse_bad("012", 3), "invalid JSON at byte 0: leading zero in number");
    assert_string_equal(parse_bad("[1] x", 5), "invalid JSON at byte 4: unexpected data after the value");
    assert_string_equal(parse_bad("", 0), "invalid JSON at byte 0: unexpected end of input");
    assert_string_equal(parse_bad("\"abc", 4), "invalid JSON at byte 0: unterminated string");
    assert_string_equal(parse_bad("\"a\nb\"", 5),
                        "invalid JSON at byte 2: control character in string (must be escaped)");
    assert_string_equal(parse_bad("\"\\x\"", 4), "invalid JSON at byte 1: unknown escape in string");
    assert_string_equal(parse_bad("\"\\ud800x\"", 9),
                        "invalid JSON at byte 1: high surrogate not followed by a low surrogate");
    assert_string_equal(parse_bad("\"\\udc00\"", 8), "invalid JSON at byte 1: lone low surrogate in \\u escape");
    assert_string_equal(parse_bad("\"\\u12g4\"", 8), "invalid JSON at byte 5: bad hex digit in \\u escape");
    assert_string_equal(parse_bad("\"\xc3(\"", 4), "invalid JSON at byte 1: invalid UTF-8 in string");
    /* overlong encoding of '/' */
    assert_string_equal(parse_bad("\"\xc0\xaf\"", 4), "invalid JSON at byte 1: invalid UTF-8 in string");
    assert_string_equal(parse_bad("1.", 2), "invalid JSON at byte 2: expected a digit after '.'");
    assert_string_equal(parse_bad("1e+", 3), "invalid JSON at byte 3: expected a digit in exponent");
    assert_string_equal(parse_bad("-", 1), "invalid JSON at byte 1: expected a digit in number");
    assert_string_equal(parse_bad("tru", 3), "invalid JSON at byte 0: unexpected character (expected a value)");
    assert_string_equal(parse_bad("[1 2]", 5), "invalid JSON at byte 3: expected ',' or ']' in array");
    assert_string_equal(parse_bad("{\"a\":1 \"b\":2}", 13), "invalid JSON at byte 7: expected ',' or '}' in object");
    assert_string_equal(parse_bad("{1:2}", 5), "invalid JSON at byte 1: expected a string key in object");
    assert_string_equal(parse_bad("// c\n1", 6), "invalid JSON at byte 0: unexpected character (expected a value)");
    /* the length bounds parsing: a NUL-free prefix of a valid text is incomplete */
    assert_string_equal(parse_bad("[1, 2]", 4), "invalid JSON at byte 4: unexpected end of input");
}

/* n nested arrays: depths 0..n-1. */
static char *nested(int n)
{
    char *buf = malloc((size_t)2 * n + 1);
    for (int i = 0; i < n; i++) {
        buf[i] = '[';
        buf[2 * n - 1 - i] = ']';
    }
    buf[2 * n] = '\0';
    return buf;
}

static void test_depth_limit(void **state)
{
    (void)state;
    char *buf = nested(TOSAC_JSON_MAX_DEPTH + 2);
    assert_string_equal(parse_bad(buf, strlen(buf)), "invalid JSON at byte 129: nesting too deep");
    free(buf);
    buf = nested(TOSAC_JSON_MAX_DEPTH + 1);
    tosac_json_free(parse_ok(buf));
    free(buf);
}

static void test_writer_compact(void **state)
{
    (void)state;
    tosac_json_writer w;
    tosac_json_writer_init(&w, false);
    tosac_json_begin_object(&w);
    tosac_json_key(&w, "name");
    tosac_json_write_string(&w, "a\"b\\c\n\x01");
    tosac_json_key(&w, "list");
    tosac_json_begin_array(&w);
    tosac_json_write_int(&w, -5);
    tosac_json_write_double(&w, 0.1);
    tosac_json_write_double(&w, 1.0 / 0.0);
    tosac_json_write_bool(&w, true);
    tosac_json_write_null(&w);
    tosac_json_begin_object(&w);
    tosac_json_end_object(&w);
    tosac_json_end_array(&w);
    tosac_json_end_object(&w);
    size_t len;
    char *s = tosac_json_writer_take(&w, &len);
    assert_non_null(s);
    assert_string_equal(s, "{\"name\":\"a\\\"b\\\\c\\n\\u0001\",\"list\":[-5,0.1,null,true,null,{}]}");
    assert_int_equal(len, strlen(s));
    /* what we write, we read back */
    tosac_json *v = parse_ok(s);
    assert_string_equal(tosac_json_string(tosac_json_get(v, "name")), "a\"b\\c\n\x01");
    double d;
    assert_true(tosac_json_double(tosac_json_at(tosac_json_get(v, "list"), 1), &d) && d == 0.1);
    tosac_json_free(v);
    free(s);
}

static void test_writer_pretty(void **state)
{
    (void)state;
    tosac_json_writer w;
    tosac_json_writer_init(&w, true);
    tosac_json_begin_object(&w);
    tosac_json_key(&w, "a");
    tosac_json_begin_array(&w);
    tosac_json_write_int(&w, 1);
    tosac_json_write_int(&w, 2);
    tosac_json_end_array(&w);
    tosac_json_key(&w, "b");
    tosac_json_begin_array(&w);
    tosac_json_end_array(&w);
    tosac_json_end_object(&w);
    char *s = tosac_json_writer_take(&w, NULL);
    assert_string_equal(s, "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": []\n}");
    free(s);
}

static void test_writer_misuse(void **state)
{
    (void)state;
    tosac_json_writer w;
    /* a value in an object without a key */
    tosac_json_writer_init(&w, false);
    tosac_json_begin_object(&w);
    tosac_json_write_int(&w, 1);
    tosac_json_end_object(&w);
    assert_null(tosac_json_writer_take(&w, NULL));
    /* unbalanced */
    tosac_json_writer_init(&w, false);
    tosac_json_begin_array(&w);
    assert_null(tosac_json_writer_take(&w, NULL));
    /* mismatched close */
    tosac_json_writer_init(&w, false);
    tosac_json_begin_array(&w);
    tosac_json_end_object(&w);
    assert_null(tosac_json_writer_take(&w, NULL));
    /* two top-level values */
    tosac_json_writer_init(&w, false);
    tosac_json_write_int(&w, 1);
    tosac_json_write_int(&w, 2);
    assert_null(tosac_json_writer_take(&w, NULL));
}

static void test_escape_helper(void **state)
{
    (void)state;
    char buf[8];
    /* "ab\t" -> "\"ab\\t\"" is 6 bytes; truncation keeps the NUL and reports the full size */
    assert_int_equal(tosac_json_escape("ab\t", buf, sizeof buf), 6);
    assert_string_equal(buf, "\"ab\\t\"");
    assert_int_equal(tosac_json_escape("abcdefgh", buf, sizeof buf), 10);
    assert_string_equal(buf, "\"abcdef");
}

/* Invalid UTF-8 becomes U+FFFD per byte, valid multi-byte sequences pass: the result is
 * always JSON the reader accepts. */
static void test_escape_invalid_utf8(void **state)
{
    (void)state;
    char buf[64];
    /* é (c3 a9) kept; lone ff, truncated e2 82 and a surrogate (ed a0 80) replaced */
    tosac_json_escape("\xc3\xa9|\xff|\xe2\x82|\xed\xa0\x80", buf, sizeof buf);
    assert_string_equal(buf, "\"\xc3\xa9|\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd\"");
    tosac_json *v = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_json_parse(buf, strlen(buf), &v, &err), TOSAC_OK);
    /* é, |, U+FFFD is ef bf bd */
    assert_string_equal(tosac_json_string(v), "\xc3\xa9|\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd|"
                                              "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    tosac_json_free(v);
}

static void test_conformance_desc(void **state)
{
    (void)state;
    tosac_json *v = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    const char *path = tu_shared("conformance/while_loop/while_loop_2x2x1x2x1_f32_iter4/desc.json");
    assert_int_equal(tosac_json_parse_file(path, &v, &err), TOSAC_OK);
    assert_string_equal(tosac_json_string(tosac_json_get(v, "op")), "WHILE_LOOP");
    const tosac_json *in1 = tosac_json_at(tosac_json_get(v, "inputs"), 1);
    assert_string_equal(tosac_json_string(tosac_json_get(in1, "name")), "input-1");
    assert_int_equal(tosac_json_count(tosac_json_get(in1, "shape")), 0);
    const tosac_json *t = tosac_json_get(tosac_json_get(tosac_json_get(v, "meta"), "compliance"), "tensors");
    assert_string_equal(tosac_json_string(tosac_json_get(tosac_json_get(t, "layer-3"), "mode")), "EXACT");
    int64_t seed;
    assert_true(tosac_json_int(tosac_json_get(tosac_json_get(v, "source"), "seed"), &seed) && seed == 42);
    tosac_json_free(v);
    /* a missing file names the path */
    assert_int_equal(tosac_json_parse_file("/nonexistent/x.json", &v, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "/nonexistent/x.json"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalars),          cmocka_unit_test(test_exact_int64),
        cmocka_unit_test(test_objects),          cmocka_unit_test(test_string_escapes),
        cmocka_unit_test(test_errors_name_offset), cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_writer_compact),
        cmocka_unit_test(test_writer_pretty),    cmocka_unit_test(test_writer_misuse),
        cmocka_unit_test(test_escape_helper),
        cmocka_unit_test(test_escape_invalid_utf8),    cmocka_unit_test(test_conformance_desc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
