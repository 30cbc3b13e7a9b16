/* Executor internals shared by the operator files (cpu_ops_*.c).
 *
 * Every ONNX operator is `tosac_code fn(cpu_ctx *c)`: it reads c->in[i] (NULL for an
 * omitted optional input), checks attributes and shapes (failing with cpu_fail, which names
 * the node), allocates each output with cpu_out, and calls kernels. */
#ifndef TOSAC_CPU_INTERNAL_H
#define TOSAC_CPU_INTERNAL_H

#include <stdint.h>

#include "cpu/cpu_exec.h"

#define CPU_MAX_IO 64

typedef struct cpu_env cpu_env;

typedef struct cpu_ctx {
    const ir_graph *g;
    const ir_node *node;
    int64_t opset;
    const tosac_tensor *in[CPU_MAX_IO];
    int n_in;
    tosac_tensor *out;      /* n_out tensors, zeroed; allocate with cpu_out */
    int n_out;
    cpu_plan **subplans;    /* plans of the node's subgraphs, in ir_node_subgraph order */
    int n_sub;
    cpu_env *env;           /* the running graph's values (control flow reads captures) */
    tosac_error *err;
} cpu_ctx;

typedef tosac_code (*cpu_op_fn)(cpu_ctx *c);

/* flags */
#define CPU_F16_VIA_F32 1   /* f16/bf16 inputs are widened to f32, f32 outputs narrowed back */

typedef struct cpu_op_entry {
    const char *op_type;
    cpu_op_fn fn;
    int flags;
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
/* Allocates output i (zeroed); a no-op output slot (-1) still gets a tensor. */
tosac_code cpu_out(cpu_ctx *c, int i, tosac_dtype dt, int rank, const int64_t *shape,
                   tosac_tensor **t);
/* As cpu_out, but the contents are left undefined (no zeroing pass over a large tensor):
 * only for kernels that write every element. */
tosac_code cpu_out_uninit(cpu_ctx *c, int i, tosac_dtype dt, int rank, const int64_t *shape,
                          tosac_tensor **t);
/* The same for a tensor that is not (yet) an output. */
tosac_code cpu_tensor_uninit(cpu_ctx *c, tosac_tensor *t, tosac_dtype dt, int rank,
                             const int64_t *shape);
/* Output i as a copy of t's data with a new shape (same element count). */
tosac_code cpu_out_copy(cpu_ctx *c, int i, const tosac_tensor *t, int rank, const int64_t *shape);

/* Kernel scratch of at least bytes, owned by the running plan and valid until the next call
 * (one node at a time uses it; a subgraph run has its own). NULL after reporting
 * out-of-memory. The contents are undefined. */
void *cpu_scratch(cpu_ctx *c, size_t bytes);

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

/* Runs a subplan with the given inputs (borrowed) from inside an op: outputs are owned by
 * the caller. Captures resolve through c->env. */
tosac_code cpu_run_sub(cpu_ctx *c, cpu_plan *p, const tosac_tensor *inputs, int n_inputs,
                       tosac_tensor *outputs, int n_outputs);
/* The subplan built for the graph held in attribute name; NULL if there is none. */
cpu_plan *cpu_subplan(const cpu_ctx *c, const char *name);
int cpu_plan_n_inputs(const cpu_plan *p);
int cpu_plan_n_outputs(const cpu_plan *p);

#endif
