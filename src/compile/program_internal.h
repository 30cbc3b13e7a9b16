/* The definition of the opaque tosac_program (include/tosac/program.h): only the compiler's
 * own files (src/compile/) build and change one; users read it through the accessors. */
#ifndef TOSAC_PROGRAM_INTERNAL_H
#define TOSAC_PROGRAM_INTERNAL_H

#include "tosac/program.h"

typedef struct tosac_program_exec tosac_program_exec;

struct tosac_program {
    ir_model *cpu;              /* the CPU graph (TosaDelegate nodes for the delegates) */
    int n_delegates;
    tosa_graph **delegates;     /* parsed .tosa graphs */
    char **meta;                /* per delegate: I/O metadata JSON text */
    tosac_program_exec *run_;   /* execution plan, built on first run */
    char *report;               /* the compile report JSON (partition: every node's placement
                                 * and reasons), or NULL (programs written without one) */
};

#endif
