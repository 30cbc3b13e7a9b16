/* Graph passes: IR -> IR rewrites run before partitioning, one per file, in the order
 * pipeline.c lists (with one line each on why). */
#ifndef TOSAC_PASSES_H
#define TOSAC_PASSES_H

#include "tosac/ir.h"
#include "tosac/spec.h"

typedef struct pass_ctx {
    const tosa_spec *spec;
    int64_t opset;          /* the model's ai.onnx opset */
} pass_ctx;

typedef tosac_code (*pass_fn)(ir_graph *g, const pass_ctx *c, tosac_error *err);

/* Origins: a node a pass creates takes the name of the node it replaces or serves (Div's
 * Reciprocal and Mul are named like the Div), so the compile report can attribute its
 * placement to the model's node (compile_report.c). */

/* Runs every pass of the pipeline in order; the graph is verified after each. */
tosac_code passes_run(ir_graph *g, const pass_ctx *c, tosac_error *err);

/* The passes (one file each). */
tosac_code pass_fold_constants(ir_graph *g, const pass_ctx *c, tosac_error *err);
tosac_code pass_u8_to_i8(ir_graph *g, const pass_ctx *c, tosac_error *err);
tosac_code pass_fold_bn(ir_graph *g, const pass_ctx *c, tosac_error *err);
tosac_code pass_decompose_div(ir_graph *g, const pass_ctx *c, tosac_error *err);
tosac_code pass_decompose_sum(ir_graph *g, const pass_ctx *c, tosac_error *err);
tosac_code pass_quantize_scalar_mul(ir_graph *g, const pass_ctx *c, tosac_error *err);
tosac_code pass_qdq_bodies(ir_graph *g, const pass_ctx *c, tosac_error *err);
tosac_code pass_fold_qdq(ir_graph *g, const pass_ctx *c, tosac_error *err);
tosac_code pass_fold_requant(ir_graph *g, const pass_ctx *c, tosac_error *err);
tosac_code pass_narrow_int64(ir_graph *g, const pass_ctx *c, tosac_error *err);
tosac_code pass_unfold_float(ir_graph *g, const pass_ctx *c, tosac_error *err);

/* Not in the pipeline (pass_unfold_float's helper, pass_fold_constants.c): every
 * DequantizeLinear of a constant becomes its float value, computed once by the CPU
 * executor's kernel. */
tosac_code pass_fold_dequantized_weights(ir_graph *g, int64_t opset, tosac_error *err);

/* Not in the pipeline: run after partitioning on the nodes left on the CPU. A folded
 * (quantized) node gets float semantics back: DequantizeLinear before each quantized input,
 * QuantizeLinear after each quantized output. cpu[node] != 0 marks the CPU nodes. The new
 * nodes are appended (existing node indices do not change; the order may need a toposort). */
tosac_code pass_unfold_cpu(ir_graph *g, const unsigned char *cpu, tosac_error *err);

#endif
