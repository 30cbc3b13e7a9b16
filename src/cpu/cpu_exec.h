/* The CPU executor: runs an IR graph (ONNX semantics) with the portable kernels.
 *
 * cpu_plan_create binds every node to its implementation (op binding table, see
 * cpu_registry.c), builds plans for If/Loop/Scan bodies, orders the nodes and computes
 * each value's last use, and folds Relu/Clip into the float Conv before them (cpu_fuse.c);
 * an operator we do not implement is reported here, before running. Constant Conv weights
 * are packed once per plan, on first use (cpu_prepared).
 * cpu_plan_run binds the inputs, runs the nodes in order, frees every intermediate value
 * right after its last consumer, and hands the outputs to the caller. */
#ifndef TOSAC_CPU_EXEC_H
#define TOSAC_CPU_EXEC_H

#include "tosac/error.h"
#include "tosac/ir.h"
#include "tosac/tensor.h"

typedef struct cpu_plan cpu_plan;

/* opset: the model's ai.onnx opset (operators whose meaning changed use it). */
tosac_code cpu_plan_create(const ir_graph *g, int64_t opset, cpu_plan **out, tosac_error *err);

void cpu_plan_free(cpu_plan *p);

/* How many activation nodes of p's graph (not its subgraphs) were folded into a Conv. */
int cpu_plan_n_fused(const cpu_plan *p);

/* Debugging (`tosac run MODEL.onnx --dump-intermediates DIR`): fn is called with every value
 * of p's graph as it is made (the graph inputs, then each node's outputs in execution order;
 * node -1 for an input; t valid only during the call). A Conv whose Relu/Clip was fused into
 * it (cpu_fuse.c) reports its value under the activation's output only: the Conv's own
 * output never exists. Bodies of If/Loop/Scan are not observed. NULL: none (the default). */
typedef void (*cpu_observer)(void *user, const ir_graph *g, int node, int tensor,
                             const tosac_tensor *t);
void cpu_plan_set_observer(cpu_plan *p, cpu_observer fn, void *user);
/* The same for the plans of every If/Loop/Scan body below p (not p's own graph), nested
 * bodies included: fn sees each body value as it is made, a Loop body's on every iteration
 * (the quantizer's calibration of bodies, quant_calibrate.c). */
void cpu_plan_set_body_observer(cpu_plan *p, cpu_observer fn, void *user);

/* inputs[i] binds graph input i (dtype must match; the shape must match every known dim).
 * outputs receives n_outputs tensors (n_outputs == number of graph outputs), owned by the
 * caller (tosac_tensor_free). On failure nothing is left allocated in outputs. */
tosac_code cpu_plan_run(cpu_plan *p, const tosac_tensor *inputs, int n_inputs,
                        tosac_tensor *outputs, int n_outputs, tosac_error *err);

/* Plan, run once, free. */
tosac_code cpu_run_model(const ir_model *m, const tosac_tensor *inputs, int n_inputs,
                         tosac_tensor *outputs, int n_outputs, tosac_error *err);

/* True when op_type (ONNX domain) has an implementation. */
int cpu_op_supported(const char *op_type);

#endif
