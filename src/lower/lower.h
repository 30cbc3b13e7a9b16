/* Lowering: IR nodes -> TOSA operators.
 *
 * One rule per (domain, op_type), `tosac_code rule(lower_ctx *c, const ir_node *n)`, grouped by
 * operator family in lower_<family>.c; each family file exports a table (lower_rules_<family>,
 * terminated by {NULL, NULL, NULL}) listed once in lower_registry.c.
 *
 * What a rule may assume (the passes have run, src/passes/pipeline.c):
 *   - Q/DQ pairs are folded: a quantized op reads and writes integer tensors that carry
 *     ir_quant (per-tensor, or per-axis for weights); float ops read and write float tensors;
 *   - shapes and dtypes of every tensor are known and static;
 *   - tensors are in ONNX layout (NCHW): a rule for a layout-sensitive operator transposes its
 *     operands to TOSA's NHWC/OHWI itself (lower_transpose) and transposes the result back;
 *     the TOSA-level cleanup (lower_cleanup.c, lower_layout_propagate.c) moves transposes
 *     past layout-free operators until they meet and cancel.
 *
 * What a rule must do:
 *   - read its operands with lower_in (constants become CONST operators on first use);
 *   - create each IR output with lower_out and make the last operator write it;
 *   - fail with TOSAC_ERR_UNSUPPORTED and a reason ("Conv with auto_pad SAME_LOWER") for a case
 *     it does not handle. Rules do not check the spec: every operator a rule emits is checked
 *     afterwards by tosa_validate_op (validate.h), and a node whose rule fails or emits an
 *     illegal operator stays on the CPU with that reason (partition, trial lowering). Lowering
 *     therefore never fails on a node the partitioner accepted. (One exception: lower_pool.c
 *     keeps AVG_POOL2D for a padded exclude-pad average under Ethos-U55, which refuses the
 *     exact form's lone RESCALE.)
 *
 * Indices: "tensor" below means an index into c->b->tensors; pointers into the block are
 * invalidated by any call that adds tensors, so keep indices. */
#ifndef TOSAC_LOWER_H
#define TOSAC_LOWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tosac/ir.h"
#include "tosac/spec.h"
#include "tosac/tosa.h"
#include "tosa/tosa_names.h"

typedef struct lower_ctx {
    const tosa_spec *spec;
    const ir_graph *g;     /* the graph the nodes belong to (after the passes) */
    tosa_block *b;         /* the block being built */
    int *tmap;             /* g->n_tensors entries: IR tensor id -> tensor in b, or -1 */
    int n_tmap;
    unsigned fresh;        /* counter behind fresh names */
    tosa_names names;      /* index of b's tensor names (rules only append to b) */
    int64_t opset;         /* the model's ai.onnx opset (13 when the graph does not say):
                              Softmax/LogSoftmax axis semantics changed at 13 */
    bool trial;            /* lower_trial_node: the block is validated, then dropped; a
                              rule may leave large weights zero (no check reads their values) */
    const char *block_name; /* the name of b ("main", or a COND_IF / WHILE_LOOP body's) */
    tosa_graph *pending;   /* blocks b's control-flow operators call, lowered and waiting to
                              join the graph (lower_body_end); NULL when there are none */
    tosac_error *err;
} lower_ctx;

typedef tosac_code (*lower_fn)(lower_ctx *c, const ir_node *n);

/* A rule's preconditions, checked once by lower_node before the rule runs (a failed one is
 * TOSAC_ERR_UNSUPPORTED naming the tensor or operand, as the rules used to write it). */
enum {
    LOWER_PRE_NONE = 0,
    /* every present input and output has a known dtype, rank and dims, and a size within
       TOSAC_MAX_TENSOR_BYTES (so element counts cannot overflow): lower_check_static */
    LOWER_PRE_STATIC = 1u << 0,
};
/* const_params masks (bit k: input k; bit 31: every input from 31 on, onnxop_slot_in) */
#define LOWER_CONST_NONE 0u
#define LOWER_CONST_FROM1 0xfffffffeu /* shape / axes / sizes operands after the data input */
#define LOWER_CONST_IN1 0x2u          /* input 1 alone (CenterCropPad's shape) */

typedef struct lower_rule {
    const char *domain;    /* IR_DOMAIN_ONNX ("") or IR_DOMAIN_TOSAC */
    const char *op_type;
    lower_fn fn;
    unsigned pre;          /* LOWER_PRE_* flags */
    uint32_t const_params; /* present inputs that must be compile-time constants (shapes,
                              axes: a runtime one would be a delegate input nothing reads) */
} lower_rule;

