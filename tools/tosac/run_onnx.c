/* tosac run MODEL.onnx: runs the float (or QDQ) model on the CPU executor and writes each
 * graph output as DIR/<name>.npy. */
#include <stdlib.h>

#include "cli_dump.h"
#include "cli_graph_io.h"
#include "cpu/cpu_exec.h"
#include "tosac/onnx.h"

static void observe(void *user, const ir_graph *g, int node, int tensor, const tosac_tensor *t)
{
    const ir_node *n = node >= 0 ? &g->nodes[node] : NULL;
    if (n && ir_node_is(n, "Constant"))
        return; /* parameters, not values the run computes (as CONST in a program) */
    cli_dump_value(user, g->tensors[tensor].name, t, n ? n->op_type : "input",
                   n && n->name ? n->name : "", -1);
}

/* The model run once with every value handed to a dump (cli_dump.h). */
static tosac_code run_dumping(const cli_run_args *a, const ir_model *m, const tosac_tensor *ins,
                              tosac_tensor *outs, tosac_error *err)
{
    cli_dump *d = cli_dump_new(a->dump_dir);
    if (!d)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    cpu_plan *p = NULL;
    int64_t opset = ir_model_opset(m, "");
    tosac_code rc = cpu_plan_create(m->graph, opset ? opset : 13, &p, err);
    if (!rc) {
        cpu_plan_set_observer(p, observe, d);
        rc = cpu_plan_run(p, ins, m->graph->n_inputs, outs, m->graph->n_outputs, err);
    }
    if (!rc)
        rc = cli_dump_write(d, err);
    cpu_plan_free(p);
    cli_dump_free(d);
    return rc;
}

int run_onnx(int argc, char **argv)
{
    tosac_error err;
    tosac_error_clear(&err);
    cli_run_args a;
    ir_model *m = NULL;
    tosac_tensor *ins = NULL, *outs = NULL;
    int n_in = 0, n_out = 0;
    tosac_code rc = cli_parse_run_args(argc, argv, "ONNX models", &a, &err);
    if (!rc)
        rc = onnx_import_file(a.file, &m, &err);
    if (!rc) {
        n_in = m->graph->n_inputs;
        n_out = m->graph->n_outputs;
        ins = calloc((size_t)n_in + 1, sizeof *ins);
        outs = calloc((size_t)n_out + 1, sizeof *outs);
        if (!ins || !outs)
            rc = tosac_fail(&err, TOSAC_ERR_INTERNAL, "out of memory");
    }
    if (!rc)
        rc = cli_load_inputs(&a, m->graph, ins, &err);
    if (!rc)
        rc = a.dump_dir ? run_dumping(&a, m, ins, outs, &err)
                        : cpu_run_model(m, ins, n_in, outs, n_out, &err);
    if (!rc)
        rc = cli_write_outputs(a.outdir, m->graph, outs, &err);
    for (int i = 0; ins && i < n_in; i++)
        tosac_tensor_free(&ins[i]);
    for (int i = 0; outs && i < n_out; i++)
        tosac_tensor_free(&outs[i]);
    free(ins);
    free(outs);
    ir_model_free(m);
    return rc ? cli_report(&err) : 0;
}
