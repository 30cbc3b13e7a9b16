/* Program file v2: constants, the fixed-size little-endian records, and the verifying loader
 * (layout byte by byte in docs/PROGRAM_FORMAT.md).
 *
 * rt_program_load checks everything (header, section bounds/overlap/alignment, every string,
 * index, enum, dtype, rank, shape, constant size and plan offset) and fills a fixed-size view
 * whose pointers point into the caller's buffer: no allocation, no copy. After a successful
 * load every accessor below is safe for indices within the counts the view gives (the
 * accessors do not check again). The buffer must be 16-aligned (records are read by pointer,
 * constants used in place) and stay unchanged while the view is used. Records are
 * little-endian; the loader refuses to run on a big-endian host. */
#ifndef TOSAC_RT_PROGRAM_H
#define TOSAC_RT_PROGRAM_H

#include "tosac/limits.h"
#include <stddef.h>
#include <stdint.h>

#include "tosac/dtype.h"
#include "tosac/error.h"
#include "tosac/tensor.h"

#define RT_PROGRAM_MAGIC "TOSACPRG"
#define RT_PROGRAM_VERSION 2u
#define RT_PROGRAM_ALIGN 16u      /* sections, constants and delegate flatbuffers */
#define RT_MAX_SECTIONS TOSAC_LIMIT_PROGRAM_SECTIONS    /* bound on the section table */
#define RT_MAX_STRING TOSAC_LIMIT_PROGRAM_STRING    /* longest string in STRINGS (bytes, NUL excluded) */

/* Section kinds (rt_section_rec.kind). */
enum {
    RT_SEC_STRINGS = 1,
    RT_SEC_SIGNATURE = 2,
    RT_SEC_CPU = 3,
    RT_SEC_DELEGATE = 4,   /* one per delegate, in index order, consecutive in the table */
    RT_SEC_CONSTANTS = 5,
    RT_SEC_PLAN = 6,
    RT_SEC_REPORT = 7,     /* optional: compile report JSON, NUL-terminated */
};
/* rt_section_rec.flags: an unknown kind with this bit is skipped, without it refused. */
#define RT_SECF_OPTIONAL 1u

/* Attribute kinds: ir_attr_kind values (tosac/ir.h), which are ONNX's. */
enum {
    RT_ATTR_FLOAT = 1,
    RT_ATTR_INT = 2,
    RT_ATTR_STRING = 3,
    RT_ATTR_TENSOR = 4,   /* at = constant index */
    RT_ATTR_GRAPH = 5,    /* at = body graph index */
    RT_ATTR_FLOATS = 6,   /* n floats from floats[at] */
    RT_ATTR_INTS = 7,     /* n ints from ints[at] */
    RT_ATTR_STRINGS = 8,  /* n string refs from ids[at] */
    RT_ATTR_TENSORS = 9,  /* n constant indices from ids[at] */
    RT_ATTR_GRAPHS = 10,  /* n graph indices from ids[at] */
};

/* rt_tensor_rec.flags */
#define RT_TENSOR_CONST 1u     /* const_ref names its data */
#define RT_TENSOR_CAPTURE 2u   /* outer_id names the tensor in the parent graph */

/* A string reference is a byte offset into STRINGS; 0 is "". */
typedef uint32_t rt_str_ref;

/* ---- file header (32 bytes at offset 0) and section table (24 bytes each, at 32) ---- */
typedef struct rt_header_rec {
    char magic[8];            /* "TOSACPRG" */
    uint32_t version;         /* 2 */
    uint32_t flags;           /* 0 */
    uint64_t file_bytes;      /* the whole file */
    uint32_t n_sections;
    uint32_t reserved;        /* 0 */
} rt_header_rec;

typedef struct rt_section_rec {
    uint32_t kind;            /* RT_SEC_* */
    uint32_t flags;           /* RT_SECF_* */
    uint64_t offset;          /* from file start; multiple of 16 */
    uint64_t size;            /* bytes */
} rt_section_rec;

/* ---- SIGNATURE: 16-byte header {u32 n_inputs, u32 n_outputs, u32 0, u32 0}, then
 * n_inputs + n_outputs of these (inputs first) ---- */
typedef struct rt_sig_rec {
    rt_str_ref name;
    uint32_t dtype;           /* tosac_dtype */
    int32_t rank;             /* 0..TOSAC_MAX_RANK */
    int32_t cpu_tensor;       /* the tensor id it binds in CPU graph 0 */
    int32_t quant;            /* index into the CPU quant table, or -1 */
    uint32_t reserved[3];     /* 0 */
    int64_t shape[TOSAC_MAX_RANK]; /* -1: unknown dim; unused dims 0 */
} rt_sig_rec;