/* ---- the rule table (lower_registry.c) ---- */
/* The rule for (domain, op_type); NULL if none. domain NULL means ONNX. */
const lower_rule *lower_find(const char *domain, const char *op_type);
/* Its function (NULL if none). */
lower_fn lower_find_rule(const char *domain, const char *op_type);
/* Runs the node's rule after its preconditions; TOSAC_ERR_UNSUPPORTED "no TOSA lowering for
 * X" when there is none. Rules read the model's opset from c->opset. */
tosac_code lower_node(lower_ctx *c, const ir_node *n);
/* The LOWER_PRE_STATIC check on its own. (A rule declines a case with lx_unsupported,
 * lower_extra.h: "<op>: <reason>" as TOSAC_ERR_UNSUPPORTED.) */
tosac_code lower_check_static(lower_ctx *c, const ir_node *n);
/* The const_params check on its own: every present input in mask is a constant. */
tosac_code lower_check_const_params(lower_ctx *c, const ir_node *n, uint32_t mask);

/* ---- context (lower_ctx.c) ---- */
tosac_code lower_ctx_init(lower_ctx *c, const tosa_spec *spec, const ir_graph *g, tosa_block *b,
                          tosac_error *err);
void lower_ctx_fini(lower_ctx *c);

/* Declares IR tensor t as a tensor of the block (same name, dtype, shape) and maps it; used for
 * block inputs. Returns the tensor index or -1 (err set). */
int lower_declare(lower_ctx *c, int ir_tensor);
/* The block tensor holding IR tensor t: the mapped one, or for a constant a new CONST (its data
 * converted to the dtype the IR tensor declares). -1 with err set when t is neither. */
int lower_tensor(lower_ctx *c, int ir_tensor);
/* lower_tensor of input slot i of n (-1, err set, for an omitted input). */
int lower_in(lower_ctx *c, const ir_node *n, int i);
/* Creates (and maps) the block tensor for output slot i of n. */
int lower_out(lower_ctx *c, const ir_node *n, int i);

/* The IR tensor of input / output slot i of n (NULL if omitted or out of range). */
const ir_tensor *lower_in_ir(const lower_ctx *c, const ir_node *n, int i);
const ir_tensor *lower_out_ir(const lower_ctx *c, const ir_node *n, int i);
/* Constant data of input slot i (an initializer or a Constant node's value), as a borrowed
 * host tensor; false if not constant. */
bool lower_in_const(const lower_ctx *c, const ir_node *n, int i, tosac_tensor *out);

/* A new intermediate tensor named after prefix ("<prefix>", "<prefix>_1", ... unique in the
 * block). */
int lower_tmp(lower_ctx *c, const char *prefix, tosac_dtype dt, int rank, const int64_t *shape);
/* The per-group results of a grouped convolution, each NHWC, joined on the channel axis into
 * a new [nhwc] tensor of parts[0]'s dtype (CONCAT axis 3); -1 on failure. */
int lower_concat_groups(lower_ctx *c, const char *prefix, int *parts, int n, const int64_t nhwc[4]);
/* A constant: new tensor with a copy of data (nbytes from dtype and shape) and its CONST. */
int lower_const(lower_ctx *c, const char *prefix, tosac_dtype dt, int rank, const int64_t *shape,
                const void *data);
/* lower_const taking over data (malloc'd; freed on failure) instead of copying it. */
int lower_const_owned(lower_ctx *c, const char *prefix, tosac_dtype dt, int rank,
                      const int64_t *shape, void *data);
/* A [1] constant of dtype dt holding v (zero points, MUL shift); v must fit dt (float types:
 * f32 any integer value, f16/bf16 only 0). */
int lower_scalar(lower_ctx *c, const char *prefix, tosac_dtype dt, int64_t v);
/* A shape_t value (CONST_SHAPE) of n elements. */
int lower_const_shape(lower_ctx *c, const char *prefix, int n, const int64_t *values);
/* Appends an operator (attr may be NULL for none). */
tosac_code lower_emit(lower_ctx *c, tosa_op op, const tosa_attr *attr, const int *inputs,
                      int n_inputs, const int *outputs, int n_outputs);

/* Copies of a block tensor's properties (valid index assumed). */
tosac_dtype lower_dtype(const lower_ctx *c, int t);
int lower_rank(const lower_ctx *c, int t);
const int64_t *lower_shape(const lower_ctx *c, int t); /* invalidated by additions */

