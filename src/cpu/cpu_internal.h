/* Executor internals shared by the operator files (cpu_ops_*.c).
 *
 * Every ONNX operator is `tosac_code fn(cpu_ctx *c)`: it reads c->in[i] (NULL for an
 * omitted optional input), checks attributes and shapes (failing with cpu_fail, which names
 * the node), gets each output with cpu_out, and calls kernels. An operator with a prepare
 * step (cpu_op_prep below) has its attributes parsed and checked once per node, and fn reads
 * them from c->prep.
 *
 * Two executors run the same operators: the host executor (cpu_exec.c, over an ir_model:
 * ONNX runs, calibration, constant folding) and the runtime (src/runtime, over read-only IR
 * views built in its arena). The operators therefore allocate nothing themselves: every
 * byte they use comes from the executor through c->ops (cpu_env_ops below), and they call
 * nothing of the compiler (only kernels, src/util core, and src/ir/ir_lookup.c).
 *
 * Memory contract (what the executor supplies through cpu_env_ops):
 * - out(c, i, dt, rank, shape, nbytes, zero): makes c->out[i] a tensor of that type whose
 *   data holds at least nbytes (the tensor's byte size, already checked by cpu_out; may be
 *   0, the data pointer is still non-NULL), aligned for the dtype (16 bytes is safe), zeroed
 *   when zero is set. The executor owns the data (owns_data is the executor's business);
 *   the op writes it and may read it back.
 *   An op may ask for the same output more than once (the last request wins). A runtime
 *   executor may hand out a preplanned buffer, and must then check that nbytes fits it (and
 *   fail with an error naming the node otherwise); it must also fill an output slot whose
 *   node output is absent (-1) with a buffer (a throwaway one is fine).
 * - temp(c, bytes): op-private memory (16-aligned, contents undefined) that lives until
 *   release(c, ptr) or until the op returns, whichever is first; NULL when exhausted (the
 *   caller reports it). release may be a no-op (a bump arena reset after each node); then a
 *   Loop/Scan keeps every iteration's temporaries until the node returns.
 * - scratch(c, bytes): one kernel scratch area per running graph, valid until the next
 *   scratch call (contents undefined); NULL when exhausted.
 * - take(c, i, t) (may be NULL): output i becomes the temporary tensor t (moved, no copy);
 *   NULL means cpu_out_take copies t into out(c, i, ...) instead.
 * - run_sub(c, k, in, n_in, out, n_out): runs subgraph k of the node (ir_node_subgraph
 *   order) with inputs borrowed for the call; captures (tensors with outer_id >= 0) resolve
 *   to the values of the enclosing graphs. out[0..n_out) receive temporaries of the calling
 *   op (free them with cpu_tensor_drop, or leave them to be released when the op returns).
 * - prepared(c, bytes, fresh) (may be NULL): memory of the node (16-aligned) that lives as
 *   long as the plan, for data an op derives from constant inputs once (packed weights):
 *   the first request of a node (or one of another size) gives new memory with *fresh = 1
 *   (contents undefined: the op fills it), later runs the same block with *fresh = 0. NULL
 *   (or an executor without it) means nothing is kept: the op derives the data per run.
 *   The runtime's blocks come from a region measured at compile time, filled at init by the
 *   op's pack step (cpu_op_prep.pack) when it has one, else on the first run.
 * The executor sets every field of cpu_ctx except the private ones, calls the op through
 * cpu_invoke (which handles CPU_F16_VIA_F32), and afterwards releases the op's temporaries
 * (on success and failure) and, on failure, its outputs.
 *
 * IR the operators read (a runtime view must fill exactly these; everything else of
 * ir_graph/ir_tensor/ir_node/ir_attr may be zero):
 * - ir_graph: n_tensors, tensors, n_nodes, nodes, parent (NULL for the main graph),
 *   n_inputs, n_outputs (of subgraph bodies);
 * - ir_tensor: dtype, rank, shape (declared, of node outputs and Scan outputs), data and
 *   nbytes (constants), outer_id (-1 unless a capture), name (messages);
 * - ir_node: name, op_type, domain (plain strings, compared with strcmp: never interned
 *   pointers), n_inputs, inputs, n_outputs, outputs, n_attrs, attrs, dead (0);
 * - ir_attr: name, kind and the member of that kind: i, f, s, ints + n, floats + n, t (a
 *   tensor value: dtype, rank, shape, data, nbytes), g (IR_ATTR_GRAPH body), graphs + n
 *   (IR_ATTR_GRAPHS).
 * ir_graph_const_value looks through the producer Constant node of a tensor when the tensor
 * has no data (host graphs); a runtime view simply gives constants their data. */