/* ---- CPU: a 96-byte header of table descriptors, then the tables ---- */
typedef struct rt_table_rec {
    uint32_t offset;          /* from the section start; aligned for the record */
    uint32_t count;           /* records */
} rt_table_rec;

typedef struct rt_cpu_header_rec {
    rt_table_rec graphs, tensors, nodes, attrs, quants, opsets, ids, ints, floats;
    int64_t ir_version;
    rt_str_ref producer_name, producer_version;
    uint32_t reserved[2];     /* 0 */
} rt_cpu_header_rec;

typedef struct rt_graph_rec {  /* graph 0 is main; bodies in DFS pre-order */
    rt_str_ref name;
    int32_t parent;           /* graph index, -1 for graph 0; else < this graph's index */
    uint32_t first_tensor, n_tensors;   /* slice of the tensor table */
    uint32_t first_node, n_nodes;       /* slice of the node table */
    uint32_t inputs_at, n_inputs;       /* tensor ids, from ids[inputs_at] */
    uint32_t outputs_at, n_outputs;     /* tensor ids, from ids[outputs_at] */
    uint32_t reserved[2];     /* 0 */
} rt_graph_rec;

typedef struct rt_tensor_rec {
    rt_str_ref name;
    uint32_t dtype;           /* tosac_dtype (UNKNOWN allowed unless CONST) */
    int32_t rank;             /* -1 unknown, else 0..TOSAC_MAX_RANK */
    uint32_t flags;           /* RT_TENSOR_* */
    int32_t const_ref;        /* constant index (flag CONST), else -1 */
    int32_t outer_id;         /* parent-graph tensor id (flag CAPTURE), else -1 */
    int32_t quant;            /* quant table index, or -1 */
    int32_t dim_params;       /* -1, or rank string refs from ids[dim_params] (0 = none) */
    int64_t shape[TOSAC_MAX_RANK]; /* -1 unknown dim; unused dims 0 */
} rt_tensor_rec;

typedef struct rt_quant_rec {
    int32_t axis;             /* -1 per-tensor, else 0..TOSAC_MAX_RANK-1 */
    uint32_t n;               /* scales/zero points; 1 when per-tensor */
    uint32_t zp_dtype;        /* tosac_dtype */
    int32_t block_size;       /* 0, or > 0 blocked */
    uint32_t scales_at;       /* n floats from floats[scales_at] */
    uint32_t zps_at;          /* n int64 from ints[zps_at] */
    uint32_t reserved[2];     /* 0 */
} rt_quant_rec;

typedef struct rt_node_rec {
    rt_str_ref name, op_type, domain;
    uint32_t n_inputs, inputs_at;       /* tensor ids (-1 omitted) from ids[inputs_at] */
    uint32_t n_outputs, outputs_at;     /* tensor ids (-1 omitted) from ids[outputs_at] */
    uint32_t n_attrs, attrs_at;         /* slice of the attribute table */
    uint32_t reserved[3];     /* 0 */
} rt_node_rec;

typedef struct rt_attr_rec {
    rt_str_ref name;
    uint32_t kind;            /* RT_ATTR_* */
    uint32_t n;               /* list kinds: element count; else 0 */
    uint32_t at;              /* STRING: string ref; TENSOR: constant; GRAPH: graph; lists:
                               * first pool index */
    int64_t i;                /* INT */
    float f;                  /* FLOAT */
    uint32_t reserved;        /* 0 */
} rt_attr_rec;

typedef struct rt_opset_rec {
    rt_str_ref domain;        /* "" = ai.onnx */
    uint32_t reserved;        /* 0 */
    int64_t version;
} rt_opset_rec;

/* ---- CONSTANTS: 16-byte header {u32 count, u32 0, u32 0, u32 0}, count records, then the
 * data; each constant's data 16-aligned, in the in-memory form of tosac/dtype.h ---- */
typedef struct rt_const_rec {
    uint32_t dtype;
    int32_t rank;             /* 0..TOSAC_MAX_RANK */
    uint64_t offset;          /* from the section start; multiple of 16 */
    uint64_t nbytes;          /* == dtype size * element count */
    uint64_t reserved;        /* 0 */
    int64_t shape[TOSAC_MAX_RANK]; /* >= 0; unused dims 0 */
} rt_const_rec;

/* ---- DELEGATE: 40-byte header, then n_inputs + n_outputs int32 CPU tensor ids (padded with
 * zeros to 16), then the .tosa flatbuffer at tosa_offset (16-aligned) ---- */
