/* The graph IR: what an imported ONNX model becomes, and what the quantizer, the passes, the
 * partitioner, the lowering and the CPU executor work on.
 *
 * Shape of the data:
 *   ir_model  -> opset imports + one top-level ir_graph
 *   ir_graph  -> arrays of tensors and nodes; nodes name tensors by index ("tensor id")
 *   ir_node   -> op (ONNX op_type + domain, interned), input/output tensor ids, attributes
 *   ir_tensor -> name, dtype, shape (-1 = unknown dim, plus its dim_param name),
 *                optional quantization parameters, optional owned constant data
 *
 * Invariants (checked by ir_graph_verify):
 *   - tensor names are unique within one graph;
 *   - every tensor has at most one producer: a node output, or it is a graph input, or it
 *     holds constant data (an initializer), or it is an outer-scope capture (subgraphs only);
 *   - node inputs are tensor ids in range, or -1 for an omitted optional input;
 *   - the node graph is acyclic (node order need not be topological: ir_graph_toposort).
 *
 * Subgraphs (If/Loop/Scan bodies) are ir_graphs held in GRAPH attributes; each has a parent.
 * A subgraph reads an outer-scope value through a local "capture" tensor of the same name whose
 * outer_id is the tensor id in the parent graph (chains for deeper nesting).
 *
 * Pointers into a graph's tensors[] / nodes[] are invalidated by any call that adds tensors or
 * nodes; keep ids, not pointers, across such calls. Everything is released by ir_model_free /
 * ir_graph_free. Strings given to the builder are copied.
 *
 * Plain data by design, not opaque: the IR is the data model users build models in and walk
 * (tensors, nodes, attributes are read by index); the builders below keep its invariants. */
#ifndef TOSAC_IR_H
#define TOSAC_IR_H

#include "tosac/limits.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tosac/dtype.h"
#include "tosac/error.h"
#include "tosac/tensor.h"

/* Domain of the standard ONNX operators (the empty string, as ONNX writes it) and of the
 * internal operators our passes add. */
#define IR_DOMAIN_ONNX ""
#define IR_DOMAIN_TOSAC "tosac"

/* Largest dimension the IR holds (declared by a model, given with --input-shape or inferred):
 * bounded so shape arithmetic on dims and attributes cannot overflow int64. */
#define IR_SHAPE_LIMIT TOSAC_LIMIT_DIM

/* Interned strings: equal strings give the same pointer, so op_type/domain comparisons are
 * pointer comparisons. The pool lives for the whole process (thread-safe). NULL if s is NULL
 * or out of memory. */
const char *ir_intern(const char *s);

/* ---- quantization parameters ---- */
typedef struct ir_quant {
    int axis;              /* -1: per-tensor; else the (non-negative) channel axis */
    int n;                 /* number of scales / zero points (1 when per-tensor) */
    float *scale;          /* n values */
    int64_t *zero_point;   /* n values */
    tosac_dtype zp_dtype;  /* the quantized type: U8, I8, U16, I16, I32, ... */
    int block_size;        /* 0; > 0 for blocked quantization (ONNX opset 21) */
} ir_quant;

/* ---- tensors ---- */
typedef struct ir_tensor {
    char *name;
    tosac_dtype dtype;               /* TOSAC_DT_UNKNOWN until known */
    int rank;                        /* -1 while unknown */
    int64_t shape[TOSAC_MAX_RANK];   /* -1 for an unknown/symbolic dim */
    char *dim_param[TOSAC_MAX_RANK]; /* symbolic dim name or NULL */
    ir_quant *quant;                 /* NULL unless quantization parameters are known */
    void *data;                      /* constant data (owned; dtype.h representation) or NULL */
    size_t nbytes;                   /* bytes of data */
    int outer_id;                    /* capture: tensor id in the parent graph, else -1 */
} ir_tensor;

