/* The ONNX operator-semantics layer: each operator family's attributes parsed once from an
 * ir_node into a typed struct (opset-dependent defaults, validation with errors naming the
 * node), and its geometry / output-shape rules. Shape inference (src/ir), the CPU operators
 * (src/cpu, also in the runtime) and the lowering (src/lower) all call it, so a rule exists
 * once. Runtime-safe: no allocation, no stdio; reads nodes through src/ir/ir_lookup.c. */
#ifndef TOSAC_ONNXOP_H
#define TOSAC_ONNXOP_H

#include <stdarg.h>

#include "tosac/error.h"
#include "tosac/ir.h"

/* "node 'name' (Op): <msg>" with code into err (the first failure wins). */
tosac_code onnxop_fail(tosac_error *err, const ir_node *n, tosac_code code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
tosac_code onnxop_vfail(tosac_error *err, const ir_node *n, tosac_code code, const char *fmt,
                        va_list ap);

#endif
