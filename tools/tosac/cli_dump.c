/* --dump-intermediates (see cli_dump.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_dump.h"
#include "util/fileio.h"
#include "util/json.h"
#include "util/npy_header.h"

typedef struct dump_entry {
    char *name, *op, *node, *from;  /* from: the integer value it dequantizes, or NULL */
    int rank;                       /* 0 a value, 1 dequantized, 2 dequantized alias */
    bool channels_last;             /* dequantized from a channels-last value */
    int delegate;
    double scale;
    int64_t zero_point;
    tosac_tensor t;                 /* owned copy */
    char file[300];
} dump_entry;

typedef struct dump_quant {
    char *name, *fname;
    double scale;
    int64_t zero_point;
    bool alias;                     /* the value equals fname's only in some cases */
    int rank;                       /* -1: shape not given */
    int64_t shape[TOSAC_MAX_RANK];  /* the ONNX tensor's */
} dump_quant;

struct cli_dump {
    char *dir;
    dump_entry *e;
    int n, cap;
    dump_quant *q;
    int n_q;
    tosac_error err;            /* the first failure while collecting */
};

cli_dump *cli_dump_new(const char *dir)
{
    cli_dump *d = calloc(1, sizeof *d);
    if (d && !(d->dir = strdup(dir))) {
        free(d);
        return NULL;
    }
    if (d)
        tosac_error_clear(&d->err);
    return d;
}

void cli_dump_free(cli_dump *d)
{
    if (!d)
        return;
    for (int i = 0; i < d->n; i++) {
        free(d->e[i].name);
        free(d->e[i].op);
        free(d->e[i].node);
        free(d->e[i].from);
        tosac_tensor_free(&d->e[i].t);
    }
    for (int i = 0; i < d->n_q; i++) {
        free(d->q[i].name);
        free(d->q[i].fname);
    }
    free(d->q);
    free(d->e);
    free(d->dir);
    free(d);
}

tosac_code cli_dump_set_report(cli_dump *d, const char *report_json, tosac_error *err)
{
    if (!report_json)
        return TOSAC_OK;
    tosac_json *rep = NULL;
    tosac_code rc = tosac_json_parse(report_json, strlen(report_json), &rep, err);
    const tosac_json *list = rc ? NULL : tosac_json_get(rep, "quantized_tensors");
    int n = tosac_json_count(list);
    if (n > 0 && !(d->q = calloc((size_t)n, sizeof *d->q)))
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    for (int i = 0; !rc && i < n; i++) {
        const tosac_json *t = tosac_json_at(list, i);
        const char *name = tosac_json_string(tosac_json_get(t, "name"));
        const char *fname = tosac_json_string(tosac_json_get(t, "float"));
        dump_quant *q = &d->q[d->n_q];
        if (!name || !fname || !tosac_json_double(tosac_json_get(t, "scale"), &q->scale) ||
            !tosac_json_int(tosac_json_get(t, "zero_point"), &q->zero_point))
            continue; /* an entry this tosac does not understand: not dequantized */
        tosac_json_bool(tosac_json_get(t, "alias"), &q->alias);
        const tosac_json *sh = tosac_json_get(t, "shape");
        q->rank = sh && tosac_json_count(sh) <= TOSAC_MAX_RANK ? tosac_json_count(sh) : -1;
        for (int k = 0; k < q->rank; k++)
            if (!tosac_json_int(tosac_json_at(sh, k), &q->shape[k]))
                q->rank = -1;
        q->name = strdup(name);
        q->fname = strdup(fname);
        d->n_q++;
        if (!q->name || !q->fname)
            rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    }
    tosac_json_free(rep);
    return rc;
}

static int find_entry(const cli_dump *d, const char *name)
{
    for (int i = 0; i < d->n; i++)
        if (strcmp(d->e[i].name, name) == 0)
            return i;
    return -1;
}

