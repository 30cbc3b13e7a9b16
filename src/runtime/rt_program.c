/* The verifying loader of program v2 (layout: docs/PROGRAM_FORMAT.md). Runtime code: no
 * allocation, no stdio; every offset, count, index, string, enum and size is checked before
 * anything reads through it. */
#include "tosac/limits.h"
#include <string.h>

#include "runtime/rt_program.h"

_Static_assert(sizeof(rt_header_rec) == 32, "header layout");
_Static_assert(sizeof(rt_section_rec) == 24, "section layout");
_Static_assert(sizeof(rt_sig_rec) == 96, "signature layout");
_Static_assert(sizeof(rt_cpu_header_rec) == 96, "cpu header layout");
_Static_assert(sizeof(rt_graph_rec) == 48, "graph layout");
_Static_assert(sizeof(rt_tensor_rec) == 96, "tensor layout");
_Static_assert(sizeof(rt_quant_rec) == 32, "quant layout");
_Static_assert(sizeof(rt_node_rec) == 48, "node layout");
_Static_assert(sizeof(rt_attr_rec) == 32, "attribute layout");
_Static_assert(sizeof(rt_opset_rec) == 16, "opset layout");
_Static_assert(sizeof(rt_const_rec) == 96, "constant layout");
_Static_assert(sizeof(rt_delegate_rec) == 40, "delegate layout");
_Static_assert(sizeof(rt_plan_header_rec) == 48, "plan layout");
_Static_assert(sizeof(rt_plan_graph_rec) == 16, "plan graph layout");
_Static_assert(sizeof(rt_plan_delegate_rec) == 8, "plan delegate layout");

#define BAD(...) tosac_fail(err, TOSAC_ERR_INPUT, "program: " __VA_ARGS__)

/* Largest dim a program holds (IR_SHAPE_LIMIT of the compiler). */
#define RT_DIM_LIMIT TOSAC_LIMIT_DIM

uint64_t rt_shape_bytes(uint32_t dt, int32_t rank, const int64_t *shape, int *ok)
{
    *ok = 0;
    if (dt == TOSAC_DT_UNKNOWN || dt >= TOSAC_DT_COUNT || rank < 0 || rank > TOSAC_MAX_RANK)
        return 0;
    uint64_t n = tosac_dtype_size((tosac_dtype)dt);
    for (int d = 0; d < rank; d++) {
        if (shape[d] < 0 || shape[d] > RT_DIM_LIMIT)
            return 0;
        uint64_t v = (uint64_t)shape[d];
        if (v && n > (uint64_t)TOSAC_MAX_TENSOR_BYTES / v)
            return 0;
        n *= v;
    }
    if (n > (uint64_t)TOSAC_MAX_TENSOR_BYTES)
        return 0;
    *ok = 1;
    return n;
}

static int host_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

static int all_zero(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return 0;
    return 1;
}

/* A table of count records of rsize bytes at offset inside a section of sec_size bytes,
 * aligned to align. */
static int table_ok(const rt_table_rec *t, uint64_t rsize, uint64_t align, uint64_t sec_size)
{
    return t->offset % align == 0 && t->offset <= sec_size &&
           (uint64_t)t->count * rsize <= sec_size - t->offset;
}

/* Slice [at, at + n) within a pool of count elements. */
static int slice_ok(uint32_t at, uint32_t n, uint32_t count)
{
    return at <= count && n <= count - at;
}

static int str_ok(const rt_program *p, uint32_t s) { return s < p->strings_bytes; }

static tosac_code check_strings(rt_program *p, const rt_section_rec *s, tosac_error *err)
{
    if (s->size == 0 || s->size > UINT32_MAX)
        return BAD("STRINGS section: size %llu is not in 1..2^32-1",
                   (unsigned long long)s->size);
    p->strings = (const char *)p->base + s->offset;
    p->strings_bytes = (uint32_t)s->size;
    if (p->strings[0] != '\0' || p->strings[p->strings_bytes - 1] != '\0')
        return BAD("STRINGS section: does not start and end with a NUL byte");
    uint32_t run = 0;
    for (uint32_t i = 0; i < p->strings_bytes; i++) {
        run = p->strings[i] ? run + 1 : 0;
        if (run > RT_MAX_STRING)
            return BAD("STRINGS section: a string at byte %u is longer than %u bytes",
                       i - run + 1, RT_MAX_STRING);
    }
    return TOSAC_OK;
}

/* dtype/rank/shape of a tensor-like record: rank -1 (unknown, shape all 0) or 0..8 with dims
 * -1 (unknown) or 0..limit, unused dims 0. */
static int shape_ok(int32_t rank, const int64_t *shape, int allow_unknown)
{
    if (rank < (allow_unknown ? -1 : 0) || rank > TOSAC_MAX_RANK)
        return 0;
    for (int d = 0; d < TOSAC_MAX_RANK; d++) {
        if (d >= rank) {
            if (shape[d] != 0)
                return 0;
        } else if (shape[d] < (allow_unknown ? -1 : 0) || shape[d] > RT_DIM_LIMIT) {
            return 0;
        }
    }
    return 1;
}