/* ---- attributes (kinds numbered as ONNX AttributeProto.AttributeType) ---- */
typedef enum ir_attr_kind {
    IR_ATTR_UNDEFINED = 0,
    IR_ATTR_FLOAT = 1,
    IR_ATTR_INT = 2,
    IR_ATTR_STRING = 3,
    IR_ATTR_TENSOR = 4,
    IR_ATTR_GRAPH = 5,
    IR_ATTR_FLOATS = 6,
    IR_ATTR_INTS = 7,
    IR_ATTR_STRINGS = 8,
    IR_ATTR_TENSORS = 9,
    IR_ATTR_GRAPHS = 10,
} ir_attr_kind;

struct ir_graph;

typedef struct ir_attr {
    char *name;
    ir_attr_kind kind;
    float f;                   /* FLOAT */
    int64_t i;                 /* INT */
    char *s;                   /* STRING (NUL-terminated) */
    tosac_tensor t;            /* TENSOR (owns its data) */
    struct ir_graph *g;        /* GRAPH (owned) */
    int n;                     /* element count of the list kinds */
    float *floats;             /* FLOATS */
    int64_t *ints;             /* INTS */
    char **strings;            /* STRINGS */
    tosac_tensor *tensors;     /* TENSORS */
    struct ir_graph **graphs;  /* GRAPHS */
} ir_attr;

/* ---- nodes ---- */
typedef struct ir_node {
    char *name;                /* may be "" */
    const char *op_type;       /* interned, e.g. "Conv" */
    const char *domain;        /* interned; "" for ai.onnx, "tosac" for internal ops */
    int *inputs;               /* tensor ids; -1 = omitted optional input */
    int n_inputs;
    int *outputs;              /* tensor ids; -1 = omitted optional output */
    int n_outputs;
    ir_attr *attrs;
    int n_attrs;
    bool dead;                 /* marked by ir_node_kill; dropped by ir_graph_compact */
} ir_node;

/* ---- graphs and models ---- */
typedef struct ir_graph {
    char *name;
    struct ir_graph *parent;   /* NULL for the top-level graph */
    ir_tensor *tensors;
    int n_tensors, cap_tensors;
    ir_node *nodes;
    int n_nodes, cap_nodes;
    int *inputs;               /* tensor ids of the graph inputs, in order */
    int n_inputs, cap_inputs;
    int *outputs;              /* tensor ids of the graph outputs, in order */
    int n_outputs, cap_outputs;
    int64_t onnx_opset;        /* top-level graph: the model's ai.onnx opset (kept by
                                  ir_model_set_opset; 0 unknown), for opset-dependent lowering */
    void *index_;              /* private: name -> id hash */
} ir_graph;

typedef struct ir_opset {
    char *domain;              /* "" for ai.onnx */
    int64_t version;
} ir_opset;

typedef struct ir_model {
    int64_t ir_version;        /* ONNX IR version (written back as is; default 8) */
    char *producer_name, *producer_version;
    ir_opset *opsets;
    int n_opsets;
    ir_graph *graph;
} ir_model;

/* ================= building ================= */

/* A model with an empty top-level graph named "main" and opset ai.onnx = 13. */
ir_model *ir_model_new(void);
void ir_model_free(ir_model *m);
/* Sets (adds or updates) an opset import. */
tosac_code ir_model_set_opset(ir_model *m, const char *domain, int64_t version, tosac_error *err);
/* The imported version of a domain ("" or "ai.onnx" both mean ONNX); 0 if not imported. */
int64_t ir_model_opset(const ir_model *m, const char *domain);

/* An empty graph (parent may be NULL). */
ir_graph *ir_graph_new(const char *name, ir_graph *parent);
void ir_graph_free(ir_graph *g);

/* Adds a tensor with no data; rank -1 means unknown rank (shape may then be NULL).
 * Returns its id, or -1 with err set (duplicate name, bad rank, out of memory). */
int ir_graph_add_tensor(ir_graph *g, const char *name, tosac_dtype dt, int rank,
                        const int64_t *shape, tosac_error *err);
