/* JSON pieces of the compiler's output: delegate I/O metadata and the partition report. */
#ifndef TOSAC_COMPILE_JSON_H
#define TOSAC_COMPILE_JSON_H

#include "partition/partition.h"
#include "tosac/ir.h"
#include "tosac/spec.h"
#include "util/json.h"

/* {"inputs": [{"name","dtype","shape","scale","zero_point"}...], "outputs": [...]}; scale and
 * zero_point only for quantized tensors (lists when per-axis). Returns malloc'd text or NULL. */
char *compile_delegate_meta(const ir_graph *g, const int *ins, int n_in, const int *outs,
                            int n_out);

/* A node of the model before the passes (name made unique by the driver). */
typedef struct compile_orig_node {
    char *name;
    const char *op_type;   /* interned */
    char *q_float, *q_int; /* a QuantizeLinear's input and output tensor names, else NULL */
} compile_orig_node;

/* The partition report (compile_report.c, schema in docs/REPORT.md): {"schema_version",
 * "spec", "n_delegates", "body_delegates", "nodes":
 * [...], "quantized_tensors": [...]} with every top-level model node's placement ("delegate" + index, "cpu" + category +
 * reason, or "folded"), found through the names pass-made nodes inherit from their origin;
 * body_delegates counts the delegates inside If/Loop/Scan bodies (indices after the top
 * level's); quantized_tensors: per model QuantizeLinear whose output is still a quantized
 * tensor of g, {"name": its output (the name its TOSA tensor keeps), "float": its input,
 * "scale", "zero_point"}, so a dump of the program maps back to the float model. Malloc'd
 * text or NULL. */
char *compile_report(const tosa_spec *spec, const compile_orig_node *orig, int n_orig,
                     const ir_graph *g, const partition_plan *plan, int body_delegates);

#endif