typedef struct rt_delegate_rec {
    uint32_t index;           /* == its position among the DELEGATE sections */
    int32_t graph;            /* CPU graph holding its TosaDelegate node */
    int32_t node;             /* node index inside that graph */
    uint32_t n_inputs, n_outputs;
    uint32_t reserved;        /* 0 */
    uint64_t tosa_offset;     /* from the section start */
    uint64_t tosa_size;
} rt_delegate_rec;

/* ---- PLAN: 48-byte header, graph/delegate records, an int64 pool. n_graphs 0 = no plan. ---- */
typedef struct rt_plan_header_rec {
    uint64_t arena_bytes;
    uint64_t lower_bound_bytes;
    uint32_t n_graphs;        /* 0 or the CPU graph count */
    uint32_t n_delegates;     /* 0 or the delegate count */
    rt_table_rec graphs;      /* rt_plan_graph_rec[n_graphs] */
    rt_table_rec delegates;   /* rt_plan_delegate_rec[n_delegates] */
    rt_table_rec pool;        /* int64 values */
} rt_plan_header_rec;

typedef struct rt_plan_graph_rec {
    uint32_t n_tensors;       /* == the graph's tensor count */
    uint32_t n_steps;
    uint32_t offsets_at;      /* n_tensors offsets (-1 = not planned) from pool[offsets_at] */
    uint32_t scratch_at;      /* n_steps offsets, then n_steps byte counts, from pool[...] */
} rt_plan_graph_rec;

typedef struct rt_plan_delegate_rec {
    uint32_t n_tensors;       /* main-block tensors of the delegate's flatbuffer */
    uint32_t offsets_at;      /* n_tensors offsets (-1 = not planned) from pool[offsets_at] */
} rt_plan_delegate_rec;

/* ---- the verified view ---- */
typedef struct rt_program {
    const unsigned char *base;        /* the buffer */
    size_t len;
    const rt_section_rec *sections;
    uint32_t n_sections;

    const char *strings;              /* STRINGS: strings_bytes bytes, last one NUL */
    uint32_t strings_bytes;

    uint32_t n_inputs, n_outputs;     /* SIGNATURE */
    const rt_sig_rec *inputs, *outputs;

    const rt_cpu_header_rec *cpu;     /* CPU */
    uint32_t n_graphs, n_tensors, n_nodes, n_attrs, n_quants, n_opsets, n_ids, n_ints,
        n_floats;
    const rt_graph_rec *graphs;
    const rt_tensor_rec *tensors;     /* all graphs; a graph's slice from first_tensor */
    const rt_node_rec *nodes;
    const rt_attr_rec *attrs;
    const rt_quant_rec *quants;
    const rt_opset_rec *opsets;
    const int32_t *ids;
    const int64_t *ints;
    const float *floats;

    uint32_t n_constants;             /* CONSTANTS */
    const rt_const_rec *constants;
    const unsigned char *const_base;  /* the CONSTANTS section start */

    uint32_t n_delegates;             /* DELEGATE sections */
    uint32_t first_delegate;          /* section table index of delegate 0 */

    const rt_plan_header_rec *plan;   /* PLAN */
    const rt_plan_graph_rec *plan_graphs;       /* NULL when plan->n_graphs == 0 */
    const rt_plan_delegate_rec *plan_delegates; /* NULL when plan->n_delegates == 0 */
    const int64_t *plan_pool;

    const char *report;               /* REPORT (NUL-terminated) or NULL */
    size_t report_len;                /* without the NUL */
} rt_program;

/* Verifies buf[0..len) and fills *out. TOSAC_ERR_INPUT with a one-line message naming the
 * section/record and the problem. A version 1 file: "version 1 program: recompile with this
 * tosac". Allocates nothing. */
tosac_code rt_program_load(const void *buf, size_t len, rt_program *out, tosac_error *err);

/* ---- accessors (indices must be within the verified counts) ---- */
static inline const char *rt_str(const rt_program *p, rt_str_ref s) { return p->strings + s; }