/* Adds a constant tensor (initializer); data (nbytes must match dtype and shape) is copied. */
int ir_graph_add_const(ir_graph *g, const char *name, tosac_dtype dt, int rank,
                       const int64_t *shape, const void *data, size_t nbytes, tosac_error *err);
/* Same, taking ownership of data (malloc'd; freed by the graph even on failure). */
int ir_graph_add_const_owned(ir_graph *g, const char *name, tosac_dtype dt, int rank,
                             const int64_t *shape, void *data, size_t nbytes, tosac_error *err);
/* Adds a tensor and appends it to the graph inputs. */
int ir_graph_add_input(ir_graph *g, const char *name, tosac_dtype dt, int rank,
                       const int64_t *shape, tosac_error *err);
/* Appends an existing tensor to the graph inputs / outputs. */
tosac_code ir_graph_mark_input(ir_graph *g, int tensor, tosac_error *err);
tosac_code ir_graph_mark_output(ir_graph *g, int tensor, tosac_error *err);
/* A tensor id by name in this graph only; -1 if absent. */
int ir_graph_find_tensor(const ir_graph *g, const char *name);
/* The tensor visible under name from g: its own, or a capture of an outer-scope tensor
 * (created in g, and in the graphs between, on first use). -1 if no enclosing graph has it
 * (err is not set: the caller names the problem). */
int ir_graph_resolve_tensor(ir_graph *g, const char *name, tosac_error *err);
/* A fresh name "<prefix>", "<prefix>_1", ... not used in g nor in the bodies nested in it
 * (passes naming new tensors). */
void ir_graph_unique_name(const ir_graph *g, const char *prefix, char *buf, size_t len);
/* Renames a tensor (name must be unused); the bodies' captures of it take the new name. */
tosac_code ir_graph_rename_tensor(ir_graph *g, int tensor, const char *name, tosac_error *err);

/* Sets the dim_param name of dim d of a tensor (NULL clears). */
tosac_code ir_tensor_set_dim_param(ir_graph *g, int tensor, int d, const char *param,
                                   tosac_error *err);
/* Replaces a tensor's constant data (copied; nbytes must match dtype/shape). */
tosac_code ir_tensor_set_data(ir_graph *g, int tensor, const void *data, size_t nbytes,
                              tosac_error *err);
/* Sets quantization parameters (copied). axis = -1 for per-tensor (then n must be 1). */
tosac_code ir_tensor_set_quant(ir_graph *g, int tensor, const float *scale,
                               const int64_t *zero_point, int n, int axis,
                               tosac_dtype zp_dtype, tosac_error *err);
void ir_tensor_clear_quant(ir_graph *g, int tensor);

/* Adds a node (inputs/outputs copied; op_type/domain interned; domain NULL = ONNX).
 * Returns the node index or -1 with err set. */
int ir_graph_add_node(ir_graph *g, const char *op_type, const char *domain, const char *name,
                      const int *inputs, int n_inputs, const int *outputs, int n_outputs,
                      tosac_error *err);

/* Attribute setters: replace an attribute of the same name or append one. */
tosac_code ir_node_set_float(ir_graph *g, int node, const char *name, float v, tosac_error *err);
tosac_code ir_node_set_int(ir_graph *g, int node, const char *name, int64_t v, tosac_error *err);
tosac_code ir_node_set_string(ir_graph *g, int node, const char *name, const char *v,
                              tosac_error *err);
tosac_code ir_node_set_floats(ir_graph *g, int node, const char *name, const float *v, int n,
                              tosac_error *err);
tosac_code ir_node_set_ints(ir_graph *g, int node, const char *name, const int64_t *v, int n,
                            tosac_error *err);
tosac_code ir_node_set_strings(ir_graph *g, int node, const char *name, const char *const *v,
                               int n, tosac_error *err);
/* Copies t (data included). */
tosac_code ir_node_set_tensor(ir_graph *g, int node, const char *name, const tosac_tensor *t,
                              tosac_error *err);
/* The same taking over t's data (t is left empty; freed on failure): no copy of a large
 * Constant's value at import. */