static int dtype_ok(uint32_t dt) { return dt < TOSAC_DT_COUNT; }

static tosac_code check_quant(const rt_program *p, uint32_t i, tosac_error *err)
{
    const rt_quant_rec *q = &p->quants[i];
    if (q->axis < -1 || q->axis >= TOSAC_MAX_RANK)
        return BAD("CPU quant %u: axis %d out of range", i, q->axis);
    if (q->n == 0 || (q->axis == -1 && q->n != 1))
        return BAD("CPU quant %u: %u scales for axis %d", i, q->n, q->axis);
    if (!dtype_ok(q->zp_dtype) || q->zp_dtype == TOSAC_DT_UNKNOWN)
        return BAD("CPU quant %u: zero-point dtype %u is not valid", i, q->zp_dtype);
    if (q->block_size < 0)
        return BAD("CPU quant %u: negative block size", i);
    if (!slice_ok(q->scales_at, q->n, p->n_floats) || !slice_ok(q->zps_at, q->n, p->n_ints))
        return BAD("CPU quant %u: scales or zero points beyond their pools", i);
    if (!all_zero(q->reserved, sizeof q->reserved))
        return BAD("CPU quant %u: reserved bytes are not zero", i);
    return TOSAC_OK;
}

static tosac_code check_tensor(const rt_program *p, uint32_t g, uint32_t t, tosac_error *err)
{
    const rt_graph_rec *gr = &p->graphs[g];
    const rt_tensor_rec *r = rt_graph_tensor(p, g, t);
    if (!str_ok(p, r->name))
        return BAD("CPU graph %u tensor %u: name out of range", g, t);
    if (!dtype_ok(r->dtype))
        return BAD("CPU graph %u tensor %u: dtype %u is not valid", g, t, r->dtype);
    if (!shape_ok(r->rank, r->shape, 1))
        return BAD("CPU graph %u tensor %u: rank %d or its shape is not valid", g, t, r->rank);
    if (r->flags & ~(RT_TENSOR_CONST | RT_TENSOR_CAPTURE))
        return BAD("CPU graph %u tensor %u: unknown flags 0x%x", g, t, r->flags);
    if (r->flags & RT_TENSOR_CONST) {
        if ((r->flags & RT_TENSOR_CAPTURE) || r->const_ref < 0 ||
            (uint32_t)r->const_ref >= p->n_constants)
            return BAD("CPU graph %u tensor %u: constant %d out of range", g, t, r->const_ref);
        const rt_const_rec *c = &p->constants[r->const_ref];
        if (c->dtype != r->dtype || c->rank != r->rank ||
            memcmp(c->shape, r->shape, sizeof c->shape) != 0)
            return BAD("CPU graph %u tensor %u: constant %d has another type or shape", g, t,
                       r->const_ref);
    } else if (r->const_ref != -1) {
        return BAD("CPU graph %u tensor %u: constant ref without the CONST flag", g, t);
    }
    if (r->flags & RT_TENSOR_CAPTURE) {
        if (gr->parent < 0 || r->outer_id < 0 ||
            (uint32_t)r->outer_id >= p->graphs[gr->parent].n_tensors)
            return BAD("CPU graph %u tensor %u: captured tensor %d out of range", g, t,
                       r->outer_id);
    } else if (r->outer_id != -1) {
        return BAD("CPU graph %u tensor %u: outer id without the CAPTURE flag", g, t);
    }
    if (r->quant < -1 || (r->quant >= 0 && (uint32_t)r->quant >= p->n_quants))
        return BAD("CPU graph %u tensor %u: quant %d out of range", g, t, r->quant);
    if (r->dim_params != -1) {
        if (r->dim_params < 0 || r->rank <= 0 ||
            !slice_ok((uint32_t)r->dim_params, (uint32_t)r->rank, p->n_ids))
            return BAD("CPU graph %u tensor %u: dim params out of range", g, t);
        for (int d = 0; d < r->rank; d++)
            if (p->ids[r->dim_params + d] < 0 || !str_ok(p, (uint32_t)p->ids[r->dim_params + d]))
                return BAD("CPU graph %u tensor %u: dim param %d out of range", g, t, d);
    }
    return TOSAC_OK;
}

/* Body references: graph g may name only later graphs whose parent is g, in increasing order
 * (DFS pre-order), and the references over all graphs number n_graphs - 1: so every body is
 * named exactly once and the graphs form a tree (no cycle, no sharing). */
typedef struct graph_refs {
    int64_t last;    /* last body named by the graph being checked */
    uint64_t total;  /* references over every graph checked so far */
} graph_refs;

static tosac_code check_graph_ref(const rt_program *p, uint32_t g, int64_t ref, graph_refs *r,
                                  uint32_t node, tosac_error *err)
{
    if (ref <= (int64_t)g || ref >= (int64_t)p->n_graphs || p->graphs[ref].parent != (int32_t)g)
        return BAD("CPU graph %u node %u: graph %lld is not a body of this graph", g, node,
                   (long long)ref);
    if (ref <= r->last)
        return BAD("CPU graph %u node %u: body graph %lld is named twice or out of DFS order",
                   g, node, (long long)ref);
    r->last = ref;
    r->total++;
    return TOSAC_OK;
}

