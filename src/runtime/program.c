/* The program container: reading and writing (layout in tosac/program.h). */
#include <stdlib.h>
#include <string.h>

#include "tosac/onnx.h"
#include "tosac/program.h"
#include "util/fileio.h"

#define PROGRAM_VERSION 1u

void tosac_program_free_run(tosac_program *p); /* program_run.c */

void tosac_program_free(tosac_program *p)
{
    if (!p)
        return;
    tosac_program_free_run(p);
    ir_model_free(p->cpu);
    for (int i = 0; i < p->n_delegates; i++) {
        if (p->delegates)
            tosa_graph_free(p->delegates[i]);
        if (p->meta)
            free(p->meta[i]);
    }
    free(p->delegates);
    free(p->meta);
    free(p->report);
    free(p);
}

typedef struct wbuf {
    unsigned char *d;
    size_t len, cap;
    bool oom;
} wbuf;

static void put(wbuf *w, const void *src, size_t n)
{
    if (w->oom)
        return;
    if (w->len + n > w->cap) {
        size_t nc = w->cap ? w->cap : 4096;
        while (nc < w->len + n)
            nc *= 2;
        unsigned char *g = realloc(w->d, nc);
        if (!g) {
            w->oom = true;
            return;
        }
        w->d = g;
        w->cap = nc;
    }
    memcpy(w->d + w->len, src, n);
    w->len += n;
}

static void put_u32(wbuf *w, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    put(w, b, 4);
}

static void put_blob(wbuf *w, const void *d, size_t n)
{
    uint64_t v = n;
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    put(w, b, 8);
    put(w, d, n);
}

tosac_code tosac_program_to_bytes(const tosac_program *p, void **buf, size_t *len,
                                  tosac_error *err)
{
    wbuf w = {0};
    void *onnx = NULL;
    size_t onnx_len = 0;
    tosac_code rc = onnx_export_bytes(p->cpu, &onnx, &onnx_len, err);
    if (rc)
        return rc;
    put(&w, TOSAC_PROGRAM_MAGIC, 8);
    put_u32(&w, PROGRAM_VERSION);
    put_u32(&w, (uint32_t)p->n_delegates);
    put_blob(&w, onnx, onnx_len);
    free(onnx);
    for (int i = 0; !rc && i < p->n_delegates; i++) {
        void *t = NULL;
        size_t tl = 0;
        rc = tosa_graph_write(p->delegates[i], &t, &tl, err);
        if (!rc) {
            put_blob(&w, t, tl);
            put_blob(&w, p->meta[i], strlen(p->meta[i]));
        }
        free(t);
    }
    if (!rc && p->report)
        put_blob(&w, p->report, strlen(p->report));
    if (!rc && w.oom)
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory writing a program");
    if (rc) {
        free(w.d);
        return rc;
    }
    *buf = w.d;
    *len = w.len;
    return TOSAC_OK;
}

tosac_code tosac_program_write_file(const tosac_program *p, const char *path, tosac_error *err)
{
    void *buf;
    size_t len;
    tosac_code rc = tosac_program_to_bytes(p, &buf, &len, err);
    if (rc)
        return rc;
    rc = tosac_write_file(path, buf, len, err);
    free(buf);
    return rc;
}

typedef struct rbuf {
    const unsigned char *d;
    size_t len, at;
} rbuf;

static bool get_u32(rbuf *r, uint32_t *v)
{
    if (r->len - r->at < 4)
        return false;
    const unsigned char *b = r->d + r->at;
    *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    r->at += 4;
    return true;
}

static bool get_blob(rbuf *r, const unsigned char **d, size_t *n)
{
    if (r->len - r->at < 8)
        return false;
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)r->d[r->at + (size_t)i] << (8 * i);
    r->at += 8;
    if (v > r->len - r->at)
        return false;
    *d = r->d + r->at;
    *n = (size_t)v;
    r->at += (size_t)v;
    return true;
}

tosac_code tosac_program_from_bytes(const void *buf, size_t len, tosac_program **out,
                                    tosac_error *err)
{
    *out = NULL;
    rbuf r = {buf, len, 0};
    uint32_t version, n;
    if (len < 8 || memcmp(buf, TOSAC_PROGRAM_MAGIC, 8) != 0)
        return tosac_fail(err, TOSAC_ERR_INPUT, "not a tosac program (no TOSACPRG magic)");
    r.at = 8;
    if (!get_u32(&r, &version) || !get_u32(&r, &n))
        return tosac_fail(err, TOSAC_ERR_INPUT, "program: truncated header");
    if (version != PROGRAM_VERSION)
        return tosac_fail(err, TOSAC_ERR_INPUT, "program: version %u is not %u", version,
                          PROGRAM_VERSION);
    if (n > 100000 || n > len / 16)
        return tosac_fail(err, TOSAC_ERR_INPUT, "program: %u delegates cannot fit in %zu bytes",
                          n, len);
    tosac_program *p = calloc(1, sizeof *p);
    if (p) {
        p->delegates = calloc((size_t)n + 1, sizeof *p->delegates);
        p->meta = calloc((size_t)n + 1, sizeof *p->meta);
    }
    if (!p || !p->delegates || !p->meta) {
        tosac_program_free(p);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory reading a program");
    }
    p->n_delegates = (int)n;
    const unsigned char *d = NULL;
    size_t dl = 0;
    tosac_code rc = TOSAC_OK;
    if (!get_blob(&r, &d, &dl))
        rc = tosac_fail(err, TOSAC_ERR_INPUT, "program: truncated CPU graph");
    if (!rc)
        rc = onnx_import_bytes(d, dl, NULL, &p->cpu, err);
    for (uint32_t i = 0; !rc && i < n; i++) {
        if (!get_blob(&r, &d, &dl)) {
            rc = tosac_fail(err, TOSAC_ERR_INPUT, "program: delegate %u is truncated", i);
            break;
        }
        rc = tosa_graph_read(d, dl, &p->delegates[i], err);
        if (rc)
            break;
        if (!get_blob(&r, &d, &dl)) {
            rc = tosac_fail(err, TOSAC_ERR_INPUT, "program: metadata of delegate %u is "
                            "truncated", i);
            break;
        }
        p->meta[i] = malloc(dl + 1);
        if (!p->meta[i]) {
            rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory reading a program");
            break;
        }
        memcpy(p->meta[i], d, dl);
        p->meta[i][dl] = '\0';
    }
    if (!rc && r.at != len) { /* the optional report */
        if (!get_blob(&r, &d, &dl))
            rc = tosac_fail(err, TOSAC_ERR_INPUT, "program: truncated report");
        else if (!(p->report = malloc(dl + 1)))
            rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory reading a program");
        else {
            memcpy(p->report, d, dl);
            p->report[dl] = '\0';
        }
    }
    if (!rc && r.at != len)
        rc = tosac_fail(err, TOSAC_ERR_INPUT, "program: %zu trailing bytes", len - r.at);
    if (rc) {
        tosac_program_free(p);
        return rc;
    }
    *out = p;
    return TOSAC_OK;
}

tosac_code tosac_program_read_file(const char *path, tosac_program **out, tosac_error *err)
{
    void *buf;
    size_t len;
    tosac_code rc = tosac_read_file(path, &buf, &len, err);
    if (rc)
        return rc;
    rc = tosac_program_from_bytes(buf, len, out, err);
    free(buf);
    return rc;
}