tosac_code ir_node_take_tensor(ir_graph *g, int node, const char *name, tosac_tensor *t,
                               tosac_error *err);
/* Takes ownership of sub (also on failure); sets sub->parent = g. */
tosac_code ir_node_set_graph(ir_graph *g, int node, const char *name, ir_graph *sub,
                             tosac_error *err);
/* Takes ownership of the n graphs in subs (the array itself stays the caller's). */
tosac_code ir_node_set_graphs(ir_graph *g, int node, const char *name, ir_graph **subs, int n,
                              tosac_error *err);
/* Takes ownership of the tensors' data (n copies of the structs are made). */
tosac_code ir_node_set_tensors(ir_graph *g, int node, const char *name, tosac_tensor *ts, int n,
                               tosac_error *err);

/* Attribute getters. */
const ir_attr *ir_node_attr(const ir_node *n, const char *name);
int64_t ir_node_attr_int(const ir_node *n, const char *name, int64_t dflt);
float ir_node_attr_float(const ir_node *n, const char *name, float dflt);
const char *ir_node_attr_string(const ir_node *n, const char *name, const char *dflt);
/* INTS attribute: pointer to the values and *count; NULL (count 0) if absent / other kind. */
const int64_t *ir_node_attr_ints(const ir_node *n, const char *name, int *count);

/* The k-th subgraph of a node (GRAPH and GRAPHS attributes in attribute order); NULL past
 * the end. Loop: for (k = 0; (sub = ir_node_subgraph(n, k)); k++). */
ir_graph *ir_node_subgraph(const ir_node *n, int k);

/* "node 3 (Conv 'name')" into buf, for error messages; returns buf. */
const char *ir_node_desc(const ir_graph *g, int node, char *buf, size_t len);

/* True when the node is op_type in the ONNX domain. */
bool ir_node_is(const ir_node *n, const char *op_type);

/* ================= querying and rewriting ================= */

/* Node index producing tensor t, or -1 (input, constant, capture, dangling). Linear scan. */
int ir_graph_producer(const ir_graph *g, int tensor);
/* Number of reads of t by live nodes: their input slots, plus one per node whose bodies
 * capture t (an If/Loop/Scan reads it too; graph outputs not counted). If nodes is not NULL,
 * up to max consumer node indices are stored (a node reading t twice appears twice). */
int ir_graph_consumers(const ir_graph *g, int tensor, int *nodes, int max);
/* A snapshot of g's producers and consumers (ir_uses.c): the two queries above in constant
 * time, same answers, for code that asks them per node of a graph it does not change. */
typedef struct ir_uses {
    int n_tensors;
    int *producer; /* per tensor */
    int *start;    /* per tensor + 1: its readers are readers[start[t] .. start[t + 1]) */
    int *readers;
    unsigned char *captured; /* per tensor: a live node's body captures it */
} ir_uses;
tosac_code ir_uses_build(const ir_graph *g, ir_uses *u, tosac_error *err);
void ir_uses_free(ir_uses *u);
int ir_uses_producer(const ir_uses *u, int tensor);
int ir_uses_consumers(const ir_uses *u, int tensor, int *nodes, int max);
/* True when t is a graph output of g. */
bool ir_graph_is_output(const ir_graph *g, int tensor);
bool ir_graph_is_input(const ir_graph *g, int tensor);
/* Constant data of t: an initializer's data, or the value of a Constant node producing t
 * (every value_* form). NULL if t is not constant. *out gets dtype/rank/shape/data (borrowed). */
bool ir_graph_const_value(const ir_graph *g, int tensor, tosac_tensor *out);
/* The same with t's producer known (ir_uses_producer; -2: look it up). */
bool ir_graph_const_value_from(const ir_graph *g, int tensor, int producer, tosac_tensor *out);

/* Every input slot of live nodes (and graph outputs, and subgraph captures) reading old_t
 * reads new_t instead. */
