/* Strict JSON reader into a DOM (see json.h for what is rejected and why). */
#include "util/json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"

typedef struct parser {
    const char *s;
    size_t len, pos;
    tosac_error *err;
} parser;

static tosac_code perr(parser *p, size_t at, const char *what)
{
    return tosac_fail(p->err, TOSAC_ERR_INPUT, "invalid JSON at byte %zu: %s", at, what);
}

static tosac_code oom(parser *p)
{
    return tosac_fail(p->err, TOSAC_ERR_INTERNAL, "out of memory parsing JSON");
}

static void skip_ws(parser *p)
{
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        p->pos++;
    }
}

static int peek(const parser *p)
{
    return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

static tosac_code parse_value(parser *p, tosac_json *v, int depth);

static tosac_code parse_literal(parser *p, tosac_json *v)
{
    static const struct {
        const char *word;
        tosac_json_type type;
        bool b;
    } lits[] = {{"true", TOSAC_JSON_BOOL, true}, {"false", TOSAC_JSON_BOOL, false},
                {"null", TOSAC_JSON_NULL, false}};
    for (size_t i = 0; i < 3; i++) {
        size_t n = strlen(lits[i].word);
        if (p->len - p->pos >= n && memcmp(p->s + p->pos, lits[i].word, n) == 0) {
            v->type = lits[i].type;
            v->boolean = lits[i].b;
            p->pos += n;
            return TOSAC_OK;
        }
    }
    return perr(p, p->pos, "unexpected character (expected a value)");
}

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static tosac_code parse_number(parser *p, tosac_json *v)
{
    size_t start = p->pos;
    bool neg = false, plain_int = true;
    if (peek(p) == '-') {
        neg = true;
        p->pos++;
    }
    if (!is_digit(peek(p)))
        return perr(p, p->pos, "expected a digit in number");
    if (peek(p) == '0' && p->pos + 1 < p->len && is_digit((unsigned char)p->s[p->pos + 1]))
        return perr(p, p->pos, "leading zero in number");
    /* Exact integer part, accumulated as a negative value so INT64_MIN fits. */
    int64_t acc = 0;
    bool overflow = false;
    while (is_digit(peek(p))) {
        int d = p->s[p->pos++] - '0';
        if (acc < (INT64_MIN + d) / 10)
            overflow = true;
        else
            acc = acc * 10 - d;
    }
    if (peek(p) == '.') {
        plain_int = false;
        p->pos++;
        if (!is_digit(peek(p)))
            return perr(p, p->pos, "expected a digit after '.'");
        while (is_digit(peek(p)))
            p->pos++;
    }
    if (peek(p) == 'e' || peek(p) == 'E') {
        plain_int = false;
        p->pos++;
        if (peek(p) == '+' || peek(p) == '-')
            p->pos++;
        if (!is_digit(peek(p)))
            return perr(p, p->pos, "expected a digit in exponent");
        while (is_digit(peek(p)))
            p->pos++;
    }
    char tmp[64];
    size_t n = p->pos - start;
    char *text = n < sizeof tmp ? tmp : malloc(n + 1);
    if (!text)
        return oom(p);
    memcpy(text, p->s + start, n);
    text[n] = '\0';
    errno = 0;
    v->number = strtod(text, NULL); /* overflow gives +-HUGE_VAL: kept as inf, like JS */
    if (text != tmp)
        free(text);
    v->type = TOSAC_JSON_NUMBER;
    if (plain_int && !overflow && !(neg == false && acc == INT64_MIN)) {
        v->is_int = true;
        v->integer = neg ? acc : -acc;
    } else if (!plain_int && v->number == floor(v->number) && v->number >= -9223372036854775808.0 &&
               v->number < 9223372036854775808.0) {
        v->is_int = true;
        v->integer = (int64_t)v->number;
    }
    return TOSAC_OK;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static tosac_code read_hex4(parser *p, unsigned *out)
{
    if (p->len - p->pos < 4)
        return perr(p, p->pos, "truncated \\u escape");
    unsigned u = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval((unsigned char)p->s[p->pos + (size_t)i]);
        if (h < 0)
            return perr(p, p->pos + (size_t)i, "bad hex digit in \\u escape");
        u = u * 16 + (unsigned)h;
    }
    p->pos += 4;
    *out = u;
    return TOSAC_OK;
}

static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

size_t tosac_utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t need;
    unsigned cp, min;
    if (c < 0x80)
        return 1;
    if ((c & 0xE0) == 0xC0) {
        need = 2, cp = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        need = 3, cp = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        need = 4, cp = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (n < need)
        return 0;
    for (size_t i = 1; i < need; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return need;
}

/* Parses a string starting at the opening quote; *out is malloc'd (output never longer
 * than the input: escapes shrink or keep length). */
static tosac_code parse_string(parser *p, char **out, size_t *out_len)
{
    size_t start = p->pos++;
    size_t end = p->pos;
    /* Find the closing quote first so the buffer can be sized once. */
    while (end < p->len && p->s[end] != '"')
        end += (p->s[end] == '\\') ? 2 : 1;
    if (end >= p->len)
        return perr(p, start, "unterminated string");
    char *o = malloc(end - p->pos + 1);
    if (!o)
        return oom(p);
    size_t n = 0;
    while (p->s[p->pos] != '"') {
        unsigned char c = (unsigned char)p->s[p->pos];
        if (c < 0x20) {
            free(o);
            return perr(p, p->pos, "control character in string (must be escaped)");
        }
        if (c != '\\') {
            size_t k = tosac_utf8_seq((const unsigned char *)p->s + p->pos, p->len - p->pos);
            if (k == 0) {
                free(o);
                return perr(p, p->pos, "invalid UTF-8 in string");
            }
            memcpy(o + n, p->s + p->pos, k);
            n += k;
            p->pos += k;
            continue;
        }
        size_t esc_at = p->pos;
        p->pos++;
        char e = p->s[p->pos++];
        unsigned cp;
        switch (e) {
        case '"': o[n++] = '"'; break;
        case '\\': o[n++] = '\\'; break;
        case '/': o[n++] = '/'; break;
        case 'b': o[n++] = '\b'; break;
        case 'f': o[n++] = '\f'; break;
        case 'n': o[n++] = '\n'; break;
        case 'r': o[n++] = '\r'; break;
        case 't': o[n++] = '\t'; break;
        case 'u':
            if (read_hex4(p, &cp)) {
                free(o);
                return p->err ? p->err->code : TOSAC_ERR_INPUT;
            }
            if (cp >= 0xDC00 && cp <= 0xDFFF) {
                free(o);
                return perr(p, esc_at, "lone low surrogate in \\u escape");
            }
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                unsigned lo;
                if (p->len - p->pos < 2 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u') {
                    free(o);
                    return perr(p, esc_at, "high surrogate not followed by a low surrogate");
                }
                p->pos += 2;
                if (read_hex4(p, &lo)) {
                    free(o);
                    return p->err ? p->err->code : TOSAC_ERR_INPUT;
                }
                if (lo < 0xDC00 || lo > 0xDFFF) {
                    free(o);
                    return perr(p, esc_at, "high surrogate not followed by a low surrogate");
                }
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            n += put_utf8(o + n, cp);
            break;
        default:
            free(o);
            return perr(p, esc_at, "unknown escape in string");
        }
    }
    p->pos++; /* closing quote */
    o[n] = '\0';
    *out = o;
    *out_len = n;
    return TOSAC_OK;
}

/* Appends one element to a growing array/object (capacity doubles). */
static tosac_code grow(parser *p, tosac_json *v, int *cap, bool with_keys)
{
    if (v->n < *cap)
        return TOSAC_OK;
    int ncap = *cap ? *cap * 2 : 4;
    tosac_json *items = realloc(v->items, (size_t)ncap * sizeof *items);
    if (!items)
        return oom(p);
    v->items = items;
    if (with_keys) {
        char **keys = realloc(v->keys, (size_t)ncap * sizeof *keys);
        if (!keys)
            return oom(p);
        v->keys = keys;
    }
    *cap = ncap;
    return TOSAC_OK;
}

static tosac_code parse_array(parser *p, tosac_json *v, int depth)
{
    v->type = TOSAC_JSON_ARRAY;
    p->pos++;
    int cap = 0;
    skip_ws(p);
    if (peek(p) == ']') {
        p->pos++;
        return TOSAC_OK;
    }
    for (;;) {
        if (grow(p, v, &cap, false))
            return p->err ? p->err->code : TOSAC_ERR_INTERNAL;
        tosac_json *item = &v->items[v->n];
        memset(item, 0, sizeof *item);
        v->n++;
        if (parse_value(p, item, depth + 1))
            return p->err ? p->err->code : TOSAC_ERR_INPUT;
        skip_ws(p);
        int c = peek(p);
        p->pos++;
        if (c == ']')
            return TOSAC_OK;
        if (c != ',')
            return perr(p, p->pos - 1, "expected ',' or ']' in array");
    }
}

static tosac_code parse_object(parser *p, tosac_json *v, int depth)
{
    v->type = TOSAC_JSON_OBJECT;
    p->pos++;
    int cap = 0;
    skip_ws(p);
    if (peek(p) == '}') {
        p->pos++;
        return TOSAC_OK;
    }
    for (;;) {
        skip_ws(p);
        if (peek(p) != '"')
            return perr(p, p->pos, "expected a string key in object");
        if (grow(p, v, &cap, true))
            return p->err ? p->err->code : TOSAC_ERR_INTERNAL;
        size_t key_at = p->pos, klen;
        char *key;
        if (parse_string(p, &key, &klen))
            return p->err ? p->err->code : TOSAC_ERR_INPUT;
        for (int i = 0; i < v->n; i++)
            if (strcmp(v->keys[i], key) == 0) {
                free(key);
                return perr(p, key_at, "duplicate key in object");
            }
        tosac_json *item = &v->items[v->n];
        memset(item, 0, sizeof *item);
        v->keys[v->n] = key;
        v->n++;
        skip_ws(p);
        if (peek(p) != ':')
            return perr(p, p->pos, "expected ':' after object key");
        p->pos++;
        if (parse_value(p, item, depth + 1))
            return p->err ? p->err->code : TOSAC_ERR_INPUT;
        skip_ws(p);
        int c = peek(p);
        p->pos++;
        if (c == '}')
            return TOSAC_OK;
        if (c != ',')
            return perr(p, p->pos - 1, "expected ',' or '}' in object");
    }
}

static tosac_code parse_value(parser *p, tosac_json *v, int depth)
{
    if (depth > TOSAC_JSON_MAX_DEPTH)
        return perr(p, p->pos, "nesting too deep");
    skip_ws(p);
    int c = peek(p);
    if (c < 0)
        return perr(p, p->pos, "unexpected end of input");
    if (c == '{')
        return parse_object(p, v, depth);
    if (c == '[')
        return parse_array(p, v, depth);
    if (c == '"') {
        v->type = TOSAC_JSON_STRING;
        return parse_string(p, &v->str, &v->str_len);
    }
    if (c == '-' || is_digit(c))
        return parse_number(p, v);
    return parse_literal(p, v);
}

static void free_contents(tosac_json *v)
{
    for (int i = 0; i < v->n; i++) {
        free_contents(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
}

void tosac_json_free(tosac_json *v)
{
    if (!v)
        return;
    free_contents(v);
    free(v);
}

tosac_code tosac_json_parse(const char *text, size_t len, tosac_json **out, tosac_error *err)
{
    *out = NULL;
    parser p = {text, len, 0, err};
    tosac_json *v = calloc(1, sizeof *v);
    if (!v)
        return oom(&p);
    tosac_code rc = parse_value(&p, v, 0);
    if (rc == TOSAC_OK) {
        skip_ws(&p);
        if (p.pos < p.len)
            rc = perr(&p, p.pos, "unexpected data after the value");
    }
    if (rc != TOSAC_OK) {
        tosac_json_free(v);
        return rc;
    }
    *out = v;
    return TOSAC_OK;
}

tosac_code tosac_json_parse_file(const char *path, tosac_json **out, tosac_error *err)
{
    void *buf;
    size_t len;
    *out = NULL;
    if (tosac_read_file(path, &buf, &len, err))
        return err ? err->code : TOSAC_ERR_INPUT;
    tosac_error local;
    tosac_error_clear(&local);
    tosac_code rc = tosac_json_parse(buf, len, out, &local);
    free(buf);
    char mp[TOSAC_MSG_PATH];
    if (rc)
        return tosac_fail(err, rc, "%s: %s", tosac_msg_path(path, mp), local.msg);
    return TOSAC_OK;
}

/* ---- lookups ---- */

const tosac_json *tosac_json_get(const tosac_json *obj, const char *key)
{
    if (!obj || obj->type != TOSAC_JSON_OBJECT)
        return NULL;
    for (int i = 0; i < obj->n; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return &obj->items[i];
    return NULL;
}

const tosac_json *tosac_json_at(const tosac_json *arr, int i)
{
    if (!arr || arr->type != TOSAC_JSON_ARRAY || i < 0 || i >= arr->n)
        return NULL;
    return &arr->items[i];
}

const char *tosac_json_string(const tosac_json *v)
{
    return v && v->type == TOSAC_JSON_STRING ? v->str : NULL;
}

bool tosac_json_int(const tosac_json *v, int64_t *out)
{
    if (!v || v->type != TOSAC_JSON_NUMBER || !v->is_int)
        return false;
    *out = v->integer;
    return true;
}

bool tosac_json_double(const tosac_json *v, double *out)
{
    if (!v || v->type != TOSAC_JSON_NUMBER)
        return false;
    *out = v->number;
    return true;
}

bool tosac_json_bool(const tosac_json *v, bool *out)
{
    if (!v || v->type != TOSAC_JSON_BOOL)
        return false;
    *out = v->boolean;
    return true;
}

int tosac_json_count(const tosac_json *v)
{
    if (!v || (v->type != TOSAC_JSON_ARRAY && v->type != TOSAC_JSON_OBJECT))
        return -1;
    return v->n;
}
