/* tosac run PROGRAM: the program on the runtime (one arena, see tosac/runtime.h); each
 * output written as DIR/<name>.npy. */
#include <stdlib.h>
#include <string.h>

#include "cli_dump.h"
#include "cli_graph_io.h"
#include "cli_runtime.h"
#include "runtime/rt_program.h"

static void observe(void *user, const tosac_rt_value *v)
{
    cli_dump_value(user, v->name, v->tensor, v->op, v->node, v->delegate);
}

/* The compile report in the program's REPORT section (NULL when it has none). */
static const char *program_report(const cli_rt *r)
{
    rt_program p;
    tosac_error e;
    tosac_error_clear(&e);
    if (rt_program_load(r->program, r->len, &p, &e))
        return NULL;
    return p.report;
}

int run_program(int argc, char **argv)
{
    tosac_error err;
    tosac_error_clear(&err);
    cli_run_args a;
    cli_rt r;
    memset(&r, 0, sizeof r);
    const char *in_names[CLI_MAX_VALUES], *out_names[CLI_MAX_VALUES];
    const tosac_tensor *outs[CLI_MAX_VALUES];
    tosac_tensor *ins = NULL;
    int n_in = 0, n_out = 0;
    tosac_code rc = cli_parse_run_args(argc, argv, "programs", &a, &err);
    /* a dump runs the delegates on the reference interpreter: the accelerated kernels compute
     * fused groups at once, their inner tensors never hold values (same bits either way) */
    if (!rc)
        rc = cli_rt_open(a.file, &(cli_rt_opts){a.threads, a.reference || a.dump_dir}, &r, &err);
    cli_dump *dump = NULL;
    if (!rc && a.dump_dir) {
        if (!(dump = cli_dump_new(a.dump_dir)))
            rc = tosac_fail(&err, TOSAC_ERR_INTERNAL, "out of memory");
        else
            rc = cli_dump_set_report(dump, program_report(&r), &err);
        if (!rc)
            tosac_rt_set_observer(r.rt, observe, dump);
    }
    if (!rc) {
        n_in = cli_rt_names(r.rt, 0, in_names);
        n_out = cli_rt_names(r.rt, 1, out_names);
        ins = calloc((size_t)n_in + 1, sizeof *ins);
        if (!ins)
            rc = tosac_fail(&err, TOSAC_ERR_INTERNAL, "out of memory");
    }
    tosac_tensor *decl = rc ? NULL : calloc((size_t)n_in + 1, sizeof *decl);
    if (!rc && !decl)
        rc = tosac_fail(&err, TOSAC_ERR_INTERNAL, "out of memory");
    for (int i = 0; !rc && i < n_in; i++) /* the signature only: dtype and shape */
        decl[i] = (tosac_tensor){.dtype = tosac_rt_input(r.rt, i)->dtype,
                                 .rank = tosac_rt_input(r.rt, i)->rank};
    for (int i = 0; !rc && i < n_in; i++)
        memcpy(decl[i].shape, tosac_rt_input(r.rt, i)->shape, sizeof decl[i].shape);
    if (!rc)
        rc = cli_load_named_inputs(&a, in_names, n_in, decl, ins, &err);
    free(decl);
    for (int i = 0; !rc && i < n_in; i++)
        rc = cli_rt_set_input(r.rt, i, &ins[i], &err);
    if (!rc)
        rc = tosac_rt_invoke(r.rt, &err);
    for (int i = 0; !rc && i < n_out; i++)
        outs[i] = tosac_rt_output(r.rt, i);
    if (!rc && dump)
        rc = cli_dump_write(dump, &err);
    cli_dump_free(dump);
    if (!rc)
        rc = cli_write_named_outputs(a.outdir, out_names, n_out, outs, &err);
    for (int i = 0; ins && i < n_in; i++)
        tosac_tensor_free(&ins[i]);
    free(ins);
    cli_rt_close(&r);
    return rc ? cli_report(&err) : 0;
}