static dump_entry *add_entry(cli_dump *d, const char *name, const char *op, const char *node,
                             int delegate)
{
    if (d->n == d->cap) {
        int cap = d->cap ? d->cap * 2 : 64;
        dump_entry *e = realloc(d->e, (size_t)cap * sizeof *e);
        if (!e)
            return NULL;
        d->e = e;
        d->cap = cap;
    }
    dump_entry *e = &d->e[d->n];
    memset(e, 0, sizeof *e);
    e->delegate = delegate;
    e->name = strdup(name);
    e->op = strdup(op ? op : "");
    e->node = strdup(node ? node : "");
    if (!e->name || !e->op || !e->node) {
        free(e->name);
        free(e->op);
        free(e->node);
        return NULL;
    }
    d->n++;
    return e;
}

static void drop_last(cli_dump *d)
{
    dump_entry *e = &d->e[--d->n];
    free(e->name);
    free(e->op);
    free(e->node);
    free(e->from);
    tosac_tensor_free(&e->t);
}

static void remove_entry(cli_dump *d, int k)
{
    dump_entry tmp = d->e[k];
    memmove(&d->e[k], &d->e[k + 1], (size_t)(d->n - k - 1) * sizeof *d->e);
    d->e[d->n - 1] = tmp;
    drop_last(d);
}

/* name without one trailing "_pre", "_pre<N>" or "_pre_<N>" (the lowering's names for a
 * value held in another layout), into buf; false when it has none. */
static bool strip_pre(const char *name, char *buf, size_t len)
{
    size_t n = strlen(name);
    while (n && name[n - 1] >= '0' && name[n - 1] <= '9')
        n--;
    if (n < strlen(name) && n && name[n - 1] == '_')
        n--;
    if (n < 4 || memcmp(name + n - 4, "_pre", 4) != 0 || n - 4 >= len)
        return false;
    memcpy(buf, name, n - 4);
    buf[n - 4] = '\0';
    return true;
}

/* The report's entry for name, or for name without its "_pre" suffixes (*stripped set). */
static const dump_quant *find_quant(const cli_dump *d, const char *name, bool *stripped)
{
    char cur[512], next[512];
    snprintf(cur, sizeof cur, "%s", name);
    *stripped = false;
    for (int depth = 0; depth < 8; depth++, *stripped = true) {
        for (int i = 0; i < d->n_q; i++)
            if (strcmp(d->q[i].name, cur) == 0)
                return &d->q[i];
        if (!strip_pre(cur, next, sizeof next))
            return NULL;
        memcpy(cur, next, sizeof cur);
    }
    return NULL;
}

/* The layout a delegate holds an ONNX tensor of shape `shape` in: perm with
 * src.shape[i] == shape[perm[i]] (identity, or channels last as the lowering's layout
 * transposes make it; a "_pre" name, moved, is tried channels last first, so a shape that
 * fits both ([1,8,8,8]) is read as what the name says); false when none fits. */
static bool find_layout(const tosac_tensor *src, const dump_quant *q, bool moved, int *perm)
{
    if (q->rank < 0)
        return true; /* no shape recorded: taken as it is */
    if (q->rank != src->rank)
        return false;
    int r = q->rank;
    for (int k = 0; k < 2; k++) {
        bool last = moved ? k == 0 : k == 1; /* channels last: (0, 2, ..., r-1, 1) */
        for (int i = 0; i < r; i++)
            perm[i] = !last || r < 3 ? i : i == 0 ? 0 : i == r - 1 ? 1 : i + 1;
        bool ok = true;
        for (int i = 0; i < r && ok; i++)
            ok = src->shape[i] == q->shape[perm[i]];
        if (ok)
            return true;
    }
    return false;
}

/* The dequantized copy of integer value e (named in the report), in the ONNX tensor's
 * layout, unless a value of its float name exists already: a real value wins over a
 * reconstruction. */
