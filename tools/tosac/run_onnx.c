/* tosac run MODEL.onnx: runs the float (or QDQ) model on the CPU executor and writes each
 * graph output as DIR/<name>.npy. */
#include <stdlib.h>

#include "cli_graph_io.h"
#include "cpu/cpu_exec.h"
#include "tosac/onnx.h"

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
        rc = cpu_run_model(m, ins, n_in, outs, n_out, &err);
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
