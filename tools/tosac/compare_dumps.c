/* tosac compare DIR_REF DIR_RESULT: two --dump-intermediates folders (cli_dump.h), tensor by
 * tensor in the reference's order of execution, and the first tensor whose SQNR falls below
 * the threshold: where a quantized program starts to go wrong. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_dumps.h"
#include "tosac/npy.h"
#include "util/fileio.h"
#include "util/json.h"

typedef struct dump_stats {
    double cosine, sqnr_db, max_abs;
} dump_stats;

static void stats_of(const tosac_tensor *a, const tosac_tensor *b, dump_stats *s)
{
    int64_t n = tosac_tensor_numel(a);
    double dot = 0, a2 = 0, b2 = 0, e2 = 0, max_abs = 0;
    for (int64_t i = 0; i < n; i++) {
        double x = tosac_tensor_f64_at(a, i), y = tosac_tensor_f64_at(b, i);
        if (isnan(x) && isnan(y))
            continue; /* both NaN: equal, no energy */
        double d = isnan(x) || isnan(y) ? INFINITY : fabs(x - y);
        if (d > max_abs)
            max_abs = d;
        dot += x * y;
        a2 += x * x;
        b2 += y * y;
        e2 += (x - y) * (x - y);
    }
    /* as compare A.npy B.npy: all-zero vectors give cosine 1 when both are, 0 when one is */
    s->cosine = a2 > 0 && b2 > 0 ? dot / (sqrt(a2) * sqrt(b2)) : a2 == b2 ? 1.0 : 0.0;
    s->sqnr_db = e2 == 0 ? INFINITY : a2 == 0 ? -INFINITY : 10 * log10(a2 / e2);
    if (isnan(s->sqnr_db))
        s->sqnr_db = -INFINITY; /* an infinite or NaN error */
    s->max_abs = max_abs;
}

static tosac_code read_index(const char *dir, tosac_json **out, const tosac_json **list,
                             tosac_error *err)
{
    char path[4096], pb[TOSAC_MSG_PATH];
    if ((size_t)snprintf(path, sizeof path, "%s/index.json", dir) >= sizeof path)
        return tosac_fail(err, TOSAC_ERR_INPUT, "path of '%s' is too long", dir);
    tosac_code rc = tosac_json_parse_file(path, out, err);
    if (rc)
        return rc;
    *list = tosac_json_get(*out, "tensors");
    if (!*list || (*list)->type != TOSAC_JSON_ARRAY)
        return tosac_fail(err, TOSAC_ERR_INPUT, "%s: no \"tensors\" list (not a tosac run "
                          "--dump-intermediates folder)", tosac_msg_path(path, pb));
    for (int i = 0; i < tosac_json_count(*list); i++) {
        const tosac_json *e = tosac_json_at(*list, i);
        const char *f = tosac_json_string(tosac_json_get(e, "file"));
        if (!tosac_json_string(tosac_json_get(e, "tensor")) || !f || !f[0] || strchr(f, '/') ||
            strcmp(f, "..") == 0)
            return tosac_fail(err, TOSAC_ERR_INPUT, "%s: entry %d needs \"tensor\" and a "
                              "plain \"file\" name", tosac_msg_path(path, pb), i);
    }
    return TOSAC_OK;
}

static const tosac_json *find_tensor(const tosac_json *list, const char *name)
{
    for (int i = 0; i < tosac_json_count(list); i++) {
        const tosac_json *e = tosac_json_at(list, i);
        if (strcmp(tosac_json_string(tosac_json_get(e, "tensor")), name) == 0)
            return e;
    }
    return NULL;
}

static tosac_code load(const char *dir, const tosac_json *e, tosac_tensor *t, tosac_error *err)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir,
                         tosac_json_string(tosac_json_get(e, "file"))) >= sizeof path)
        return tosac_fail(err, TOSAC_ERR_INPUT, "path in '%s' is too long", dir);
    return tosac_npy_read(path, t, err);
}

static const char *str_or(const tosac_json *v, const char *dflt)
{
    const char *s = tosac_json_string(v);
    return s ? s : dflt;
}

static void put_db(double v)
{
    if (isinf(v))
        printf("%9s", v > 0 ? "inf" : "-inf");
    else
        printf("%9.2f", v);
}

int compare_dump_dirs(const char *ref_dir, const char *res_dir, double sqnr_below,
                      tosac_error *err)
{
    tosac_json *jr = NULL, *js = NULL;
    const tosac_json *lr = NULL, *ls = NULL;
    tosac_code rc = read_index(ref_dir, &jr, &lr, err);
    if (!rc)
        rc = read_index(res_dir, &js, &ls, err);
    int compared = 0, shape_differs = 0, first = -1;
    char first_name[512] = "";
    dump_stats first_s = {0, 0, 0};
    if (!rc)
        printf("%5s %9s %9s %13s  %s\n", "order", "sqnr_db", "cosine", "max_abs_diff", "tensor");
    for (int i = 0; !rc && i < tosac_json_count(lr); i++) {
        const tosac_json *er = tosac_json_at(lr, i);
        const char *name = tosac_json_string(tosac_json_get(er, "tensor"));
        const tosac_json *es = find_tensor(ls, name);
        if (!es)
            continue;
        tosac_tensor a, b;
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        rc = load(ref_dir, er, &a, err);
        if (!rc)
            rc = load(res_dir, es, &b, err);
        if (!rc && !tosac_shape_equal(a.rank, a.shape, b.rank, b.shape)) {
            char s1[128], s2[128];
            printf("%5d %9s %9s %13s  %s (shapes %s and %s)\n", i, "-", "-", "-", name,
                   tosac_shape_str(a.rank, a.shape, s1, sizeof s1),
                   tosac_shape_str(b.rank, b.shape, s2, sizeof s2));
            shape_differs++;
        } else if (!rc) {
            dump_stats s;
            stats_of(&a, &b, &s);
            printf("%5d ", i);
            put_db(s.sqnr_db);
            printf(" %9.6f %13.6g  %s\n", s.cosine, s.max_abs, name);
            if (first < 0 && s.sqnr_db < sqnr_below) {
                first = i;
                snprintf(first_name, sizeof first_name, "%s", name);
                first_s = s;
            }
            compared++;
        }
        tosac_tensor_free(&a);
        tosac_tensor_free(&b);
    }
    if (!rc) {
        printf("compared: %d tensors in both dumps (%d with different shapes; the reference "
               "has %d, the result %d)\n", compared, shape_differs, tosac_json_count(lr),
               tosac_json_count(ls));
        if (first >= 0) {
            const tosac_json *er = tosac_json_at(lr, first);
            printf("first below %g dB: %s (order %d, %s node '%s'): sqnr %.2f dB, cosine "
                   "%.6f, max_abs_diff %.6g\n", sqnr_below, first_name, first,
                   str_or(tosac_json_get(er, "op_type"), "?"),
                   str_or(tosac_json_get(er, "node"), ""), first_s.sqnr_db,
                   first_s.cosine, first_s.max_abs);
        } else {
            printf("first below %g dB: none\n", sqnr_below);
        }
        if (compared == 0 && shape_differs == 0)
            rc = tosac_fail(err, TOSAC_ERR_INPUT, "'%s' and '%s' have no tensor name in "
                            "common", ref_dir, res_dir);
    }
    tosac_json_free(jr);
    tosac_json_free(js);
    if (rc)
        return -1;
    return first >= 0 ? 1 : 0;
}