static tosac_code check_attr(const rt_program *p, uint32_t g, uint32_t nd, uint32_t k,
                             graph_refs *refs, tosac_error *err)
{
    const rt_node_rec *n = rt_graph_node(p, g, nd);
    const rt_attr_rec *a = rt_node_attr(p, n, k);
    if (!str_ok(p, a->name) || a->reserved != 0)
        return BAD("CPU graph %u node %u attribute %u: bad name or reserved bytes", g, nd, k);
    int list = a->kind >= RT_ATTR_FLOATS && a->kind <= RT_ATTR_GRAPHS;
    if (!list && a->n != 0)
        return BAD("CPU graph %u node %u attribute %u: count on a scalar kind", g, nd, k);
    switch (a->kind) {
    case RT_ATTR_FLOAT:
    case RT_ATTR_INT:
        return TOSAC_OK;
    case RT_ATTR_STRING:
        return str_ok(p, a->at) ? TOSAC_OK
                                : BAD("CPU graph %u node %u attribute %u: string out of range",
                                      g, nd, k);
    case RT_ATTR_TENSOR:
        return a->at < p->n_constants
                   ? TOSAC_OK
                   : BAD("CPU graph %u node %u attribute %u: constant %u out of range", g, nd,
                         k, a->at);
    case RT_ATTR_GRAPH:
        return check_graph_ref(p, g, a->at, refs, nd, err);
    case RT_ATTR_FLOATS:
        return slice_ok(a->at, a->n, p->n_floats)
                   ? TOSAC_OK
                   : BAD("CPU graph %u node %u attribute %u: floats out of range", g, nd, k);
    case RT_ATTR_INTS:
        return slice_ok(a->at, a->n, p->n_ints)
                   ? TOSAC_OK
                   : BAD("CPU graph %u node %u attribute %u: ints out of range", g, nd, k);
    case RT_ATTR_STRINGS:
    case RT_ATTR_TENSORS:
    case RT_ATTR_GRAPHS:
        if (!slice_ok(a->at, a->n, p->n_ids))
            return BAD("CPU graph %u node %u attribute %u: list out of range", g, nd, k);
        for (uint32_t i = 0; i < a->n; i++) {
            int32_t v = p->ids[a->at + i];
            if (a->kind == RT_ATTR_STRINGS && (v < 0 || !str_ok(p, (uint32_t)v)))
                return BAD("CPU graph %u node %u attribute %u: string %u out of range", g, nd,
                           k, i);
            if (a->kind == RT_ATTR_TENSORS && (v < 0 || (uint32_t)v >= p->n_constants))
                return BAD("CPU graph %u node %u attribute %u: constant %u out of range", g,
                           nd, k, i);
            if (a->kind == RT_ATTR_GRAPHS &&
                check_graph_ref(p, g, v, refs, nd, err))
                return TOSAC_ERR_INPUT;
        }
        return TOSAC_OK;
    default:
        return BAD("CPU graph %u node %u attribute %u: kind %u is not valid", g, nd, k, a->kind);
    }
}

static tosac_code check_ids(const rt_program *p, uint32_t g, uint32_t at, uint32_t n,
                            int allow_omitted, const char *what, uint32_t idx, tosac_error *err)
{
    if (!slice_ok(at, n, p->n_ids))
        return BAD("CPU graph %u %s %u: tensor list out of range", g, what, idx);
    for (uint32_t i = 0; i < n; i++) {
        int32_t v = p->ids[at + i];
        if ((v < 0 && !(allow_omitted && v == -1)) ||
            (v >= 0 && (uint32_t)v >= p->graphs[g].n_tensors))
            return BAD("CPU graph %u %s %u: tensor id %d out of range", g, what, idx, v);
    }
    return TOSAC_OK;
}

static tosac_code check_graph(const rt_program *p, uint32_t g, graph_refs *refs, tosac_error *err)
{
    const rt_graph_rec *r = &p->graphs[g];
    if (!str_ok(p, r->name) || !all_zero(r->reserved, sizeof r->reserved))
        return BAD("CPU graph %u: bad name or reserved bytes", g);
    if ((g == 0) != (r->parent == -1) || r->parent >= (int32_t)g || r->parent < -1)
        return BAD("CPU graph %u: parent %d is not an earlier graph", g, r->parent);
    if (!slice_ok(r->first_tensor, r->n_tensors, p->n_tensors) ||
        !slice_ok(r->first_node, r->n_nodes, p->n_nodes))
        return BAD("CPU graph %u: tensors or nodes out of range", g);
    if (r->n_tensors > INT32_MAX || r->n_nodes > INT32_MAX)
        return BAD("CPU graph %u: too many tensors or nodes", g);
    tosac_code rc = check_ids(p, g, r->inputs_at, r->n_inputs, 0, "inputs", 0, err);
    if (!rc)
        rc = check_ids(p, g, r->outputs_at, r->n_outputs, 0, "outputs", 0, err);
    for (uint32_t t = 0; !rc && t < r->n_tensors; t++)
        rc = check_tensor(p, g, t, err);
    for (uint32_t nd = 0; !rc && nd < r->n_nodes; nd++) {
        const rt_node_rec *n = rt_graph_node(p, g, nd);
        if (!str_ok(p, n->name) || !str_ok(p, n->op_type) || !str_ok(p, n->domain) ||
            !all_zero(n->reserved, sizeof n->reserved))
            return BAD("CPU graph %u node %u: bad string or reserved bytes", g, nd);
        rc = check_ids(p, g, n->inputs_at, n->n_inputs, 1, "node", nd, err);
        if (!rc)
            rc = check_ids(p, g, n->outputs_at, n->n_outputs, 1, "node", nd, err);
        if (!rc && !slice_ok(n->attrs_at, n->n_attrs, p->n_attrs))
            rc = BAD("CPU graph %u node %u: attributes out of range", g, nd);
        for (uint32_t k = 0; !rc && k < n->n_attrs; k++)
            rc = check_attr(p, g, nd, k, refs, err);
    }
    return rc;
}