#ifndef TOSAC_CPU_INTERNAL_H
#define TOSAC_CPU_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "tosac/error.h"
#include "tosac/ir.h"
#include "tosac/tensor.h"

#include "kernels/out_act.h"

#define CPU_MAX_IO 64

typedef struct cpu_ctx cpu_ctx;

/* The executor's side of the memory contract (see the top of this file). */
typedef struct cpu_env_ops {
    tosac_code (*out)(cpu_ctx *c, int i, tosac_dtype dt, int rank, const int64_t *shape,
                      size_t nbytes, int zero);
    void *(*temp)(cpu_ctx *c, size_t bytes);
    void (*release)(cpu_ctx *c, void *ptr);
    void *(*scratch)(cpu_ctx *c, size_t bytes);
    tosac_code (*take)(cpu_ctx *c, int i, tosac_tensor *t);
    tosac_code (*run_sub)(cpu_ctx *c, int k, const tosac_tensor *in, int n_in,
                          tosac_tensor *out, int n_out);
    void *(*prepared)(cpu_ctx *c, size_t bytes, int *fresh);
} cpu_env_ops;

struct cpu_ctx {
    const ir_graph *g;
    const ir_node *node;
    int64_t opset;
    const tosac_tensor *in[CPU_MAX_IO];
    int n_in;
    tosac_tensor *out;      /* n_out slots, zeroed by the executor; fill with cpu_out */
    int n_out;
    const cpu_env_ops *ops; /* the executor's memory and subgraph runs */
    void *exec;             /* the executor's state for this node: for its cpu_env_ops only */
    tosac_error *err;
    const kern_out_act *act;    /* NULL, or (Conv) an activation the executor fused into this node:
                               the op applies it to its output (see cpu_fuse.c) */
    const void *prep;       /* the node's prepared state (cpu_op_prep), NULL: none kept yet */
    int outs_temp_;         /* private (cpu_invoke, cpu_with_temp_outs): cpu_out gives temporaries */
};

typedef tosac_code (*cpu_op_fn)(cpu_ctx *c);

/* The prepare step of an operator (optional): what depends only on the program, done once
 * per node before any run. It parses the node's attributes (through the operator-semantics
 * layer, src/onnxop), checks them and fills st (size bytes, zeroed before the call), reading
 * only c->g, c->node, c->opset and c->err: no inputs, outputs or memory (the declared IR
 * tensors of the node may be read: their shapes can be unknown in a host graph, so what
 * depends on them is kept only when they are static, and eval checks it still holds). The
 * eval step (cpu_op_entry.fn) then reads c->prep and computes, checking only what depends on
 * the data. The host executor allocates st at plan time, the runtime in its arena at init
 * (the compiler's measured state includes it); a call without a kept state (constant
 * folding, measuring) prepares into a local block first (cpu_invoke, cpu_host_call). */
typedef tosac_code (*cpu_prep_fn)(cpu_ctx *c, void *st);
/* The pack step (optional): after prepare, before any run, fills the node's prepared blocks
 * (cpu_prepared) from its constant inputs, with c->prep set and no inputs (constants are
 * read from c->g, ir_graph_const_value): what eval would pack on its first run, in the block
 * of the size eval asks for, so eval finds it filled. A node it cannot pack for (no constant,
 * a shape eval refuses) is left alone (eval reports it). */
