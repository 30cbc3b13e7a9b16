/* The JSON reader on hostile text: documents assembled from random pieces of the grammar
 * (deep nesting, odd numbers, escapes, raw bytes), byte mutations and truncations of real
 * desc.json / index.json files. Each parse gives OK or TOSAC_ERR_INPUT with a message, never
 * a crash or an out-of-bounds read (ASan; the text is not NUL-terminated). Whatever is
 * accepted is written back with the JSON writer and must parse to an equal document. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "util/json.h"

/* Equal documents; a non-finite number (the reader keeps 1e400 as infinity, like JavaScript)
 * is written as null by design. */
static bool json_equal(const tosac_json *a, const tosac_json *b)
{
    if (a->type == TOSAC_JSON_NUMBER && !isfinite(a->number))
        return b->type == TOSAC_JSON_NULL;
    if (a->type != b->type)
        return false;
    switch (a->type) {
    case TOSAC_JSON_NULL: return true;
    case TOSAC_JSON_BOOL: return a->boolean == b->boolean;
    case TOSAC_JSON_NUMBER:
        return a->number == b->number && a->is_int == b->is_int &&
               (!a->is_int || a->integer == b->integer);
    case TOSAC_JSON_STRING:
        return a->str_len == b->str_len && memcmp(a->str, b->str, a->str_len) == 0;
    case TOSAC_JSON_ARRAY:
    case TOSAC_JSON_OBJECT:
        if (a->n != b->n)
            return false;
        for (int i = 0; i < a->n; i++)
            if ((a->type == TOSAC_JSON_OBJECT && strcmp(a->keys[i], b->keys[i]) != 0) ||
                !json_equal(&a->items[i], &b->items[i]))
                return false;
        return true;
    }
    return false;
}

/* Writes v; false if it holds a string with an embedded NUL (the writer takes C strings). */
static bool write_value(tosac_json_writer *w, const tosac_json *v)
{
    switch (v->type) {
    case TOSAC_JSON_NULL: tosac_json_write_null(w); return true;
    case TOSAC_JSON_BOOL: tosac_json_write_bool(w, v->boolean); return true;
    case TOSAC_JSON_NUMBER:
        if (v->is_int)
            tosac_json_write_int(w, v->integer);
        else
            tosac_json_write_double(w, v->number);
        return true;
    case TOSAC_JSON_STRING:
        tosac_json_write_string(w, v->str);
        return strlen(v->str) == v->str_len;
    case TOSAC_JSON_ARRAY:
    case TOSAC_JSON_OBJECT: {
        bool ok = true, obj = v->type == TOSAC_JSON_OBJECT;
        if (obj)
            tosac_json_begin_object(w);
        else
            tosac_json_begin_array(w);
        for (int i = 0; i < v->n; i++) {
            if (obj) {
                tosac_json_key(w, v->keys[i]);
                ok &= strlen(v->keys[i]) < 1u << 20;
            }
            ok &= write_value(w, &v->items[i]);
        }
        if (obj)
            tosac_json_end_object(w);
        else
            tosac_json_end_array(w);
        return ok;
    }
    }
    return false;
}

static bool has_nul_key(const tosac_json *v)
{
    if (v->type != TOSAC_JSON_OBJECT && v->type != TOSAC_JSON_ARRAY)
        return false;
    for (int i = 0; i < v->n; i++)
        if (has_nul_key(&v->items[i]))
            return true;
    return false;
}

/* Parses an exactly-sized copy; on success checks the write/read round trip. */
static int try_json(const char *text, size_t len)
{
    char *copy = tu_memdup(text, len);
    tosac_json *doc = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    tosac_code rc = tosac_json_parse(copy, len, &doc, &err);
    free(copy);
    if (rc != TOSAC_OK) {
        if (rc != TOSAC_ERR_INPUT)
            fail_msg("json parse returned %d: %s", rc, err.msg);
        assert_true(err.msg[0] != '\0');
        assert_null(doc);
        return 0;
    }
    for (int pretty = 0; pretty < 2; pretty++) {
        tosac_json_writer w;
        tosac_json_writer_init(&w, pretty);
        bool plain = write_value(&w, doc) && !has_nul_key(doc);
        size_t olen;
        char *out = tosac_json_writer_take(&w, &olen);
        tosac_json_writer_free(&w);
        if (!out)
            fail_msg("the writer refused a document the reader accepted");
        tosac_json *back = NULL;
        if (tosac_json_parse(out, olen, &back, &err) != TOSAC_OK)
            fail_msg("re-reading the written document failed: %s\n%s", err.msg, out);
        if (plain && !json_equal(doc, back))
            fail_msg("round trip changed the document:\n%.*s\n->\n%s", (int)len, text, out);
        tosac_json_free(back);
        free(out);
    }
    tosac_json_free(doc);
    return 1;
}