void ir_graph_replace_uses(ir_graph *g, int old_t, int new_t);
tosac_code ir_node_set_input(ir_graph *g, int node, int slot, int tensor, tosac_error *err);
/* Marks a node dead (it stays in nodes[] until ir_graph_compact; the verifier skips it). */
void ir_node_kill(ir_graph *g, int node);
/* Drops dead nodes (node indices change; tensor ids do not). */
void ir_graph_compact(ir_graph *g);
/* Drops tensors no live node, graph input/output or subgraph capture refers to; tensor ids
 * change: remap (may be NULL) gets n_tensors_before entries, old id -> new id or -1. */
tosac_code ir_graph_prune_tensors(ir_graph *g, int *remap, tosac_error *err);

/* order[0..n_nodes) = node indices in a topological order (stable: original order kept
 * where dependencies allow; dead nodes excluded, *n_order gets the count). A cycle is
 * TOSAC_ERR_INPUT naming a node on it. */
tosac_code ir_graph_topo_order(const ir_graph *g, int *order, int *n_order, tosac_error *err);
/* Reorders nodes[] topologically (and drops dead nodes). */
tosac_code ir_graph_toposort(ir_graph *g, tosac_error *err);

/* Total node count including every nested subgraph. */
int ir_graph_count_nodes_deep(const ir_graph *g);

/* ================= checking ================= */

/* Verifies the invariants above plus: dtypes known for data tensors, data sizes matching
 * shapes, quant parameters consistent (axis < rank, n == shape[axis]), attributes well-formed,
 * subgraph parents correct, captures resolving. Recurses into subgraphs. Failures are
 * TOSAC_ERR_INPUT: "node 12 (Conv 'conv1'): input 1 is tensor 999, out of range". */
tosac_code ir_graph_verify(const ir_graph *g, tosac_error *err);
tosac_code ir_model_verify(const ir_model *m, tosac_error *err);

/* Deep structural equality: tensors (names, dtypes, shapes, dim_params, quant, data), nodes
 * (ops, names, inputs, outputs, attributes), inputs, outputs, subgraphs; opsets for models. */
bool ir_graph_equal(const ir_graph *a, const ir_graph *b);
bool ir_model_equal(const ir_model *a, const ir_model *b);

/* ================= printing ================= */

/* Readable text: one line per input, output, initializer summary and node. */
void ir_graph_dump_text(const ir_graph *g, FILE *f);
void ir_model_dump_text(const ir_model *m, FILE *f);
/* Graphviz: nodes as boxes, tensors as edges labelled with dtype and shape. */
void ir_graph_dump_dot(const ir_graph *g, FILE *f);
/* "f32[1,3,?,224]" (symbolic dims print their name, unknown rank prints "f32[*]"). */
const char *ir_tensor_type_str(const ir_tensor *t, char *buf, size_t len);

/* ================= shapes ================= */

/* Parses "NAME=D0,D1,..." (a scalar: "NAME="). name is written into name_buf. */
tosac_code ir_parse_input_shape(const char *spec, char *name_buf, size_t name_len, int *rank,
                                int64_t *dims, tosac_error *err);
/* Gives a graph input a static shape (rank must match a known rank; known dims must agree). */
tosac_code ir_model_set_input_shape(ir_model *m, const char *name, int rank,
                                    const int64_t *dims, tosac_error *err);
/* Infers static dtypes and shapes for every tensor of the top-level graph (and subgraphs),
 * folding small integer shape computations (Shape, Gather, Concat, ...) on the way.
 * An input with an unknown dim is TOSAC_ERR_INPUT naming it and the --input-shape to give;
 * an operator it cannot infer is TOSAC_ERR_UNSUPPORTED naming the node. */
tosac_code ir_model_infer_shapes(ir_model *m, tosac_error *err);
/* The same over a compiled CPU graph: nodes of other domains (TosaDelegate) keep their
 * declared outputs; a declared dtype or shape that a node does not compute is an error. */
tosac_code ir_model_check_shapes(ir_model *m, tosac_error *err);

#endif