typedef tosac_code (*cpu_pack_fn)(cpu_ctx *c);
typedef struct cpu_op_prep {
    cpu_prep_fn prepare;
    size_t size;                /* at most CPU_PREP_MAX */
    cpu_pack_fn pack;           /* NULL: nothing derived from constants before a run */
} cpu_op_prep;
#define CPU_PREP_MAX 1024

/* flags */
#define CPU_F16_VIA_F32 1   /* f16/bf16 inputs are widened to f32, f32 outputs narrowed back */

/* Every operator that has an attribute (or a check of the program alone) has a prepare
 * step, and its eval reads no attribute. NULL is left to the operators with neither: the
 * binary elementwise and comparison operators, Sum/Mean/Max/Min, Where, PRelu, the logical
 * and bitwise ones (cpu_ops_elementwise.c; Mod and BitShift have one), the attribute-free
 * unary math and activations, Identity, CastLike, IsNaN (cpu_ops_unary.c), the global pools,
 * Size, Range, Expand, Tile, NonZero, MatMulInteger, QLinearMatMul,
 * DynamicQuantizeLinear and Det. (Einsum, in cpu_ops_linalg.c, still parses its equation at
 * eval.) */
typedef struct cpu_op_entry {
    const char *op_type;
    cpu_op_fn fn;
    int flags;
    const cpu_op_prep *prep;    /* NULL: nothing to prepare (no attribute, see above) */
} cpu_op_entry;

/* One table per operator family, each ending with {NULL, NULL, 0}. */
extern const cpu_op_entry cpu_ops_elementwise[]; /* cpu_ops_elementwise.c */
extern const cpu_op_entry cpu_ops_unary[];       /* cpu_ops_unary.c */
extern const cpu_op_entry cpu_ops_conv[];        /* cpu_ops_conv.c: Conv, ConvTranspose, Gemm, MatMul */
extern const cpu_op_entry cpu_ops_pool[];        /* cpu_ops_pool.c */
extern const cpu_op_entry cpu_ops_reduce[];      /* cpu_ops_reduce.c */
extern const cpu_op_entry cpu_ops_norm[];        /* cpu_ops_norm.c: Softmax family, norms */
extern const cpu_op_entry cpu_ops_shape[];       /* cpu_ops_shape.c: Reshape, Shape, Constant... */
extern const cpu_op_entry cpu_ops_layout[];      /* cpu_ops_layout.c: Transpose, Concat, Slice... */
extern const cpu_op_entry cpu_ops_gather[];      /* cpu_ops_gather.c: Gather*, Scatter*, OneHot */
extern const cpu_op_entry cpu_ops_quant[];       /* cpu_ops_quant.c */
extern const cpu_op_entry cpu_ops_control[];     /* cpu_ops_control.c: If, Loop */
extern const cpu_op_entry cpu_ops_scan[];        /* cpu_ops_scan.c: Scan (8 and 9+) */
extern const cpu_op_entry cpu_ops_resize[];      /* cpu_ops_resize.c */
extern const cpu_op_entry cpu_ops_rnn[];         /* cpu_ops_rnn.c */
extern const cpu_op_entry cpu_ops_loss[];        /* cpu_ops_loss.c */
extern const cpu_op_entry cpu_ops_linalg[];      /* cpu_ops_linalg.c: Det, Einsum */
extern const cpu_op_entry cpu_ops_detect[];      /* cpu_ops_detect.c: NonMaxSuppression, RoiAlign */
extern const cpu_op_entry cpu_ops_text[];        /* cpu_ops_text.c: TfIdfVectorizer */
extern const cpu_op_entry cpu_ops_signal[];      /* cpu_ops_signal.c: windows, DFT, STFT, mel */

const cpu_op_entry *cpu_find_op(const char *op_type);