static tosac_code check_cpu(rt_program *p, const rt_section_rec *s, tosac_error *err)
{
    const unsigned char *sec = p->base + s->offset;
    if (s->size < sizeof(rt_cpu_header_rec))
        return BAD("CPU section: %llu bytes is shorter than its header",
                   (unsigned long long)s->size);
    const rt_cpu_header_rec *h = (const rt_cpu_header_rec *)sec;
    p->cpu = h;
    struct {
        const rt_table_rec *t;
        uint64_t size;
        const char *name;
    } tabs[] = {
        {&h->graphs, sizeof(rt_graph_rec), "graphs"},   {&h->tensors, sizeof(rt_tensor_rec), "tensors"},
        {&h->nodes, sizeof(rt_node_rec), "nodes"},      {&h->attrs, sizeof(rt_attr_rec), "attributes"},
        {&h->quants, sizeof(rt_quant_rec), "quants"},   {&h->opsets, sizeof(rt_opset_rec), "opsets"},
        {&h->ids, 4, "ids"},                            {&h->ints, 8, "ints"},
        {&h->floats, 4, "floats"},
    };
    for (size_t i = 0; i < sizeof tabs / sizeof tabs[0]; i++)
        if (!table_ok(tabs[i].t, tabs[i].size, tabs[i].size >= 8 ? 8 : 4, s->size))
            return BAD("CPU section: table %s (offset %u, %u records) out of bounds or "
                       "misaligned", tabs[i].name, tabs[i].t->offset, tabs[i].t->count);
    if (!all_zero(h->reserved, sizeof h->reserved) || !str_ok(p, h->producer_name) ||
        !str_ok(p, h->producer_version))
        return BAD("CPU section: bad producer strings or reserved bytes");
    p->n_graphs = h->graphs.count;
    p->n_tensors = h->tensors.count;
    p->n_nodes = h->nodes.count;
    p->n_attrs = h->attrs.count;
    p->n_quants = h->quants.count;
    p->n_opsets = h->opsets.count;
    p->n_ids = h->ids.count;
    p->n_ints = h->ints.count;
    p->n_floats = h->floats.count;
    p->graphs = (const rt_graph_rec *)(sec + h->graphs.offset);
    p->tensors = (const rt_tensor_rec *)(sec + h->tensors.offset);
    p->nodes = (const rt_node_rec *)(sec + h->nodes.offset);
    p->attrs = (const rt_attr_rec *)(sec + h->attrs.offset);
    p->quants = (const rt_quant_rec *)(sec + h->quants.offset);
    p->opsets = (const rt_opset_rec *)(sec + h->opsets.offset);
    p->ids = (const int32_t *)(sec + h->ids.offset);
    p->ints = (const int64_t *)(sec + h->ints.offset);
    p->floats = (const float *)(sec + h->floats.offset);
    if (p->n_graphs == 0)
        return BAD("CPU section: no main graph");
    for (uint32_t i = 0; i < p->n_opsets; i++)
        if (!str_ok(p, p->opsets[i].domain) || p->opsets[i].reserved != 0)
            return BAD("CPU opset %u: bad domain or reserved bytes", i);
    tosac_code rc = TOSAC_OK;
    for (uint32_t i = 0; !rc && i < p->n_quants; i++)
        rc = check_quant(p, i, err);
    graph_refs refs = {0, 0};
    for (uint32_t g = 0; !rc && g < p->n_graphs; g++) {
        refs.last = g;
        rc = check_graph(p, g, &refs, err);
    }
    if (!rc && refs.total != (uint64_t)p->n_graphs - 1)
        rc = BAD("CPU section: %u body graphs but %llu body references", p->n_graphs - 1,
                 (unsigned long long)refs.total);
    return rc;
}