static void add_dequantized(cli_dump *d, int k)
{
    bool moved;
    const dump_quant *q = find_quant(d, d->e[k].name, &moved);
    int perm[TOSAC_MAX_RANK];
    for (int i = 0; i < TOSAC_MAX_RANK; i++)
        perm[i] = i;
    int rank = q && q->alias ? 2 : 1;
    if (!q || !tosac_dtype_is_int(d->e[k].t.dtype) || !find_layout(&d->e[k].t, q, moved, perm))
        return;
    int old = find_entry(d, q->fname);
    if (old >= 0 && d->e[old].rank <= rank)
        return; /* a value of that name, or a closer reconstruction, exists */
    if (old >= 0) {
        remove_entry(d, old);
        k -= old < k;
    }
    dump_entry *e = add_entry(d, q->fname, "dequantized", d->e[k].node, d->e[k].delegate);
    const tosac_tensor *src = &d->e[k].t; /* d->e may have moved: index again */
    int64_t shape[TOSAC_MAX_RANK];
    for (int i = 0; i < src->rank; i++)
        shape[perm[i]] = src->shape[i];
    if (!e || !(e->from = strdup(d->e[k].name)) ||
        tosac_tensor_alloc(&e->t, TOSAC_DT_F32, src->rank, shape, &d->err)) {
        if (e)
            drop_last(d);
        if (!d->err.code)
            tosac_fail(&d->err, TOSAC_ERR_INTERNAL, "out of memory");
        return;
    }
    e->rank = rank;
    e->channels_last = perm[0] != 0 || (src->rank > 1 && perm[1] != 1);
    e->scale = q->scale;
    e->zero_point = q->zero_point;
    float *out = e->t.data;
    int64_t n = tosac_tensor_numel(src), sstride[TOSAC_MAX_RANK], coord[TOSAC_MAX_RANK];
    int r = src->rank;
    int64_t stride = 1;
    for (int i = r - 1; i >= 0; i--) {
        sstride[i] = stride;
        stride *= src->shape[i];
    }
    memset(coord, 0, sizeof coord);
    for (int64_t o = 0; o < n; o++) { /* o walks the output (ONNX layout) in order */
        int64_t si = 0;
        for (int i = 0; i < r; i++)
            si += coord[perm[i]] * sstride[i];
        out[o] = (float)((double)(tosac_tensor_int_at(src, si) - q->zero_point) * q->scale);
        for (int i = r - 1; i >= 0; i--) {
            if (++coord[i] < shape[i])
                break;
            coord[i] = 0;
        }
    }
}

void cli_dump_value(cli_dump *d, const char *name, const tosac_tensor *t, const char *op,
                    const char *node, int delegate)
{
    if (d->err.code || !t || !t->data || !name)
        return;
    unsigned char hdr[TOSAC_NPY_HEADER_MAX];
    if (!tosac_npy_format_header(t->dtype, t->rank, t->shape, hdr))
        return; /* no .npy form (bf16, fp8, int4): not dumped, see docs/USAGE.md */
    int k = find_entry(d, name);
    if (k >= 0 && !d->e[k].from)
        return; /* seen already */
    if (k >= 0) /* a real value of a name first reconstructed by dequantization: it wins */
        remove_entry(d, k);
    dump_entry *e = add_entry(d, name, op, node, delegate);
    if (!e || tosac_tensor_alloc(&e->t, t->dtype, t->rank, t->shape, &d->err)) {
        if (e)
            drop_last(d);
        if (!d->err.code)
            tosac_fail(&d->err, TOSAC_ERR_INTERNAL, "out of memory");
        return;
    }
    if (t->nbytes && e->t.nbytes == t->nbytes)
        memcpy(e->t.data, t->data, t->nbytes);
    add_dequantized(d, d->n - 1);
}

/* DIR-relative file names: the sanitised tensor name, "~2", "~3", ... after a collision. */
static void name_files(cli_dump *d)
{
    for (int i = 0; i < d->n; i++) {
        char base[240];
        tosac_sanitize_name(d->e[i].name, base, sizeof base);
        snprintf(d->e[i].file, sizeof d->e[i].file, "%s.npy", base);
        for (int k = 2;; k++) {
            bool taken = false;
            for (int j = 0; j < i && !taken; j++)
                taken = strcmp(d->e[j].file, d->e[i].file) == 0;
            if (!taken)
                break;
            snprintf(d->e[i].file, sizeof d->e[i].file, "%s~%d.npy", base, k);
        }
    }
}

