/* Reads a compiled tosac program with the compiler library and lists its parts through the
 * program's accessors (tosac_program is opaque): the delegates with their operator counts
 * and I/O metadata, the CPU graph, whether it carries a compile report.
 *     usage: inspect_program PROGRAM */
#include <stdio.h>
#include <string.h>

#include "tosac/tosac.h"

int main(int argc, char **argv)
{
    tosac_error err;
    tosac_error_clear(&err);
    tosac_program *p = NULL;
    if (argc != 2)
        return fprintf(stderr, "usage: inspect_program PROGRAM\n"), 2;
    if (tosac_program_read_file(argv[1], &p, &err))
        return fprintf(stderr, "inspect_program: %s\n", err.msg), 2;
    const ir_graph *cpu = tosac_program_cpu(p)->graph;
    printf("%d delegate(s), CPU graph of %d node(s), %d input(s), %d output(s)\n",
           tosac_program_n_delegates(p), cpu->n_nodes, cpu->n_inputs, cpu->n_outputs);
    for (int k = 0; k < tosac_program_n_delegates(p); k++)
        printf("delegate %d: %d operator(s), metadata of %zu bytes\n", k,
               tosa_graph_main_block(tosac_program_delegate(p, k))->n_ops,
               strlen(tosac_program_delegate_meta(p, k)));
    printf("compile report: %s\n", tosac_program_report(p) ? "yes" : "no");
    tosac_program_free(p);
    return 0;
}