/* ---- layout and shape helpers (lower_ctx.c) ---- */
/* TRANSPOSE of t by perms (output[i] = input[perms[i]]); returns the new tensor, or writes
 * into out when out >= 0. */
int lower_transpose(lower_ctx *c, int t, const int32_t *perms, int out);
/* RESHAPE of t; writes into out when out >= 0. */
int lower_reshape(lower_ctx *c, int t, int rank, const int64_t *shape, int out);
/* t reshaped to rank r by prepending 1s (ONNX multidirectional broadcasting); t itself when
 * its rank is already r. */
int lower_broadcast_rank(lower_ctx *c, int t, int r);
/* The permutations between NCHW and NHWC of rank 4. */
extern const int32_t lower_nchw_to_nhwc[4];
extern const int32_t lower_nhwc_to_nchw[4];

/* ---- quantization helpers (lower_rescale.c) ---- */
/* scale -> (multiplier, shift) such that x * scale ~= (x * multiplier) >> shift:
 * frexp(scale) = m * 2^e, multiplier = m * 2^31 (2^15 when bits is 16) rounded half to even,
 * shift = 31 - e (15 - e) clamped to [2, 62] (the multiplier is shifted right with rounding
 * to stay exact when the shift would pass 62). A scale that cannot be represented (<= 0, not
 * finite, or so large the shift would fall below 2) is TOSAC_ERR_UNSUPPORTED. */
tosac_code lower_quant_multiplier(double scale, int bits, int32_t *multiplier, int32_t *shift,
                                  tosac_error *err);

typedef struct lower_rescale_args {
    tosac_dtype out_dtype;
    const double *scales;  /* n scales: n == 1 per-tensor, else per channel of the last axis */
    int n;
    int64_t in_zp, out_zp;
    int out;               /* write into this tensor when >= 0, else a new one */
    const char *prefix;    /* name of the new tensor (NULL: "rescale") */
} lower_rescale_args;
/* RESCALE of t: out = clamp(((t - in_zp) * scale) + out_zp); multipliers are 32-bit except for
 * i48 inputs (16-bit, as the spec requires), rounding SINGLE_ROUND. Returns the output tensor. */
int lower_rescale(lower_ctx *c, int t, const lower_rescale_args *a);
/* The bias of a convolution or linear layer as an accumulator-typed (acc) [nn] CONST: the
 * constant at input slot `slot` of n (1 or nn values; slot < 0 or an omitted input: zeros)
 * times beta. Float accumulators take the values as they are; integer ones (i32, i48) take
 * them in units of acc_scale[o], the scale of the accumulator before the output RESCALE,
 * rounded half to even: a float bias (a QDQ model that left it float, a16w8) is quantized
 * here, an integer bias is requantized from its own parameters, and taken exactly when they
 * already are acc_scale. A value beyond the accumulator's range is TOSAC_ERR_UNSUPPORTED
 * naming the tensor, never clamped. */
int lower_bias(lower_ctx *c, const ir_node *n, int slot, tosac_dtype acc, int64_t nn,
               const double *acc_scale, double beta);
/* Per-tensor scale and zero point of an IR tensor's quantization (1.0 / 0 when it has none). */
double lower_qscale(const ir_tensor *t);
int64_t lower_qzp(const ir_tensor *t);
/* True if t is an integer tensor carrying quantization parameters. */
bool lower_is_quantized(const ir_tensor *t);

/* ---- driving (lower_graph.c) ---- */
/* Lowers nodes[0..n_nodes) (a topological order) of g into a new TOSA graph (version of the
 * spec) whose main block reads inputs[] and writes outputs[] (IR tensor ids, in that order),
 * then runs the TOSA-level cleanup (lower_cleanup) and validates every operator: an illegal
 * operator is TOSAC_ERR_UNSUPPORTED with tosa_validate_op's reason. */
tosac_code lower_subgraph(const tosa_spec *spec, const ir_graph *g, const int *nodes, int n_nodes,
                          const int *inputs, int n_inputs, const int *outputs, int n_outputs,
                          tosa_graph **out, tosac_error *err);
/* Trial lowering: node alone (its non-constant inputs as block inputs). True if it lowers to
 * legal operators only; otherwise false and reason says why (the rule's failure or the first
 * illegal operator). */
bool lower_trial_node(const tosa_spec *spec, const ir_graph *g, int node, char *reason,
                      size_t len);

