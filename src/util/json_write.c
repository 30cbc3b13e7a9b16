/* JSON writer: a growable buffer that places commas, colons and indentation itself. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"

size_t tosac_json_escape(const char *s, char *out, size_t outlen)
{
    size_t n = 0;
#define PUT(ch)                                                                                \
    do {                                                                                       \
        if (n + 1 < outlen)                                                                    \
            out[n] = (ch);                                                                     \
        n++;                                                                                   \
    } while (0)
    PUT('"');
    const unsigned char *end = (const unsigned char *)s + strlen(s);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned c = *p;
        if (c >= 0x80) {
            size_t k = tosac_utf8_seq(p, (size_t)(end - p));
            if (k == 0) {
                for (const char *r = "\\ufffd"; *r; r++)
                    PUT(*r);
                continue;
            }
            for (size_t i = 0; i < k; i++)
                PUT((char)p[i]);
            p += k - 1;
            continue;
        }
        const char *esc = NULL;
        switch (c) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        default: break;
        }
        if (esc) {
            PUT(esc[0]);
            PUT(esc[1]);
        } else if (c < 0x20) {
            char hex[8];
            snprintf(hex, sizeof hex, "\\u%04x", c);
            for (int i = 0; i < 6; i++)
                PUT(hex[i]);
        } else {
            PUT((char)c);
        }
    }
    PUT('"');
#undef PUT
    if (outlen)
        out[n < outlen ? n : outlen - 1] = '\0';
    return n;
}

void tosac_json_writer_init(tosac_json_writer *w, bool pretty)
{
    memset(w, 0, sizeof *w);
    w->pretty = pretty;
    w->first[0] = true;
}

void tosac_json_writer_free(tosac_json_writer *w)
{
    free(w->buf);
    w->buf = NULL;
    w->len = w->cap = 0;
}

char *tosac_json_writer_take(tosac_json_writer *w, size_t *len)
{
    if (w->failed || w->depth != 0 || w->after_key || !w->buf) {
        tosac_json_writer_free(w);
        return NULL;
    }
    char *b = w->buf;
    if (len)
        *len = w->len;
    w->buf = NULL;
    w->len = w->cap = 0;
    return b;
}

static void put(tosac_json_writer *w, const char *s, size_t n)
{
    if (w->failed)
        return;
    if (w->len + n + 1 > w->cap) {
        size_t ncap = w->cap ? w->cap : 256;
        while (ncap < w->len + n + 1)
            ncap *= 2;
        char *b = realloc(w->buf, ncap);
        if (!b) {
            w->failed = true;
            return;
        }
        w->buf = b;
        w->cap = ncap;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len] = '\0';
}

static void newline(tosac_json_writer *w)
{
    if (!w->pretty)
        return;
    put(w, "\n", 1);
    for (int i = 0; i < w->depth; i++)
        put(w, "  ", 2);
}

/* Separator before a value: a comma between elements, nothing after a key. A value in an
 * object without a key, or a second top-level value, is misuse. */
static void before_value(tosac_json_writer *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->in_object[w->depth] || (w->depth == 0 && !w->first[0])) {
        w->failed = true;
        return;
    }
    if (!w->first[w->depth])
        put(w, ",", 1);
    w->first[w->depth] = false;
    if (w->depth > 0)
        newline(w);
}

static void begin(tosac_json_writer *w, char open, bool object)
{
    before_value(w);
    if (w->depth >= TOSAC_JSON_MAX_DEPTH) {
        w->failed = true;
        return;
    }
    put(w, &open, 1);
    w->depth++;
    w->first[w->depth] = true;
    w->in_object[w->depth] = object;
}

static void end(tosac_json_writer *w, char close, bool object)
{
    if (w->depth == 0 || w->in_object[w->depth] != object || w->after_key) {
        w->failed = true;
        return;
    }
    bool empty = w->first[w->depth];
    w->depth--;
    if (!empty)
        newline(w);
    put(w, &close, 1);
}

void tosac_json_begin_object(tosac_json_writer *w) { begin(w, '{', true); }
void tosac_json_end_object(tosac_json_writer *w) { end(w, '}', true); }
void tosac_json_begin_array(tosac_json_writer *w) { begin(w, '[', false); }
void tosac_json_end_array(tosac_json_writer *w) { end(w, ']', false); }

static void put_escaped(tosac_json_writer *w, const char *s)
{
    char small[256];
    size_t need = tosac_json_escape(s, small, sizeof small);
    if (need < sizeof small) {
        put(w, small, need);
        return;
    }
    char *big = malloc(need + 1);
    if (!big) {
        w->failed = true;
        return;
    }
    tosac_json_escape(s, big, need + 1);
    put(w, big, need);
    free(big);
}

void tosac_json_key(tosac_json_writer *w, const char *key)
{
    if (w->depth == 0 || !w->in_object[w->depth] || w->after_key) {
        w->failed = true;
        return;
    }
    if (!w->first[w->depth])
        put(w, ",", 1);
    w->first[w->depth] = false;
    newline(w);
    put_escaped(w, key);
    put(w, w->pretty ? ": " : ":", w->pretty ? 2 : 1);
    w->after_key = true;
}

void tosac_json_write_string(tosac_json_writer *w, const char *s)
{
    before_value(w);
    put_escaped(w, s);
}

void tosac_json_write_int(tosac_json_writer *w, int64_t v)
{
    char b[32];
    int n = snprintf(b, sizeof b, "%lld", (long long)v);
    before_value(w);
    put(w, b, (size_t)n);
}

void tosac_json_write_double(tosac_json_writer *w, double v)
{
    if (!isfinite(v)) {
        tosac_json_write_null(w);
        return;
    }
    char b[40];
    int n = 0;
    /* Shortest of %.15g..%.17g that reads back exactly. */
    for (int prec = 15; prec <= 17; prec++) {
        n = snprintf(b, sizeof b, "%.*g", prec, v);
        if (strtod(b, NULL) == v)
            break;
    }
    before_value(w);
    put(w, b, (size_t)n);
}

void tosac_json_write_bool(tosac_json_writer *w, bool v)
{
    before_value(w);
    put(w, v ? "true" : "false", v ? 4 : 5);
}

void tosac_json_write_null(tosac_json_writer *w)
{
    before_value(w);
    put(w, "null", 4);
}
