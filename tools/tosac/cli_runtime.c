/* Programs on the runtime for the CLI (see cli_runtime.h). */
#include <stdlib.h>
#include <string.h>

#include "cli_graph_io.h"
#include "cli_runtime.h"
#include "util/fileio.h"
#include "util/threadpool.h"

tosac_code cli_rt_parse_threads(const char *v, int *threads, tosac_error *err)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (*v == '\0' || *end != '\0' || n < 1 || n > TOSAC_THREADPOOL_MAX)
        return tosac_fail(err, TOSAC_ERR_INPUT, "--threads takes a whole number from 1 to %d, "
                          "not '%s'", TOSAC_THREADPOOL_MAX, v);
    *threads = (int)n;
    return TOSAC_OK;
}

tosac_code cli_rt_open(const char *path, const cli_rt_opts *o, cli_rt *r, tosac_error *err)
{
    memset(r, 0, sizeof *r);
    tosac_rt_options opt = {tosac_rt_ops_all, o && o->reference, NULL};
    tosac_code rc = TOSAC_OK;
    if (o && o->threads > 1 && !o->reference) {
        rc = tosac_threadpool_create(o->threads, &r->pool, err);
        if (!rc)
            opt.parallel = tosac_threadpool_parallel(r->pool);
    }
    if (!rc)
        rc = tosac_read_file(path, &r->program, &r->len, err);
    char pb[TOSAC_MSG_PATH];
    tosac_error e;
    tosac_error_clear(&e);
    if (!rc && tosac_rt_arena_size_ex(r->program, r->len, &opt, &r->arena_bytes, &e))
        rc = tosac_fail(err, e.code, "%s: %s", tosac_msg_path(path, pb), e.msg);
    if (!rc) {
        /* 16-aligned, as the runtime asks (aligned_alloc wants a multiple of the alignment) */
        r->arena = aligned_alloc(16, (r->arena_bytes + 15) / 16 * 16 + 16);
        if (!r->arena)
            rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory for an arena of %zu bytes",
                            r->arena_bytes);
    }
    if (!rc && tosac_rt_init_ex(r->program, r->len, r->arena, r->arena_bytes, &opt, &r->rt, &e))
        rc = tosac_fail(err, e.code, "%s: %s", tosac_msg_path(path, pb), e.msg);
    if (rc)
        cli_rt_close(r);
    return rc;
}

void cli_rt_close(cli_rt *r)
{
    free(r->arena);
    free(r->program);
    tosac_threadpool_free(r->pool);
    memset(r, 0, sizeof *r);
}

tosac_code cli_rt_set_input(tosac_rt *rt, int i, const tosac_tensor *t, tosac_error *err)
{
    tosac_tensor *dst = tosac_rt_input(rt, i);
    if (t->dtype != dst->dtype || !tosac_shape_equal(t->rank, t->shape, dst->rank, dst->shape)) {
        char a[128], b[128];
        return tosac_fail(err, TOSAC_ERR_INPUT, "input '%s' must be %s%s, got %s%s",
                          tosac_rt_input_name(rt, i), tosac_dtype_name(dst->dtype),
                          tosac_shape_str(dst->rank, dst->shape, a, sizeof a),
                          tosac_dtype_name(t->dtype), tosac_shape_str(t->rank, t->shape, b, sizeof b));
    }
    if (dst->nbytes)
        memcpy(dst->data, t->data, dst->nbytes);
    return TOSAC_OK;
}

int cli_rt_names(const tosac_rt *rt, int outputs, const char **names)
{
    int n = outputs ? tosac_rt_n_outputs(rt) : tosac_rt_n_inputs(rt);
    if (n > CLI_MAX_VALUES)
        n = CLI_MAX_VALUES;
    for (int i = 0; i < n; i++)
        names[i] = outputs ? tosac_rt_output_name(rt, i) : tosac_rt_input_name(rt, i);
    return n;
}