/* "node 'name' (Op): <msg>" with code. */
tosac_code cpu_fail(cpu_ctx *c, tosac_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define CPU_CHECK(c, cond, ...)                                                                \
    do {                                                                                       \
        if (!(cond))                                                                           \
            return cpu_fail((c), TOSAC_ERR_INPUT, __VA_ARGS__);                                \
    } while (0)

/* Input i or NULL (omitted / beyond n_in). */
const tosac_tensor *cpu_opt(const cpu_ctx *c, int i);
/* Input i, failing if absent. */
tosac_code cpu_req(cpu_ctx *c, int i, const tosac_tensor **t);
/* Input i, failing unless present and f32 or f64. */
tosac_code cpu_req_float(cpu_ctx *c, int i, const tosac_tensor **t);
/* Output i (zeroed) through the executor; a no-op output slot (-1) still gets a tensor. */
tosac_code cpu_out(cpu_ctx *c, int i, tosac_dtype dt, int rank, const int64_t *shape,
                   tosac_tensor **t);
/* As cpu_out, but the contents are left undefined (no zeroing pass over a large tensor):
 * only for kernels that write every element. */
tosac_code cpu_out_uninit(cpu_ctx *c, int i, tosac_dtype dt, int rank, const int64_t *shape,
                          tosac_tensor **t);
/* Output i as a copy of t's data with a new shape (same element count). */
tosac_code cpu_out_copy(cpu_ctx *c, int i, const tosac_tensor *t, int rank, const int64_t *shape);
/* Output i becomes the temporary t (moved when the executor can, else copied); t is left
 * empty. */
tosac_code cpu_out_take(cpu_ctx *c, int i, tosac_tensor *t);

/* A temporary tensor of the op (see temp in the contract above), zeroed when zero is set;
 * t->owns_data stays 0 (never pass it to tosac_tensor_free: use cpu_tensor_drop). */
tosac_code cpu_tensor_temp(cpu_ctx *c, tosac_tensor *t, tosac_dtype dt, int rank,
                           const int64_t *shape, int zero);
/* Releases a temporary tensor (or a cpu_run_sub output) early and empties it; NULL data ok. */
void cpu_tensor_drop(cpu_ctx *c, tosac_tensor *t);
/* Op-private memory of bytes (16-aligned, undefined contents) until cpu_release or the op
 * returns; NULL after reporting out-of-memory. */
void *cpu_temp(cpu_ctx *c, size_t bytes);
void cpu_release(cpu_ctx *c, void *ptr);

/* Kernel scratch of at least bytes, owned by the running graph and valid until the next
 * call (one node at a time uses it; a subgraph run has its own). NULL after reporting
 * out-of-memory. The contents are undefined. */
void *cpu_scratch(cpu_ctx *c, size_t bytes);

/* The node's memory kept across runs (prepared in the contract above), or NULL when the
 * executor keeps none or it is exhausted (never an error: the op then works per run). */
void *cpu_prepared(cpu_ctx *c, size_t bytes, int *fresh);
/* True when input i is a constant of the graph (the same data on every run). */
int cpu_input_is_const(const cpu_ctx *c, int i);

/* Runs e's prepare step for c's node into st (e->prep->size bytes, zeroed first); a no-op
 * for an operator without one. */
tosac_code cpu_prepare(cpu_ctx *c, const cpu_op_entry *e, void *st);
/* Runs e's pack step (c->prep, c->ops and c->exec set); a no-op for an operator without one. */
tosac_code cpu_prepack(cpu_ctx *c, const cpu_op_entry *e);
/* Runs e->fn on c (prepared first into a local block when c->prep is NULL), widening f16/bf16 inputs to f32 and narrowing the f32 outputs back when
 * e has CPU_F16_VIA_F32: what every executor calls. */
tosac_code cpu_invoke(cpu_ctx *c, const cpu_op_entry *e);
/* Runs fn(c, user) with cpu_out giving temporaries (an intermediate computed as if it were
 * output 0, e.g. the int32 accumulator of QLinearMatMul): the caller moves them out of
 * c->out and drops them. */
tosac_code cpu_with_temp_outs(cpu_ctx *c, tosac_code (*fn)(cpu_ctx *c, void *user), void *user);

/* The declared rank of input i in the node's graph, or -1 (absent, unknown): what a prepare
 * step may rely on (eval checks the value's rank still agrees). */
int cpu_decl_rank(const cpu_ctx *c, int i);
/* The one-attribute state of the operators whose only attribute is an integer "axis"
 * (Concat, Gather, GatherElements, Flatten): the prepare steps read it once. */
typedef struct cpu_axis_prep {
    int64_t axis;
} cpu_axis_prep;
extern const cpu_op_prep cpu_prep_axis0;    /* "axis", default 0 */
extern const cpu_op_prep cpu_prep_axis1;    /* "axis", default 1 */

/* A prepare step's read of constant input i as integers (at most max): 1 when it is a
 * constant of the graph and was read, 0 when not constant (eval reads the value). */
int cpu_const_ints(cpu_ctx *c, int i, int64_t *vals, int max, int *n, tosac_code *rc);

/* Normalises axis (may be negative) against rank. */
tosac_code cpu_axis(cpu_ctx *c, int64_t axis, int rank, int *out);
/* Reads an integer tensor (any int type) into vals (at most max). */
tosac_code cpu_ints(cpu_ctx *c, const tosac_tensor *t, int64_t *vals, int max, int *n);
/* A scalar (or 1-element) numeric tensor as double / int64. */
tosac_code cpu_scalar_f64(cpu_ctx *c, const tosac_tensor *t, double *v);
tosac_code cpu_scalar_i64(cpu_ctx *c, const tosac_tensor *t, int64_t *v);
/* Fails unless t has one of the dtypes in the TOSAC_DT_UNKNOWN-terminated list. */
tosac_code cpu_dtype_in(cpu_ctx *c, const tosac_tensor *t, const char *what, ...);

/* Attributes of the current node. */
int64_t cpu_attr_i(const cpu_ctx *c, const char *name, int64_t dflt);
float cpu_attr_f(const cpu_ctx *c, const char *name, float dflt);
const char *cpu_attr_s(const cpu_ctx *c, const char *name, const char *dflt);
const int64_t *cpu_attr_ints(const cpu_ctx *c, const char *name, int *n);
int cpu_has_attr(const cpu_ctx *c, const char *name);

/* x viewed as [outer, shape[axis], inner]. */
void cpu_split_axis(const tosac_tensor *t, int axis, int64_t *outer, int64_t *n, int64_t *inner);

/* The body graph held in attribute name; NULL if there is none. */
const ir_graph *cpu_subgraph(const cpu_ctx *c, const char *name);
/* Runs body (a subgraph of the node) with the given inputs (borrowed): outputs are
 * temporaries of the op (cpu_tensor_drop). */
tosac_code cpu_run_sub(cpu_ctx *c, const ir_graph *body, const tosac_tensor *inputs,
                       int n_inputs, tosac_tensor *outputs, int n_outputs);
/* The two halves: body's index among the node's subgraphs (ir_node_subgraph order; -1: not
 * one of them), found once by a prepare step, and the run of the subgraph at index k. */
int cpu_subgraph_index(const cpu_ctx *c, const ir_graph *body);
tosac_code cpu_run_sub_at(cpu_ctx *c, int k, const tosac_tensor *inputs, int n_inputs,
                          tosac_tensor *outputs, int n_outputs);

/* The host executor (cpu_exec.c, not in the runtime) running one node outside a graph
 * (constant folding): malloc'd outputs in c->out, owned by the caller; no subgraphs. Sets
 * c->ops and c->exec. */
tosac_code cpu_host_call(cpu_ctx *c, const cpu_op_entry *e);

#endif
