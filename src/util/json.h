/* A small, strict JSON reader (RFC 8259) into a DOM, and a writer for JSON output.
 *
 * Reader: the text is untrusted. Everything outside the grammar is rejected with
 * TOSAC_ERR_INPUT and a message naming the problem and its byte offset: trailing commas,
 * comments, leading zeros, raw control characters in strings, invalid UTF-8, lone UTF-16
 * surrogates in \u escapes, duplicate object keys, trailing garbage, nesting deeper than
 * TOSAC_JSON_MAX_DEPTH. Numbers keep their double value and, when the value is an integer
 * that fits, the exact int64 (so 9007199254740993 is not rounded).
 *
 * Writer: appends to a growable buffer, inserting commas (and, if asked, newlines and
 * two-space indentation) itself. */
#ifndef TOSAC_UTIL_JSON_H
#define TOSAC_UTIL_JSON_H

#include "tosac/limits.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tosac/error.h"

#define TOSAC_JSON_MAX_DEPTH TOSAC_LIMIT_JSON_DEPTH

typedef enum tosac_json_type {
    TOSAC_JSON_NULL,
    TOSAC_JSON_BOOL,
    TOSAC_JSON_NUMBER,
    TOSAC_JSON_STRING,
    TOSAC_JSON_ARRAY,
    TOSAC_JSON_OBJECT,
} tosac_json_type;

typedef struct tosac_json tosac_json;
struct tosac_json {
    tosac_json_type type;
    bool boolean;
    double number;
    bool is_int;          /* number is an integer representable as int64 */
    int64_t integer;      /* exact value when is_int */
    char *str;            /* STRING: UTF-8, NUL-terminated (may hold \u0000: use str_len) */
    size_t str_len;
    tosac_json *items;    /* ARRAY elements / OBJECT values */
    char **keys;          /* OBJECT keys, parallel to items */
    int n;                /* ARRAY / OBJECT element count */
};

/* Parses text[0..len) (need not be NUL-terminated). *out is freed with tosac_json_free. */
tosac_code tosac_json_parse(const char *text, size_t len, tosac_json **out, tosac_error *err);
/* Reads and parses a file; errors name the path. */
tosac_code tosac_json_parse_file(const char *path, tosac_json **out, tosac_error *err);
void tosac_json_free(tosac_json *v);

/* Lookups: NULL / false when v is NULL, of the wrong type, or the member is absent. */
const tosac_json *tosac_json_get(const tosac_json *obj, const char *key);
const tosac_json *tosac_json_at(const tosac_json *arr, int i);
const char *tosac_json_string(const tosac_json *v);
bool tosac_json_int(const tosac_json *v, int64_t *out);
bool tosac_json_double(const tosac_json *v, double *out);
bool tosac_json_bool(const tosac_json *v, bool *out);
/* Element count of an array/object; -1 for other types or NULL. */
int tosac_json_count(const tosac_json *v);

/* ---- writer ---- */
typedef struct tosac_json_writer {
    char *buf;            /* NUL-terminated output (malloc'd); take it with tosac_json_writer_take */
    size_t len, cap;
    bool failed;          /* out of memory or misuse (e.g. unbalanced end, value without key) */
    bool pretty;          /* newline + two-space indentation per level */
    int depth;
    bool first[TOSAC_JSON_MAX_DEPTH + 1];     /* no element written yet at this level */
    bool in_object[TOSAC_JSON_MAX_DEPTH + 1]; /* level is an object (values need a key) */
    bool after_key;
} tosac_json_writer;

void tosac_json_writer_init(tosac_json_writer *w, bool pretty);
void tosac_json_writer_free(tosac_json_writer *w);
/* Returns the finished text (caller frees) or NULL if the writer failed or is unbalanced. */
char *tosac_json_writer_take(tosac_json_writer *w, size_t *len);

void tosac_json_begin_object(tosac_json_writer *w);
void tosac_json_end_object(tosac_json_writer *w);
void tosac_json_begin_array(tosac_json_writer *w);
void tosac_json_end_array(tosac_json_writer *w);
void tosac_json_key(tosac_json_writer *w, const char *key);
void tosac_json_write_string(tosac_json_writer *w, const char *s);
void tosac_json_write_int(tosac_json_writer *w, int64_t v);
/* Shortest text that reads back as the same double; non-finite values become null. */
void tosac_json_write_double(tosac_json_writer *w, double v);
void tosac_json_write_bool(tosac_json_writer *w, bool v);
void tosac_json_write_null(tosac_json_writer *w);

/* Length of the valid UTF-8 sequence at s[0..n) (1..4), or 0 if invalid (overlong forms,
 * surrogates and values above U+10FFFF are invalid). */
size_t tosac_utf8_seq(const unsigned char *s, size_t n);

/* Appends s as a quoted, escaped JSON string to a plain buffer (for code building JSON by
 * hand). Escapes ", \, control characters (\n \t ... or \u00XX); valid UTF-8 passes through,
 * each byte of an invalid sequence becomes \ufffd (the output is always valid JSON).
 * Returns the number of bytes the full result needs, excluding the NUL (like snprintf). */
size_t tosac_json_escape(const char *s, char *out, size_t outlen);

#endif
