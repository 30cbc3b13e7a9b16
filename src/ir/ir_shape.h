/* Shape inference internals: the per-graph context and the per-operator rules. */
#ifndef TOSAC_IR_SHAPE_H
#define TOSAC_IR_SHAPE_H

#include "ir_internal.h"

/* Small integer tensors whose values are known at compile time (shape arithmetic). */
#define SHAPE_MAX_VALUES 64

typedef struct shape_val {
    int n;                 /* -1: unknown */
    int64_t v[SHAPE_MAX_VALUES];
} shape_val;

typedef struct shape_ctx {
    ir_graph *g;
    shape_val *vals;       /* per tensor */
    int64_t opset;
    tosac_error *err;
    const ir_graph *dead_branch; /* If: a branch that cannot run with these shapes, or NULL */
    bool other_domains;    /* nodes of other domains keep their declared outputs */
} shape_ctx;

typedef tosac_code (*shape_rule)(shape_ctx *c, int node);

/* The rule for an ONNX op, or NULL. */
shape_rule ir_shape_rule(const char *op_type);
/* The family files' rule tables, each ended by {NULL, NULL}: ir_shape_ops_<family>.c. */
typedef struct shape_rule_row {
    const char *op;
    shape_rule fn;
} shape_rule_row;
extern const shape_rule_row ir_shape_rules_layout[], ir_shape_rules_conv[],
    ir_shape_rules_linalg[], ir_shape_rules_signal[], ir_shape_rules_image[];
/* Rules of ir_shape_ops_seq.c (recurrent layers, losses, TfIdfVectorizer), or NULL. */
shape_rule ir_shape_rule_seq(const char *op_type);

/* Helpers for rules (src/ir/ir_shape_infer.c). */
const ir_tensor *sh_in(shape_ctx *c, int node, int k);        /* NULL if omitted */
bool sh_static(const ir_tensor *t);                            /* dtype, rank, dims known */
tosac_code sh_set(shape_ctx *c, int node, int k, tosac_dtype dt, int rank, const int64_t *shape);
tosac_code sh_fail(shape_ctx *c, int node, const char *reason);
/* Values of input k as int64 (constant data or folded); false if unknown. */
bool sh_ints(shape_ctx *c, int node, int k, int64_t *out, int *n, int max);
void sh_set_vals(shape_ctx *c, int node, int k, const int64_t *v, int n);
/* Input k with a static shape, else a failure naming it. */
tosac_code sh_need(shape_ctx *c, int node, int k, const ir_tensor **t);
/* Output k keeps a declared static shape when the values it depends on are unknown. */
tosac_code sh_declared_or_fail(shape_ctx *c, int node, int k, const char *why);
/* TOSAC_ERR_INPUT "node '<name>': <what>". */
tosac_code sh_bad(shape_ctx *c, int node, const char *what);
/* A scalar size input into *v; *v = SH_UNKNOWN (and OK) when it is not known but output 0 is
 * declared. */
#define SH_UNKNOWN INT64_MIN
tosac_code sh_scalar_int(shape_ctx *c, int node, int k, int64_t *v);
/* ONNX TensorProto.DataType code -> element type (UNKNOWN if not held). */
tosac_dtype sh_onnx_dtype(int64_t code);

/* Overflow-checked arithmetic on dims and on values a model supplies (attributes, constant
 * shape operands): false when the exact result does not fit int64. */
bool sh_add(int64_t a, int64_t b, int64_t *r);
bool sh_mul(int64_t a, int64_t b, int64_t *r);
/* Element count of a static shape; false on overflow. */
bool sh_numel(int rank, const int64_t *shape, int64_t *n);
/* A node's failure for values that leave the int64 range: TOSAC_ERR_INPUT naming the node. */
tosac_code sh_overflow(shape_ctx *c, int node, const char *what);

#endif
