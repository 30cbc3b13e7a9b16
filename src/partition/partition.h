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

/* Reason categories (partition_reason.c): the operator has no TOSA form; an operand type the
 * spec does not allow; an Ethos-U55 limit; an int64 value the spec (or EXT-INT64) does not
 * cover; a Q/DQ kept on the CPU because INT-only delegates have integer boundaries; a case
 * the operator's lowering rule refuses (attributes, dynamic shapes); a Constant node. */
extern const char *const PARTITION_NOT_IN_SPEC;
extern const char *const PARTITION_TYPE;
extern const char *const PARTITION_U55;
extern const char *const PARTITION_INT64;
extern const char *const PARTITION_BOUNDARY;
extern const char *const PARTITION_RULE;
extern const char *const PARTITION_CONSTANT;

/* The category of node n's trial-lowering failure why (len bytes); may rewrite why to say
 * more (the boundary rule explains itself). */
const char *partition_categorise(const ir_node *n, char *why, size_t len);

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
