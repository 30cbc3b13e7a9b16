/* The memory plan (compile time): every activation of a program (CPU values and the values
 * inside each TOSA delegate) and every kernel scratch buffer gets an offset in one arena, by
 * liveness, so the runtime allocates nothing while it runs.
 *
 * Timeline of one CPU graph: its nodes in ir_graph_topo_order (the order the CPU executor and
 * the program runner use), each TosaDelegate node expanded into its main block's operators in
 * the interpreter's execution order (plan_tosa_order: the rule of interp_prepare.c); one step
 * per CPU node or delegate operator (a delegate with no operators still takes one step).
 * A value lives from the first step that touches it to the last: graph inputs from step 0,
 * graph outputs to the last step, a node touches its inputs, its outputs and the outer values
 * its bodies capture at its steps; a delegate touches the CPU values bound to its node at its
 * first step (inputs) and its last step (outputs).
 *
 * Graphs: 0 is the main graph, then the bodies of If/Loop/Scan nodes in DFS pre-order over
 * the nodes in node index order and their GRAPH/GRAPHS attributes in attribute order
 * (ir_node_subgraph), nested bodies right after their parent (plan_graph_list).
 * Each body is planned on its own timeline into its own region; a node with bodies has one
 * region item, as large as its largest body's region, live at its step only, placed among
 * the graph's values (sibling bodies share it: only one runs at a time; nested bodies are
 * inside it). Values cross a region boundary by copy (body inputs/outputs are the body's own
 * buffers); captures read the outer buffer.
 *
 * Offsets are from the start of the planned region, multiples of the alignment (16). -1 means
 * "not planned here": constants (initializers, Constant values, TOSA constant data: they stay
 * in the program), captures (a body reading an outer value), values with a dynamic shape
 * (rank or a dim unknown: the runtime's dynamic region), TOSA variables and values nothing
 * touches. Tensors of COND_IF/WHILE_LOOP sub-blocks inside a delegate are not planned (the
 * interpreter allocates them at prepare, persistent).
 *
 * Delegate block inputs/outputs ALIAS the CPU values bound to the TosaDelegate node (same
 * offset, no copy) when both are planned with the same byte size and representation (same
 * dtype, or int48 vs int64: one int64 element each). Otherwise (byte size or type differ, the
 * CPU value is a constant / capture / dynamic, a block tensor is bound twice) the block tensor
 * gets its own buffer: the runtime copies exactly where the two offsets differ. */
#ifndef TOSAC_COMPILE_PLAN_H
#define TOSAC_COMPILE_PLAN_H

#include <stdint.h>

#include "tosac/error.h"
#include "tosac/ir.h"
#include "tosac/program.h"
#include "tosac/tosa.h"

#define TOSAC_PLAN_ALIGN 16

/* ---- placing intervals ---- */
typedef struct plan_item {
    uint64_t bytes;      /* in: size (rounded up to the alignment when placed) */
    int first_step;      /* in: lifetime [first_step, last_step], inclusive */
    int last_step;
    int64_t offset;      /* out: multiple of align; 0 for a 0-byte item */
} plan_item;

/* Orders plan_place tries (it keeps the smallest arena, the earliest order on ties). */
typedef enum plan_order {
    PLAN_BY_SIZE,        /* size decreasing (tflite-micro's greedy planner) */
    PLAN_BY_FIRST_USE,   /* first step increasing, then size decreasing */
    PLAN_BY_LIFETIME,    /* lifetime length decreasing, then size decreasing */
    PLAN_BY_AREA,        /* size x lifetime decreasing */
    PLAN_N_ORDERS
} plan_order;

/* Places items[0..n): each, in the given order, at the lowest offset where it overlaps no
 * already placed item whose lifetime intersects its own. align: a power of two (0 = 16).
 * *arena_bytes = largest end, *lower_bound = largest sum of aligned sizes live at one step
 * (no placement can do better). Both may be NULL. Time: each item looks at the items alive
 * with it (P pairs: O(n log n + P log P), O(n + P) memory); beyond 2^21 pairs every placed
 * item is scanned (O(n^2), no extra memory). Errors: an empty or negative lifetime, a bad
 * alignment, sizes adding up beyond 2^63 (TOSAC_ERR_INPUT). */