static tosac_code check_constants(rt_program *p, const rt_section_rec *s, tosac_error *err)
{
    const unsigned char *sec = p->base + s->offset;
    if (s->size < 16)
        return BAD("CONSTANTS section: %llu bytes is shorter than its header",
                   (unsigned long long)s->size);
    uint32_t n;
    memcpy(&n, sec, 4);
    if (!all_zero(sec + 4, 12))
        return BAD("CONSTANTS section: reserved bytes are not zero");
    uint64_t data_start = 16 + (uint64_t)n * sizeof(rt_const_rec);
    if (data_start > s->size)
        return BAD("CONSTANTS section: %u records do not fit in %llu bytes", n,
                   (unsigned long long)s->size);
    p->n_constants = n;
    p->constants = (const rt_const_rec *)(sec + 16);
    p->const_base = sec;
    for (uint32_t i = 0; i < n; i++) {
        const rt_const_rec *c = &p->constants[i];
        int ok;
        uint64_t bytes = rt_shape_bytes(c->dtype, c->rank, c->shape, &ok);
        if (!ok || !shape_ok(c->rank, c->shape, 0))
            return BAD("CONSTANTS record %u: dtype %u, rank %d or shape is not valid", i,
                       c->dtype, c->rank);
        if (c->nbytes != bytes)
            return BAD("CONSTANTS record %u: %llu bytes for a %llu-byte type and shape", i,
                       (unsigned long long)c->nbytes, (unsigned long long)bytes);
        if (c->offset % RT_PROGRAM_ALIGN || c->offset < data_start || c->offset > s->size ||
            c->nbytes > s->size - c->offset)
            return BAD("CONSTANTS record %u: data at %llu (%llu bytes) misaligned or out of "
                       "the section", i, (unsigned long long)c->offset,
                       (unsigned long long)c->nbytes);
        if (c->reserved != 0)
            return BAD("CONSTANTS record %u: reserved bytes are not zero", i);
    }
    return TOSAC_OK;
}

static tosac_code check_signature(rt_program *p, const rt_section_rec *s, tosac_error *err)
{
    const unsigned char *sec = p->base + s->offset;
    if (s->size < 16)
        return BAD("SIGNATURE section: %llu bytes is shorter than its header",
                   (unsigned long long)s->size);
    uint32_t h[4];
    memcpy(h, sec, 16);
    if (h[2] || h[3])
        return BAD("SIGNATURE section: reserved bytes are not zero");
    if (((uint64_t)h[0] + h[1]) * sizeof(rt_sig_rec) > s->size - 16)
        return BAD("SIGNATURE section: %u inputs and %u outputs do not fit in %llu bytes", h[0],
                   h[1], (unsigned long long)s->size);
    const rt_graph_rec *main = &p->graphs[0];
    if (h[0] != main->n_inputs || h[1] != main->n_outputs)
        return BAD("SIGNATURE section: %u inputs and %u outputs, the main graph has %u and %u",
                   h[0], h[1], main->n_inputs, main->n_outputs);
    p->n_inputs = h[0];
    p->n_outputs = h[1];
    p->inputs = (const rt_sig_rec *)(sec + 16);
    p->outputs = p->inputs + h[0];
    for (uint32_t i = 0; i < h[0] + h[1]; i++) {
        const rt_sig_rec *r = &p->inputs[i];
        int out = i >= h[0];
        uint32_t k = out ? i - h[0] : i;
        const char *side = out ? "output" : "input";
        if (!str_ok(p, r->name) || !all_zero(r->reserved, sizeof r->reserved))
            return BAD("SIGNATURE %s %u: bad name or reserved bytes", side, k);
        if (!dtype_ok(r->dtype) || !shape_ok(r->rank, r->shape, 1))
            return BAD("SIGNATURE %s %u: dtype %u, rank %d or shape is not valid", side, k,
                       r->dtype, r->rank);
        if (r->cpu_tensor != (out ? rt_graph_output(p, 0, k) : rt_graph_input(p, 0, k)))
            return BAD("SIGNATURE %s %u: binds tensor %d, not the main graph's %s", side, k,
                       r->cpu_tensor, side);
        if (r->quant < -1 || (r->quant >= 0 && (uint32_t)r->quant >= p->n_quants))
            return BAD("SIGNATURE %s %u: quant %d out of range", side, k, r->quant);
    }
    return TOSAC_OK;
}

static int str_is(const rt_program *p, rt_str_ref s, const char *v)
{
    return strcmp(rt_str(p, s), v) == 0;
}

const rt_attr_rec *rt_node_attr_by_name(const rt_program *p, const rt_node_rec *n,
                                        const char *name)
{
    for (uint32_t k = 0; k < n->n_attrs; k++)
        if (str_is(p, rt_node_attr(p, n, k)->name, name))
            return rt_node_attr(p, n, k);
    return NULL;
}

rt_delegate_view rt_program_delegate(const rt_program *p, uint32_t d)
{
    const rt_section_rec *s = &p->sections[p->first_delegate + d];
    const unsigned char *sec = p->base + s->offset;
    rt_delegate_view v;
    v.rec = (const rt_delegate_rec *)sec;
    v.inputs = (const int32_t *)(sec + sizeof(rt_delegate_rec));
    v.outputs = v.inputs + v.rec->n_inputs;
    v.tosa = sec + v.rec->tosa_offset;
    v.tosa_size = (size_t)v.rec->tosa_size;
    return v;
}