static const char *const atoms[] = {
    "null", "true", "false", "0", "-0", "1", "-1", "1.5", "1e5", "1E-5", "-0.0e+0",
    "9007199254740993", "-9223372036854775808", "9223372036854775807", "9223372036854775808",
    "1e400", "-1e400", "4.9e-324", "1e-400", "0.1", "123456789012345678901234567890",
    "\"\"", "\"a\"", "\"\\u0041\\n\\t\\\"\\\\\\/\"", "\"\\ud83d\\ude00\"", "\"\\u0000\"",
    "\"\xc3\xa9\"", "\"\xf0\x9f\x98\x80\"",
    /* broken ones */
    "01", "1.", ".5", "+1", "1e", "-", "--1", "NaN", "Infinity", "nul", "tru", "\"\\ud800\"",
    "\"\\udc00\"", "\"\\x41\"", "\"\\u12\"", "\"\xff\"", "\"\xc3\"", "\"\xed\xa0\x80\"",
    "\"\x01\"", "\"abc", "'a'", "/*c*/1"};
static const char *const keys[] = {"\"a\"", "\"b\"", "\"\"", "\"a\"", "\"\\u0061\"", "a", "1",
                                   "\"\\u0000\""};

#define PICK(a) a[tu_below(sizeof a / sizeof a[0])]

/* Appends a random value (depth-limited) to s[*n..cap). */
static void gen_value(char *s, size_t *n, size_t cap, int depth)
{
    if (*n + 64 >= cap)
        return;
    uint32_t k = depth > 6 ? 0 : tu_below(4);
    if (k < 2) {
        *n += (size_t)snprintf(s + *n, cap - *n, "%s", tu_below(4) ? atoms[tu_below(28)] : PICK(atoms));
        return;
    }
    bool obj = k == 3;
    s[(*n)++] = obj ? '{' : '[';
    int items = (int)tu_below(4);
    for (int i = 0; i < items && *n + 64 < cap; i++) {
        if (i)
            *n += (size_t)snprintf(s + *n, cap - *n, "%s", tu_below(20) ? "," : tu_below(2) ? ",," : "");
        if (obj)
            *n += (size_t)snprintf(s + *n, cap - *n, "%s%s", tu_below(5) ? keys[tu_below(2)] : PICK(keys),
                                   tu_below(20) ? ":" : "");
        if (tu_below(3) == 0)
            s[(*n)++] = ' ';
        gen_value(s, n, cap, depth + 1);
    }
    if (tu_below(20) == 0 && items)
        s[(*n)++] = ',';
    if (tu_below(30))
        s[(*n)++] = obj ? '}' : ']';
    s[*n] = '\0';
}

static void test_generated_documents(void **state)
{
    (void)state;
    tu_seed(31);
    int accepted = 0;
    for (int iter = 0; iter < 50000; iter++) {
        char s[4096];
        size_t n = 0;
        gen_value(s, &n, sizeof s, 0);
        if (tu_below(20) == 0)
            n += (size_t)snprintf(s + n, sizeof s - n, "%s", tu_below(2) ? " x" : "\n\t ");
        accepted += try_json(s, n);
    }
    fprintf(stderr, "generated documents: %d of 50000 accepted\n", accepted);
    assert_true(accepted > 5000);
}

/* Nesting at and beyond the limit, and the writer keeping up with what the reader takes. */
static void test_depth_edges(void **state)
{
    (void)state;
    static char s[8 * (TOSAC_JSON_MAX_DEPTH + 8)];
    for (int depth = TOSAC_JSON_MAX_DEPTH - 2; depth <= TOSAC_JSON_MAX_DEPTH + 2; depth++) {
        for (int obj = 0; obj < 2; obj++) {
            size_t n = 0;
            for (int i = 0; i < depth; i++)
                n += (size_t)snprintf(s + n, sizeof s - n, "%s", obj ? "{\"k\":" : "[");
            s[n++] = '1';
            for (int i = 0; i < depth; i++)
                s[n++] = obj ? '}' : ']';
            int ok = try_json(s, n);
            assert_int_equal(ok, depth <= TOSAC_JSON_MAX_DEPTH);
        }
    }
}

static void test_mutated_real_files(void **state)
{
    (void)state;
    static const char *const files[] = {
        "conformance/transpose/transpose_15x6_f32_perm0_fs/desc.json",
        "models/synth_qdq_s8_op13_add/meta.json",
    };
    tu_seed(32);
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        void *data;
        size_t len;
        tosac_error err;
        tosac_error_clear(&err);
        if (tosac_read_file(tu_shared(files[f]), &data, &len, &err))
            fail_msg("%s", err.msg);
        char *m = malloc(len);
        int accepted = 0;
        for (int iter = 0; iter < 4000; iter++) {
            memcpy(m, data, len);
            for (int e = 1 + (int)tu_below(2); e > 0; e--) {
                size_t pos = tu_below((uint32_t)len);
                m[pos] = tu_below(2) ? (char)tu_rand() : (char)(m[pos] ^ (1 << tu_below(8)));
            }
            accepted += try_json(m, tu_below(10) ? len : tu_below((uint32_t)len + 1));
        }
        fprintf(stderr, "%s: %d of 4000 mutations accepted\n", files[f], accepted);
        free(m);
        free(data);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generated_documents),
        cmocka_unit_test(test_depth_edges),
        cmocka_unit_test(test_mutated_real_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