static inline const rt_graph_rec *rt_graph(const rt_program *p, uint32_t g)
{
    return &p->graphs[g];
}
static inline const rt_tensor_rec *rt_graph_tensor(const rt_program *p, uint32_t g, uint32_t t)
{
    return &p->tensors[p->graphs[g].first_tensor + t];
}
static inline const rt_node_rec *rt_graph_node(const rt_program *p, uint32_t g, uint32_t n)
{
    return &p->nodes[p->graphs[g].first_node + n];
}
static inline int32_t rt_graph_input(const rt_program *p, uint32_t g, uint32_t i)
{
    return p->ids[p->graphs[g].inputs_at + i];
}
static inline int32_t rt_graph_output(const rt_program *p, uint32_t g, uint32_t i)
{
    return p->ids[p->graphs[g].outputs_at + i];
}
/* Tensor ids in the node's graph; -1 for an omitted optional input/output. */
static inline int32_t rt_node_input(const rt_program *p, const rt_node_rec *n, uint32_t i)
{
    return p->ids[n->inputs_at + i];
}
static inline int32_t rt_node_output(const rt_program *p, const rt_node_rec *n, uint32_t i)
{
    return p->ids[n->outputs_at + i];
}
static inline const rt_attr_rec *rt_node_attr(const rt_program *p, const rt_node_rec *n,
                                              uint32_t k)
{
    return &p->attrs[n->attrs_at + k];
}
/* The attribute named name of node n, or NULL. */
const rt_attr_rec *rt_node_attr_by_name(const rt_program *p, const rt_node_rec *n,
                                        const char *name);
/* List elements of an attribute (FLOATS, INTS, STRINGS/TENSORS/GRAPHS as ids). */
static inline const float *rt_attr_floats(const rt_program *p, const rt_attr_rec *a)
{
    return p->floats + a->at;
}
static inline const int64_t *rt_attr_ints(const rt_program *p, const rt_attr_rec *a)
{
    return p->ints + a->at;
}
static inline const int32_t *rt_attr_ids(const rt_program *p, const rt_attr_rec *a)
{
    return p->ids + a->at;
}
/* Quantization: scales and zero points of quant record q. */
static inline const float *rt_quant_scales(const rt_program *p, const rt_quant_rec *q)
{
    return p->floats + q->scales_at;
}
static inline const int64_t *rt_quant_zps(const rt_program *p, const rt_quant_rec *q)
{
    return p->ints + q->zps_at;
}
/* Constant c: its record and its data (16-aligned, in the buffer). */
static inline const rt_const_rec *rt_constant(const rt_program *p, uint32_t c)
{
    return &p->constants[c];
}
static inline const void *rt_constant_data(const rt_program *p, uint32_t c)
{
    return p->const_base + p->constants[c].offset;
}

/* Delegate d: its header, CPU tensor ids (inputs then outputs) and flatbuffer bytes. */
typedef struct rt_delegate_view {
    const rt_delegate_rec *rec;
    const int32_t *inputs;    /* rec->n_inputs CPU tensor ids in graph rec->graph */
    const int32_t *outputs;   /* rec->n_outputs */
    const void *tosa;         /* 16-aligned */
    size_t tosa_size;
} rt_delegate_view;
rt_delegate_view rt_program_delegate(const rt_program *p, uint32_t d);

/* Plan (all -1 / 0 when the program has no plan: p->plan->n_graphs == 0). */
static inline int rt_plan_present(const rt_program *p) { return p->plan->n_graphs != 0; }
static inline int64_t rt_plan_cpu_offset(const rt_program *p, uint32_t g, uint32_t t)
{
    return p->plan_graphs ? p->plan_pool[p->plan_graphs[g].offsets_at + t] : -1;
}
/* Offset of main-block tensor t of delegate d; -1 when not planned (t beyond the planned
 * count included: the count is checked against the flatbuffer only when it is read). */
static inline int64_t rt_plan_tosa_offset(const rt_program *p, uint32_t d, uint32_t t)
{
    if (!p->plan_delegates || t >= p->plan_delegates[d].n_tensors)
        return -1;
    return p->plan_pool[p->plan_delegates[d].offsets_at + t];
}
static inline uint32_t rt_plan_n_steps(const rt_program *p, uint32_t g)
{
    return p->plan_graphs ? p->plan_graphs[g].n_steps : 0;
}
static inline int64_t rt_plan_scratch_offset(const rt_program *p, uint32_t g, uint32_t step)
{
    return p->plan_pool[p->plan_graphs[g].scratch_at + step];
}
static inline uint64_t rt_plan_scratch_bytes(const rt_program *p, uint32_t g, uint32_t step)
{
    return (uint64_t)p->plan_pool[p->plan_graphs[g].scratch_at + p->plan_graphs[g].n_steps +
                                  step];
}

/* Byte size of a static shape (every dim >= 0) of dtype dt; 0 with *ok = 0 on overflow or
 * beyond TOSAC_MAX_TENSOR_BYTES. */
uint64_t rt_shape_bytes(uint32_t dt, int32_t rank, const int64_t *shape, int *ok);

#endif