static int is_delegate_node(const rt_program *p, const rt_node_rec *n)
{
    return str_is(p, n->op_type, "TosaDelegate") && str_is(p, n->domain, "tosac");
}

static tosac_code check_delegate(const rt_program *p, uint32_t d, tosac_error *err)
{
    const rt_section_rec *s = &p->sections[p->first_delegate + d];
    if (s->size < sizeof(rt_delegate_rec))
        return BAD("DELEGATE %u: %llu bytes is shorter than its header", d,
                   (unsigned long long)s->size);
    const rt_delegate_rec *r = (const rt_delegate_rec *)(p->base + s->offset);
    if (r->index != d || r->reserved != 0)
        return BAD("DELEGATE %u: index %u or reserved bytes do not match", d, r->index);
    if (r->graph < 0 || (uint32_t)r->graph >= p->n_graphs || r->node < 0 ||
        (uint32_t)r->node >= p->graphs[r->graph].n_nodes)
        return BAD("DELEGATE %u: node %d of graph %d out of range", d, r->node, r->graph);
    const rt_node_rec *n = rt_graph_node(p, (uint32_t)r->graph, (uint32_t)r->node);
    const rt_attr_rec *ix = rt_node_attr_by_name(p, n, "index");
    if (!is_delegate_node(p, n) || !ix || ix->kind != RT_ATTR_INT || ix->i != (int64_t)d)
        return BAD("DELEGATE %u: graph %d node %d is not TosaDelegate index %u", d, r->graph,
                   r->node, d);
    if (r->n_inputs != n->n_inputs || r->n_outputs != n->n_outputs)
        return BAD("DELEGATE %u: %u inputs and %u outputs, its node has %u and %u", d,
                   r->n_inputs, r->n_outputs, n->n_inputs, n->n_outputs);
    uint64_t ids_end = sizeof(rt_delegate_rec) + 4 * ((uint64_t)r->n_inputs + r->n_outputs);
    if (ids_end > s->size)
        return BAD("DELEGATE %u: its I/O records do not fit in the section", d);
    rt_delegate_view v = rt_program_delegate(p, d);
    for (uint32_t i = 0; i < r->n_inputs + r->n_outputs; i++) {
        int32_t want = i < r->n_inputs ? rt_node_input(p, n, i)
                                       : rt_node_output(p, n, i - r->n_inputs);
        if (v.inputs[i] != want || want < 0)
            return BAD("DELEGATE %u: I/O %u binds tensor %d, its node %d", d, i, v.inputs[i],
                       want);
    }
    if (r->tosa_offset % RT_PROGRAM_ALIGN || r->tosa_offset < ids_end ||
        r->tosa_offset > s->size || r->tosa_size > s->size - r->tosa_offset ||
        r->tosa_size < 8)
        return BAD("DELEGATE %u: flatbuffer at %llu (%llu bytes) misaligned or out of the "
                   "section", d, (unsigned long long)r->tosa_offset,
                   (unsigned long long)r->tosa_size);
    return TOSAC_OK;
}

/* Every TosaDelegate node names a delegate (records: false) whose record points back at it
 * (records: true, once the delegate records are verified). */
static tosac_code check_delegate_nodes(const rt_program *p, int records, tosac_error *err)
{
    for (uint32_t g = 0; g < p->n_graphs; g++)
        for (uint32_t i = 0; i < p->graphs[g].n_nodes; i++) {
            const rt_node_rec *n = rt_graph_node(p, g, i);
            if (!is_delegate_node(p, n))
                continue;
            const rt_attr_rec *ix = rt_node_attr_by_name(p, n, "index");
            if (!ix || ix->kind != RT_ATTR_INT)
                return BAD("CPU graph %u node %u: TosaDelegate without an index", g, i);
            if (ix->i < 0 || ix->i >= (int64_t)p->n_delegates)
                return BAD("CPU graph %u node %u: delegate index %lld out of range (%u "
                           "delegates)", g, i, (long long)ix->i, p->n_delegates);
            if (!records)
                continue;
            const rt_delegate_rec *r = rt_program_delegate(p, (uint32_t)ix->i).rec;
            if (r->graph != (int32_t)g || r->node != (int32_t)i)
                return BAD("CPU graph %u node %u: delegate %lld belongs to another node", g, i,
                           (long long)ix->i);
        }
    return TOSAC_OK;
}

/* A planned offset: -1, or a region [off, off + bytes) inside the arena, 16-byte aligned as
 * the planner places everything (the kernels read their dtype there without checking). */
static int place_ok(int64_t off, uint64_t bytes, uint64_t arena)
{
    if (off == -1)
        return 1;
    if (off % RT_PROGRAM_ALIGN != 0)
        return 0;
    return off >= 0 && (uint64_t)off <= arena && bytes <= arena - (uint64_t)off;
}

