/* JSON pieces of the compiler's output: delegate I/O metadata and the partition report. */
#ifndef TOSAC_COMPILE_JSON_H
#define TOSAC_COMPILE_JSON_H

#include "tosac/ir.h"
#include "util/json.h"

/* {"inputs": [{"name","dtype","shape","scale","zero_point"}...], "outputs": [...]}; scale and
 * zero_point only for quantized tensors (lists when per-axis). Returns malloc'd text or NULL. */
char *compile_delegate_meta(const ir_graph *g, const int *ins, int n_in, const int *outs,
                            int n_out);

#endif