static char *index_json(const cli_dump *d)
{
    tosac_json_writer w;
    tosac_json_writer_init(&w, true);
    tosac_json_begin_object(&w);
    tosac_json_key(&w, "tensors");
    tosac_json_begin_array(&w);
    for (int i = 0; i < d->n; i++) {
        const dump_entry *e = &d->e[i];
        tosac_json_begin_object(&w);
        tosac_json_key(&w, "file");
        tosac_json_write_string(&w, e->file);
        tosac_json_key(&w, "tensor");
        tosac_json_write_string(&w, e->name);
        tosac_json_key(&w, "order");
        tosac_json_write_int(&w, i);
        tosac_json_key(&w, "op_type");
        tosac_json_write_string(&w, e->op);
        tosac_json_key(&w, "node");
        tosac_json_write_string(&w, e->node);
        tosac_json_key(&w, "delegate");
        tosac_json_write_int(&w, e->delegate);
        tosac_json_key(&w, "dtype");
        const char *np = tosac_dtype_numpy_name(e->t.dtype);
        tosac_json_write_string(&w, np ? np : tosac_dtype_name(e->t.dtype));
        if (e->from) {
            tosac_json_key(&w, "dequantized_from");
            tosac_json_write_string(&w, e->from);
            tosac_json_key(&w, "scale");
            tosac_json_write_double(&w, e->scale);
            tosac_json_key(&w, "zero_point");
            tosac_json_write_int(&w, e->zero_point);
            tosac_json_key(&w, "transposed_from"); /* the raw value's layout */
            tosac_json_write_string(&w, e->channels_last ? "channels_last" : "same");
        }
        tosac_json_end_object(&w);
    }
    tosac_json_end_array(&w);
    tosac_json_end_object(&w);
    size_t len;
    return tosac_json_writer_take(&w, &len);
}

static tosac_code stage_npy(tosac_stage *s, const char *path, const tosac_tensor *t,
                            tosac_error *err)
{
    unsigned char hdr[TOSAC_NPY_HEADER_MAX];
    size_t hlen = tosac_npy_format_header(t->dtype, t->rank, t->shape, hdr);
    size_t nbytes = (size_t)tosac_tensor_numel(t) * tosac_dtype_size(t->dtype);
    unsigned char *buf = malloc(hlen + nbytes + 1);
    if (!buf)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    memcpy(buf, hdr, hlen);
    if (nbytes)
        memcpy(buf + hlen, t->data, nbytes);
    tosac_code rc = tosac_stage_file(s, path, buf, hlen + nbytes, err);
    free(buf);
    return rc;
}

tosac_code cli_dump_write(cli_dump *d, tosac_error *err)
{
    if (d->err.code) {
        *err = d->err;
        return err->code;
    }
    name_files(d);
    tosac_stage s;
    memset(&s, 0, sizeof s);
    tosac_code rc = tosac_stage_mkdirs(&s, d->dir, err);
    char path[4096];
    for (int i = 0; i < d->n && !rc; i++) {
        if ((size_t)snprintf(path, sizeof path, "%s/%s", d->dir, d->e[i].file) >= sizeof path)
            rc = tosac_fail(err, TOSAC_ERR_INPUT, "dump path for '%s' is too long", d->e[i].file);
        else
            rc = stage_npy(&s, path, &d->e[i].t, err);
    }
    char *idx = rc ? NULL : index_json(d);
    if (!rc && !idx)
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    if (!rc && (size_t)snprintf(path, sizeof path, "%s/index.json", d->dir) >= sizeof path)
        rc = tosac_fail(err, TOSAC_ERR_INPUT, "dump directory path is too long");
    if (!rc)
        rc = tosac_stage_file(&s, path, idx, strlen(idx), err);
    free(idx);
    if (!rc)
        rc = tosac_stage_commit(&s, err);
    else
        tosac_stage_abort(&s);
    return rc;
}