static tosac_code check_plan(rt_program *p, const rt_section_rec *s, tosac_error *err)
{
    const unsigned char *sec = p->base + s->offset;
    if (s->size < sizeof(rt_plan_header_rec))
        return BAD("PLAN section: %llu bytes is shorter than its header",
                   (unsigned long long)s->size);
    const rt_plan_header_rec *h = (const rt_plan_header_rec *)sec;
    p->plan = h;
    if (!table_ok(&h->graphs, sizeof(rt_plan_graph_rec), 4, s->size) ||
        !table_ok(&h->delegates, sizeof(rt_plan_delegate_rec), 4, s->size) ||
        !table_ok(&h->pool, 8, 8, s->size))
        return BAD("PLAN section: a table is out of bounds or misaligned");
    uint64_t arena = h->arena_bytes;
    if (arena > (uint64_t)INT64_MAX || h->lower_bound_bytes > arena)
        return BAD("PLAN section: arena %llu bytes below its lower bound %llu",
                   (unsigned long long)arena, (unsigned long long)h->lower_bound_bytes);
    if (h->graphs.count != h->n_graphs || h->delegates.count != h->n_delegates)
        return BAD("PLAN section: table counts differ from the header");
    if (h->n_graphs == 0) {
        if (h->n_delegates != 0 || arena != 0)
            return BAD("PLAN section: an empty plan with delegates or an arena");
        return TOSAC_OK;
    }
    if (h->n_graphs != p->n_graphs || h->n_delegates != p->n_delegates)
        return BAD("PLAN section: plans %u graphs and %u delegates, the program has %u and %u",
                   h->n_graphs, h->n_delegates, p->n_graphs, p->n_delegates);
    p->plan_graphs = (const rt_plan_graph_rec *)(sec + h->graphs.offset);
    p->plan_delegates =
        h->n_delegates ? (const rt_plan_delegate_rec *)(sec + h->delegates.offset) : NULL;
    p->plan_pool = (const int64_t *)(sec + h->pool.offset);
    uint32_t np = h->pool.count;
    for (uint32_t g = 0; g < h->n_graphs; g++) {
        const rt_plan_graph_rec *r = &p->plan_graphs[g];
        if (r->n_tensors != p->graphs[g].n_tensors || !slice_ok(r->offsets_at, r->n_tensors, np) ||
            r->n_steps > UINT32_MAX / 2 || !slice_ok(r->scratch_at, 2 * r->n_steps, np))
            return BAD("PLAN graph %u: tensor count or pool slices out of range", g);
        for (uint32_t t = 0; t < r->n_tensors; t++) {
            const rt_tensor_rec *tr = rt_graph_tensor(p, g, t);
            int ok;
            uint64_t bytes = rt_shape_bytes(tr->dtype, tr->rank, tr->shape, &ok);
            if (!place_ok(p->plan_pool[r->offsets_at + t], ok ? bytes : 0, arena))
                return BAD("PLAN graph %u tensor %u: offset %lld outside the %llu-byte arena "
                           "or not 16-byte aligned",
                           g, t, (long long)p->plan_pool[r->offsets_at + t],
                           (unsigned long long)arena);
        }
        for (uint32_t k = 0; k < r->n_steps; k++) {
            int64_t off = rt_plan_scratch_offset(p, g, k);
            int64_t bytes = p->plan_pool[r->scratch_at + r->n_steps + k];
            if (bytes < 0 || (off == -1 && bytes != 0) || !place_ok(off, (uint64_t)bytes, arena))
                return BAD("PLAN graph %u step %u: scratch outside the arena or not 16-byte aligned", g, k);
        }
    }
    for (uint32_t d = 0; d < h->n_delegates; d++) {
        const rt_plan_delegate_rec *r = &p->plan_delegates[d];
        if (!slice_ok(r->offsets_at, r->n_tensors, np))
            return BAD("PLAN delegate %u: pool slice out of range", d);
        for (uint32_t t = 0; t < r->n_tensors; t++)
            if (!place_ok(p->plan_pool[r->offsets_at + t], 0, arena))
                return BAD("PLAN delegate %u tensor %u: offset outside the arena or not 16-byte aligned", d, t);
    }
    return TOSAC_OK;
}

static tosac_code check_report(rt_program *p, const rt_section_rec *s, tosac_error *err)
{
    const char *r = (const char *)p->base + s->offset;
    if (s->size == 0 || r[s->size - 1] != '\0')
        return BAD("REPORT section: not NUL-terminated");
    p->report = r;
    p->report_len = strlen(r);
    return TOSAC_OK;
}

/* Section table index of the single section of kind k, or -1 (also when there are two). */
static int64_t find_section(const rt_program *p, uint32_t kind, uint32_t *count)
{
    int64_t at = -1;
    *count = 0;
    for (uint32_t i = 0; i < p->n_sections; i++)
        if (p->sections[i].kind == kind) {
            if (at < 0)
                at = i;
            (*count)++;
        }
    return at;
}

