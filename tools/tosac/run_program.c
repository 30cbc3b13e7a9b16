/* tosac run PROGRAM: CPU segments on the executor, delegates on the TOSA interpreter; each
 * output written as DIR/<name>.npy. */
#include <stdlib.h>

#include "cli_graph_io.h"
#include "tosac/program.h"

int run_program(int argc, char **argv)
{
    tosac_error err;
    tosac_error_clear(&err);
    cli_run_args a;
    tosac_program *p = NULL;
    tosac_tensor *ins = NULL, *outs = NULL;
    int n_in = 0, n_out = 0;
    tosac_code rc = cli_parse_run_args(argc, argv, "programs", &a, &err);
    if (!rc)
        rc = tosac_program_read_file(a.file, &p, &err);
    if (!rc) {
        n_in = p->cpu->graph->n_inputs;
        n_out = p->cpu->graph->n_outputs;
        ins = calloc((size_t)n_in + 1, sizeof *ins);
        outs = calloc((size_t)n_out + 1, sizeof *outs);
        if (!ins || !outs)
            rc = tosac_fail(&err, TOSAC_ERR_INTERNAL, "out of memory");
    }
    if (!rc)
        rc = cli_load_inputs(&a, p->cpu->graph, ins, &err);
    if (!rc)
        rc = tosac_program_run(p, ins, n_in, outs, n_out, &err);
    if (!rc)
        rc = cli_write_outputs(a.outdir, p->cpu->graph, outs, &err);
    for (int i = 0; ins && i < n_in; i++)
        tosac_tensor_free(&ins[i]);
    for (int i = 0; outs && i < n_out; i++)
        tosac_tensor_free(&outs[i]);
    free(ins);
    free(outs);
    tosac_program_free(p);
    return rc ? cli_report(&err) : 0;
}