/* ---- control-flow bodies (lower_graph.c) ---- */
/* The distinct tensors of g that the immediate bodies of n read through captures, in body
 * then tensor order: their ids go to ids (up to cap); returns how many there are. A COND_IF /
 * WHILE_LOOP body sees only its block inputs, so each becomes an explicit operand. */
int lower_node_captures(const ir_graph *g, const ir_node *n, int *ids, int cap);

/* A block being lowered for a body graph (a COND_IF branch, a WHILE_LOOP cond or body). */
typedef struct lower_body {
    lower_ctx c;           /* c.g is the body graph, c.b the new block */
    tosa_graph *tg;        /* holds c.b (region 0, block 0) until lower_body_end */
    char name[256];
} lower_body;
/* Starts block `<parent's block>_<node name>_<what>` (unique among parent's pending blocks)
 * for body graph sub of node n. The caller declares the block inputs (lower_declare, or
 * lower_tmp for stand-ins), lowers nodes (lower_body_nodes) and emits what it adds. */
tosac_code lower_body_begin(lower_ctx *parent, const ir_graph *sub, const ir_node *n,
                            const char *what, lower_body *bd);
/* Lowers every node of the body graph in a topological order. */
tosac_code lower_body_nodes(lower_body *bd);
/* Sets the block's inputs and outputs (its tensor indices), runs the cleanup, validates every
 * operator (an illegal one is TOSAC_ERR_UNSUPPORTED with the validator's reason) and moves the
 * block, with the blocks it calls, to parent->pending. Releases bd whatever the outcome. */
tosac_code lower_body_end(lower_ctx *parent, lower_body *bd, const int *ins, int n_in,
                          const int *outs, int n_out);
void lower_body_abort(lower_body *bd);

/* ---- TOSA-level cleanup (lower_cleanup.c) ---- */
/* Layout propagation, then drops operators whose outputs nobody reads. */
tosac_code lower_cleanup(tosa_block *b, tosac_error *err);
/* u55 only, after the cleanup: a TRANSPOSE that sank below a widening RESCALE/CAST goes back
 * above it, so the RESCALE stays next to the operator Vela fuses it into (lower_u55.c). */
void lower_u55_order(tosa_block *b);
/* Moves TRANSPOSEs past layout-free operators (permuting constants, axes and shape operands)
 * so that the pairs rules wrap around layout-sensitive operators meet and cancel; rewires
 * IDENTITY and no-op reshapes; folds transposes/reshapes of constants
 * (lower_layout_propagate.c). Leaves dead operators for lower_cleanup to drop. */
tosac_code lower_layout_propagate(tosa_block *b, tosac_error *err);

/* ---- family tables (one per lower_<family>.c; add yours to lower_registry.c) ---- */
extern const lower_rule lower_rules_elementwise[];
extern const lower_rule lower_rules_conv[];
extern const lower_rule lower_rules_activation[];
extern const lower_rule lower_rules_softmax[];
extern const lower_rule lower_rules_quant[];
extern const lower_rule lower_rules_norm[];
extern const lower_rule lower_rules_matmul[];
extern const lower_rule lower_rules_pool[];
extern const lower_rule lower_rules_layout[];
extern const lower_rule lower_rules_reduce[];
extern const lower_rule lower_rules_compare[];
extern const lower_rule lower_rules_minmax[];
extern const lower_rule lower_rules_unary[];
extern const lower_rule lower_rules_gather[];
extern const lower_rule lower_rules_pad[];
extern const lower_rule lower_rules_resize[];
extern const lower_rule lower_rules_cast[];
extern const lower_rule lower_rules_tile[];
extern const lower_rule lower_rules_div[];
extern const lower_rule lower_rules_bitwise[];
extern const lower_rule lower_rules_trig[];
extern const lower_rule lower_rules_pow[];
extern const lower_rule lower_rules_mod[];
extern const lower_rule lower_rules_cumsum[];
extern const lower_rule lower_rules_trilu[];
extern const lower_rule lower_rules_scatter[];
extern const lower_rule lower_rules_conv_transpose[];
extern const lower_rule lower_rules_dft[];          /* lower_dft.c: DFT as RFFT2D / FFT2D */
extern const lower_rule lower_rules_grid_sample[]; /* lower_grid_sample.c: around GATHER */
extern const lower_rule lower_rules_control[];      /* lower_control.c: If as COND_IF, Loop as
                                                       WHILE_LOOP (+cf) */

#endif