tosac_code plan_place_order(plan_item *items, int n, uint64_t align, plan_order order,
                            uint64_t *arena_bytes, uint64_t *lower_bound, tosac_error *err);
/* Every order above (stopping at one that reaches the lower bound), then, while above it, up
 * to 16 iterated-greedy rounds (the item that set the arena moves to the front of the best
 * sequence; bounded by a work budget); keeps the smallest arena, the earliest on ties. */
tosac_code plan_place(plan_item *items, int n, uint64_t align, uint64_t *arena_bytes,
                      uint64_t *lower_bound, tosac_error *err);
/* The lower bound alone. */
tosac_code plan_live_peak(const plan_item *items, int n, uint64_t align, uint64_t *peak,
                          tosac_error *err);
/* The invariant: no two items with intersecting lifetimes overlap in memory, every offset is
 * aligned and ends within arena_bytes. Returns the index of an offending item, or -1. */
int plan_check(const plan_item *items, int n, uint64_t align, uint64_t arena_bytes);

/* ---- execution orders ---- */
/* order[0..b->n_ops) = the interpreter's execution order of block b (interp_prepare.c's
 * schedule, mirrored: passes over the operators in index order, each running every operator
 * whose inputs are ready: block inputs, variables, outer references, constant data nobody
 * writes, outputs of operators already run; a valid listed order is kept). A block whose
 * operators never all become ready, or whose operands are out of range, is TOSAC_ERR_INPUT. */
tosac_code plan_tosa_order(const tosa_block *b, int *order, tosac_error *err);

/* The CPU graphs of main in the numbering above: *graphs (malloc'd, n entries; [0] = main),
 * *parent (graph index of the graph holding the owning node, -1 for main) and *owner (that
 * node's index) may each be NULL. */
tosac_code plan_graph_list(const ir_graph *main, const ir_graph ***graphs, int **parent,
                           int **owner, int *n, tosac_error *err);

/* ---- planning a program ---- */
/* Kernel scratch per CPU node, from the caller (the CPU executor knows what each op needs). */
typedef struct tosac_plan_sizes {
    int n_graphs;                    /* rows given; graphs beyond have no scratch */
    const int *n_nodes;              /* per graph: entries of scratch[g] (node indices) */
    const uint64_t *const *scratch;  /* [graph][node index] bytes; a NULL row: none */
} tosac_plan_sizes;

typedef struct tosac_program_plan {
    uint64_t arena_bytes;        /* planned region: every activation + scratch */
    uint64_t lower_bound_bytes;  /* max live bytes at one time (same rules, bodies included) */
    int n_graphs;                /* CPU graphs: 0 main, bodies DFS pre-order */
    int *n_cpu; int64_t **cpu_offset;     /* [graph][tensor id] -> offset or -1 */
    int n_delegates;
    int *n_tosa; int64_t **tosa_offset;   /* [delegate][main-block tensor] -> offset or -1 */
    int *n_steps; int64_t **scratch_offset; uint64_t **scratch_bytes; /* [graph][step] */
    int **step_node;             /* [graph][step] -> node index in that graph */
    int **step_op;               /* [graph][step] -> delegate main-block operator, or -1 */
    int64_t *graph_offset;       /* [graph] start of its region (0 for main) */
    uint64_t *graph_bytes;       /* [graph] its region's size (main: arena_bytes) */
} tosac_program_plan;

/* Plans p (extra may be NULL). *out is zeroed first; on failure it holds nothing. A delegate
 * bound to more than one TosaDelegate node is TOSAC_ERR_UNSUPPORTED (its buffers would need
 * two placements); a bad delegate index or block is TOSAC_ERR_INPUT. */
tosac_code tosac_plan_program(const tosac_program *p, const tosac_plan_sizes *extra,
                              tosac_program_plan *out, tosac_error *err);
void tosac_program_plan_free(tosac_program_plan *plan);

#endif
