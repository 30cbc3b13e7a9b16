/* Partitioning: which nodes go to TOSA delegates, grouped how, and why the others stay on
 * the CPU.
 *
 * A node is supported when its trial lowering (lower_trial_node) succeeds: its rule handles
 * it and every TOSA operator it emits is legal for the spec with its types, plus the
 * hardware-subset limits (u55). Supported nodes are grouped into maximal partitions, growing
 * along producer -> consumer edges in topological order; two groups merge only when no path
 * leaves the union and re-enters it (that would make the delegate depend on itself through
 * the CPU). Constant-producing nodes (Constant) feed delegates as constants, never as inputs. */
#ifndef TOSAC_PARTITION_H
#define TOSAC_PARTITION_H

#include "tosac/ir.h"
#include "tosac/spec.h"

typedef struct partition_plan {
    int n_nodes;
    int *part;          /* per node: delegate index, or -1 for the CPU */
    char **reason;      /* per node: why it stays on the CPU (malloc'd), NULL if delegated */
    const char **category; /* per node: the reason's category (PARTITION_*), NULL if delegated */
    int n_parts;
} partition_plan;

/* Reason categories (partition_reason.c), each reason phrased for the ONNX node:
 *   NOT_IN_SPEC  TOSA (this version) has no operator for it ("Det: TOSA has no such operator");
 *   EXTENSION    a type or operator legal only with a profile or extension the spec lacks,
 *                with the spec that has it ("Conv: int16 activations need +int16
 *                (TOSA-1.0+INT+int16)");
 *   TYPE         a type no profile or extension of the version allows (unsigned integers);
 *   U55          an Ethos-U55 limit;
 *   INT64        an int64 value the spec (or EXT-INT64) does not cover;
 *   BOUNDARY     a Q/DQ kept on the CPU because INT-only delegates have integer boundaries;
 *   RULE         tosac has no lowering for the operator or this case of it yet (attributes,
 *                dynamic shapes, quantized forms);
 *   CONSTANT     a Constant node. */
extern const char *const PARTITION_NOT_IN_SPEC;
extern const char *const PARTITION_EXTENSION;
extern const char *const PARTITION_TYPE;
extern const char *const PARTITION_U55;
extern const char *const PARTITION_INT64;
extern const char *const PARTITION_BOUNDARY;
extern const char *const PARTITION_RULE;
extern const char *const PARTITION_CONSTANT;

/* The category of node n's trial-lowering failure under spec; rewrites why (len bytes) into
 * the reason for the ONNX node (the U55 reasons are kept as they come). */
const char *partition_categorise(const tosa_spec *spec, const ir_node *n, char *why, size_t len);

/* "<spec> has no int64 (EXT-INT64: <spec with +int64> keeps it)": the int64 policy's words
 * (docs/USAGE.md), in the CPU reasons and pass_narrow_int64's compile error alike. */
void partition_no_int64(const tosa_spec *spec, char *buf, size_t len);

tosac_code partition_graph(const tosa_spec *spec, const ir_graph *g, partition_plan *out,
                           tosac_error *err);
void partition_plan_free(partition_plan *p);

/* The boundary of delegate k: inputs (non-constant tensors its nodes read that are produced
 * elsewhere or are graph inputs) and outputs (tensors its nodes write that something outside
 * reads, or graph outputs), each in first-use order. Arrays malloc'd. */
tosac_code partition_io(const ir_graph *g, const partition_plan *p, int k, int **ins, int *n_in,
                        int **outs, int *n_out, tosac_error *err);
/* True when a subgraph of a live node of g reads tensor t through a capture. */
bool partition_captured(const ir_graph *g, int t);
/* Nodes of delegate k in topological order (malloc'd). */
tosac_code partition_nodes(const ir_graph *g, const partition_plan *p, int k, int **nodes,
                           int *n, tosac_error *err);

#endif