static tosac_code check_table(rt_program *p, tosac_error *err)
{
    uint64_t end = sizeof(rt_header_rec) + (uint64_t)p->n_sections * sizeof(rt_section_rec);
    for (uint32_t i = 0; i < p->n_sections; i++) {
        const rt_section_rec *s = &p->sections[i];
        if (s->kind == 0 || (s->kind > RT_SEC_REPORT && !(s->flags & RT_SECF_OPTIONAL)))
            return BAD("section %u: unknown kind %u", i, s->kind);
        if (s->flags & ~RT_SECF_OPTIONAL)
            return BAD("section %u: unknown flags 0x%x", i, s->flags);
        if (s->offset % RT_PROGRAM_ALIGN)
            return BAD("section %u (kind %u): offset %llu is not 16-aligned", i, s->kind,
                       (unsigned long long)s->offset);
        if (s->offset < end)
            return BAD("section %u (kind %u): overlaps the header, the table or section %u",
                       i, s->kind, i ? i - 1 : 0);
        if (s->offset > p->len || s->size > p->len - s->offset)
            return BAD("section %u (kind %u): %llu bytes at %llu beyond the %zu-byte file", i,
                       s->kind, (unsigned long long)s->size, (unsigned long long)s->offset,
                       p->len);
        end = s->offset + s->size;
    }
    return TOSAC_OK;
}

tosac_code rt_program_load(const void *buf, size_t len, rt_program *out, tosac_error *err)
{
    memset(out, 0, sizeof *out);
    rt_program p;
    memset(&p, 0, sizeof p);
    if (!host_little_endian())
        return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "program: this runtime needs a "
                          "little-endian host");
    if (!buf || len < 8 || memcmp(buf, RT_PROGRAM_MAGIC, 8) != 0)
        return tosac_fail(err, TOSAC_ERR_INPUT, "not a tosac program (no TOSACPRG magic)");
    if (len < sizeof(rt_header_rec))
        return BAD("truncated header (%zu bytes)", len);
    uint32_t version;
    memcpy(&version, (const unsigned char *)buf + 8, 4);
    if (version == 1)
        return tosac_fail(err, TOSAC_ERR_INPUT, "version 1 program: recompile with this tosac");
    if (version != RT_PROGRAM_VERSION)
        return BAD("version %u is not supported (this tosac reads version %u)", version,
                   RT_PROGRAM_VERSION);
    if ((uintptr_t)buf % RT_PROGRAM_ALIGN)
        return BAD("the buffer is not 16-aligned");
    const rt_header_rec *h = buf;
    if (h->file_bytes != len)
        return BAD("header says %llu bytes, the file has %zu (truncated or trailing bytes)",
                   (unsigned long long)h->file_bytes, len);
    if (h->flags || h->reserved)
        return BAD("unknown header flags 0x%x", h->flags);
    if (h->n_sections > RT_MAX_SECTIONS ||
        (uint64_t)h->n_sections * sizeof(rt_section_rec) > len - sizeof *h)
        return BAD("%u sections do not fit in %zu bytes", h->n_sections, len);
    p.base = buf;
    p.len = len;
    p.n_sections = h->n_sections;
    p.sections = (const rt_section_rec *)(p.base + sizeof *h);
    tosac_code rc = check_table(&p, err);
    if (rc)
        return rc;
    static const uint32_t once[] = {RT_SEC_STRINGS, RT_SEC_CONSTANTS, RT_SEC_CPU,
                                    RT_SEC_SIGNATURE, RT_SEC_PLAN};
    static const char *const names[] = {"STRINGS", "CONSTANTS", "CPU", "SIGNATURE", "PLAN"};
    int64_t at[5];
    for (int k = 0; k < 5; k++) {
        uint32_t count;
        at[k] = find_section(&p, once[k], &count);
        if (count != 1)
            return BAD("%u %s sections (one needed)", count, names[k]);
    }
    uint32_t nd, nr;
    int64_t d0 = find_section(&p, RT_SEC_DELEGATE, &nd);
    int64_t rep = find_section(&p, RT_SEC_REPORT, &nr);
    if (nr > 1)
        return BAD("%u REPORT sections (at most one)", nr);
    for (uint32_t i = 0; i < nd; i++)
        if (p.sections[d0 + i].kind != RT_SEC_DELEGATE)
            return BAD("DELEGATE sections are not consecutive in the section table");
    p.n_delegates = nd;
    p.first_delegate = d0 < 0 ? 0 : (uint32_t)d0;
    rc = check_strings(&p, &p.sections[at[0]], err);
    if (!rc)
        rc = check_constants(&p, &p.sections[at[1]], err);
    if (!rc)
        rc = check_cpu(&p, &p.sections[at[2]], err);
    if (!rc)
        rc = check_signature(&p, &p.sections[at[3]], err);
    if (!rc)
        rc = check_delegate_nodes(&p, 0, err);
    for (uint32_t d = 0; !rc && d < nd; d++)
        rc = check_delegate(&p, d, err);
    if (!rc)
        rc = check_delegate_nodes(&p, 1, err);
    if (!rc)
        rc = check_plan(&p, &p.sections[at[4]], err);
    if (!rc && rep >= 0)
        rc = check_report(&p, &p.sections[rep], err);
    if (rc)
        return rc;
    *out = p;
    return TOSAC_OK;
}
