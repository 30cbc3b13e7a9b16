/* The program container, compiler side: tosac_program <-> program file v2 (layout in
 * docs/PROGRAM_FORMAT.md; records in runtime/rt_program.h). Writing turns the CPU ir_model
 * into records (graphs in DFS pre-order), reading verifies with rt_program_load and rebuilds
 * the ir_model with the IR builder. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "compile/compile_json.h"
#include "compile/program_internal.h"
#include "compile/program_bytes.h"
#include "runtime/rt_program.h"
#include "tosac/compile.h"
#include "tosac/program.h"
#include "tosa/tosa_internal.h"
#include "util/alloc.h"
#include "util/fileio.h"

void tosac_program_free_run(tosac_program *p); /* program_run.c */

void tosac_program_free(tosac_program *p)
{
    if (!p)
        return;
    tosac_program_free_run(p);
    ir_model_free(p->cpu);
    for (int i = 0; i < p->n_delegates; i++) {
        if (p->delegates)
            tosa_graph_free(p->delegates[i]);
        if (p->meta)
            free(p->meta[i]);
    }
    free(p->delegates);
    free(p->meta);
    free(p->report);
    free(p);
}

int tosac_program_n_delegates(const tosac_program *p)
{
    return p ? p->n_delegates : 0;
}

const tosa_graph *tosac_program_delegate(const tosac_program *p, int i)
{
    return p && p->delegates && i >= 0 && i < p->n_delegates ? p->delegates[i] : NULL;
}

const char *tosac_program_delegate_meta(const tosac_program *p, int i)
{
    return p && p->meta && i >= 0 && i < p->n_delegates ? p->meta[i] : NULL;
}

const ir_model *tosac_program_cpu(const tosac_program *p)
{
    return p ? p->cpu : NULL;
}

const char *tosac_program_report(const tosac_program *p)
{
    return p ? p->report : NULL;
}

/* ---------------- writing ---------------- */

typedef struct wbuf {
    unsigned char *d;
    size_t len, cap;
    bool oom;
} wbuf;

static void put(wbuf *w, const void *src, size_t n)
{
    if (w->oom || n == 0)
        return;
    if (n > SIZE_MAX / 2 - w->len) {
        w->oom = true;
        return;
    }
    if (w->len + n > w->cap) {
        size_t nc = w->cap ? w->cap : 4096;
        while (nc < w->len + n)
            nc *= 2;
        unsigned char *g = realloc(w->d, nc);
        if (!g) {
            w->oom = true;
            return;
        }
        w->d = g;
        w->cap = nc;
    }
    if (src)
        memcpy(w->d + w->len, src, n);
    else
        memset(w->d + w->len, 0, n);
    w->len += n;
}

/* Room for n more bytes at once (a known size saves the doubling copies). */
static void reserve(wbuf *w, size_t n)
{
    if (w->oom || n > SIZE_MAX / 2 - w->len || w->len + n <= w->cap)
        return;
    unsigned char *g = realloc(w->d, w->len + n);
    if (g) { /* else put reports it */
        w->d = g;
        w->cap = w->len + n;
    }
}

static void pad(wbuf *w, size_t align)
{
    static const unsigned char zeros[16];
    put(w, zeros, (align - w->len % align) % align);
}

/* Record counts of a table buffer. */
#define COUNT(w, rec) ((uint32_t)((w).len / sizeof(rec)))

typedef struct writer {
    wbuf strings, graphs, tensors, nodes, attrs, quants, opsets, ids, ints, floats;
    wbuf crecs, cdata; /* constants: records, data (offsets relative to the data start) */
    const ir_graph **order; /* graphs in DFS pre-order */
    int *parent;
    int n_graphs, cap_graphs;
    int32_t *main_quant; /* quant index of each main-graph tensor */
    bool too_big;
} writer;

static rt_str_ref str(writer *w, const char *s)
{
    if (!s || !*s)
        return 0;
    if (strlen(s) > RT_MAX_STRING || w->strings.len > UINT32_MAX - 1 - strlen(s)) {
        w->too_big = true;
        return 0;
    }
    rt_str_ref at = (rt_str_ref)w->strings.len;
    put(&w->strings, s, strlen(s) + 1);
    return at;
}

static uint32_t id(writer *w, int32_t v)
{
    uint32_t at = COUNT(w->ids, int32_t);
    put(&w->ids, &v, 4);
    return at;
}

/* Graphs in DFS pre-order (plan_graph_list's numbering, for graphs without dead nodes: the
 * planner's graph indices are the file's). */
static tosac_code add_graphs(writer *w, const ir_graph *g, int parent, int depth,
                             tosac_error *err)
{
    if (depth > 64)
        return tosac_fail(err, TOSAC_ERR_INPUT, "program: bodies nested over 64 deep");
    if (w->n_graphs == w->cap_graphs) {
        int nc = w->cap_graphs ? 2 * w->cap_graphs : 8;
        const ir_graph **o = realloc(w->order, (size_t)nc * sizeof *o);
        if (o)
            w->order = o;
        int *pa = o ? realloc(w->parent, (size_t)nc * sizeof *pa) : NULL;
        if (!o || !pa)
            return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory writing a program");
        w->parent = pa;
        w->cap_graphs = nc;
    }
    int me = w->n_graphs++;
    w->order[me] = g;
    w->parent[me] = parent;
    tosac_code rc = TOSAC_OK;
    for (int n = 0; !rc && n < g->n_nodes; n++) {
        const ir_node *nd = &g->nodes[n];
        for (int k = 0; !rc && nd->dead == false && k < nd->n_attrs; k++) {
            const ir_attr *a = &nd->attrs[k];
            if (a->kind == IR_ATTR_GRAPH)
                rc = add_graphs(w, a->g, me, depth + 1, err);
            for (int j = 0; !rc && a->kind == IR_ATTR_GRAPHS && j < a->n; j++)
                rc = add_graphs(w, a->graphs[j], me, depth + 1, err);
        }
    }
    return rc;
}

/* The index of graph g in pre-order, searched from `from` (bodies follow their owner). */
static int32_t graph_index(const writer *w, const ir_graph *g, int from)
{
    for (int i = from; i < w->n_graphs; i++)
        if (w->order[i] == g)
            return i;
    return -1;
}

static int32_t constant(writer *w, tosac_dtype dt, int rank, const int64_t *shape,
                        const void *data, size_t nbytes, tosac_error *err)
{
    rt_const_rec c;
    memset(&c, 0, sizeof c);
    int ok;
    uint64_t want = rt_shape_bytes((uint32_t)dt, rank, shape, &ok);
    if (!ok || want != nbytes || (nbytes && !data)) {
        tosac_fail(err, TOSAC_ERR_INTERNAL, "program: a constant's size does not match its "
                   "type and shape");
        return -1;
    }
    c.dtype = (uint32_t)dt;
    c.rank = rank;
    for (int d = 0; d < rank; d++)
        c.shape[d] = shape[d];
    pad(&w->cdata, RT_PROGRAM_ALIGN);
    c.offset = w->cdata.len; /* rebased when the section is laid out */
    c.nbytes = nbytes;
    put(&w->cdata, data, nbytes);
    int32_t at = (int32_t)COUNT(w->crecs, rt_const_rec);
    put(&w->crecs, &c, sizeof c);
    return at;
}

static int32_t quant(writer *w, const ir_quant *q)
{
    if (!q)
        return -1;
    rt_quant_rec r;
    memset(&r, 0, sizeof r);
    r.axis = q->axis;
    r.n = (uint32_t)q->n;
    r.zp_dtype = (uint32_t)q->zp_dtype;
    r.block_size = q->block_size;
    r.scales_at = COUNT(w->floats, float);
    r.zps_at = COUNT(w->ints, int64_t);
    put(&w->floats, q->scale, (size_t)q->n * sizeof(float));
    put(&w->ints, q->zero_point, (size_t)q->n * sizeof(int64_t));
    int32_t at = (int32_t)COUNT(w->quants, rt_quant_rec);
    put(&w->quants, &r, sizeof r);
    return at;
}

static tosac_code write_attr(writer *w, int gi, const ir_attr *a, tosac_error *err)
{
    rt_attr_rec r;
    memset(&r, 0, sizeof r);
    r.name = str(w, a->name);
    r.kind = (uint32_t)a->kind;
    int list = a->kind >= IR_ATTR_FLOATS && a->kind <= IR_ATTR_GRAPHS;
    r.n = list ? (uint32_t)a->n : 0;
    switch (a->kind) {
    case IR_ATTR_FLOAT:
        r.f = a->f;
        break;
    case IR_ATTR_INT:
        r.i = a->i;
        break;
    case IR_ATTR_STRING:
        r.at = str(w, a->s);
        break;
    case IR_ATTR_TENSOR: {
        int32_t c = constant(w, a->t.dtype, a->t.rank, a->t.shape, a->t.data, a->t.nbytes, err);
        if (c < 0)
            return TOSAC_ERR_INTERNAL;
        r.at = (uint32_t)c;
        break;
    }
    case IR_ATTR_GRAPH:
        r.at = (uint32_t)graph_index(w, a->g, gi + 1);
        break;
    case IR_ATTR_FLOATS:
        r.at = COUNT(w->floats, float);
        put(&w->floats, a->floats, (size_t)a->n * sizeof(float));
        break;
    case IR_ATTR_INTS:
        r.at = COUNT(w->ints, int64_t);
        put(&w->ints, a->ints, (size_t)a->n * sizeof(int64_t));
        break;
    case IR_ATTR_STRINGS:
    case IR_ATTR_TENSORS:
    case IR_ATTR_GRAPHS: {
        int32_t *v = calloc((size_t)a->n + 1, sizeof *v);
        if (!v)
            return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory writing a program");
        for (int j = 0; j < a->n; j++) {
            if (a->kind == IR_ATTR_STRINGS)
                v[j] = (int32_t)str(w, a->strings[j]);
            else if (a->kind == IR_ATTR_GRAPHS)
                v[j] = graph_index(w, a->graphs[j], gi + 1);
            else if ((v[j] = constant(w, a->tensors[j].dtype, a->tensors[j].rank,
                                      a->tensors[j].shape, a->tensors[j].data,
                                      a->tensors[j].nbytes, err)) < 0) {
                free(v);
                return TOSAC_ERR_INTERNAL;
            }
        }
        r.at = COUNT(w->ids, int32_t);
        put(&w->ids, v, (size_t)a->n * sizeof *v);
        free(v);
        break;
    }
    default:
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "program: attribute '%s' has kind %d",
                          a->name, (int)a->kind);
    }
    put(&w->attrs, &r, sizeof r);
    return TOSAC_OK;
}

static tosac_code write_graph(writer *w, int gi, tosac_error *err)
{
    const ir_graph *g = w->order[gi];
    rt_graph_rec gr;
    memset(&gr, 0, sizeof gr);
    gr.name = str(w, g->name);
    gr.parent = w->parent[gi];
    gr.first_tensor = COUNT(w->tensors, rt_tensor_rec);
    gr.n_tensors = (uint32_t)g->n_tensors;
    tosac_code rc = TOSAC_OK;
    for (int t = 0; !rc && t < g->n_tensors; t++) {
        const ir_tensor *it = &g->tensors[t];
        rt_tensor_rec r;
        memset(&r, 0, sizeof r);
        r.name = str(w, it->name);
        r.dtype = (uint32_t)it->dtype;
        r.rank = it->rank;
        for (int d = 0; d < it->rank; d++)
            r.shape[d] = it->shape[d];
        r.const_ref = -1;
        r.outer_id = it->outer_id;
        if (it->outer_id >= 0)
            r.flags |= RT_TENSOR_CAPTURE;
        if (it->data) {
            r.flags |= RT_TENSOR_CONST;
            r.const_ref = constant(w, it->dtype, it->rank, it->shape, it->data, it->nbytes, err);
            if (r.const_ref < 0)
                rc = TOSAC_ERR_INTERNAL;
        }
        r.quant = quant(w, it->quant);
        if (gi == 0)
            w->main_quant[t] = r.quant;
        r.dim_params = -1;
        for (int d = 0; d < it->rank; d++)
            if (it->dim_param[d]) {
                r.dim_params = (int32_t)COUNT(w->ids, int32_t);
                for (int e = 0; e < it->rank; e++)
                    id(w, (int32_t)str(w, it->dim_param[e]));
                break;
            }
        put(&w->tensors, &r, sizeof r);
    }
    gr.first_node = COUNT(w->nodes, rt_node_rec);
    for (int n = 0; !rc && n < g->n_nodes; n++) {
        const ir_node *nd = &g->nodes[n];
        if (nd->dead)
            continue;
        rt_node_rec r;
        memset(&r, 0, sizeof r);
        r.name = str(w, nd->name);
        r.op_type = str(w, nd->op_type);
        r.domain = str(w, nd->domain);
        r.n_inputs = (uint32_t)nd->n_inputs;
        r.inputs_at = COUNT(w->ids, int32_t);
        put(&w->ids, nd->inputs, (size_t)nd->n_inputs * sizeof(int32_t));
        r.n_outputs = (uint32_t)nd->n_outputs;
        r.outputs_at = COUNT(w->ids, int32_t);
        put(&w->ids, nd->outputs, (size_t)nd->n_outputs * sizeof(int32_t));
        r.n_attrs = (uint32_t)nd->n_attrs;
        r.attrs_at = COUNT(w->attrs, rt_attr_rec);
        for (int k = 0; !rc && k < nd->n_attrs; k++)
            rc = write_attr(w, gi, &nd->attrs[k], err);
        put(&w->nodes, &r, sizeof r);
        gr.n_nodes++;
    }
    gr.n_inputs = (uint32_t)g->n_inputs;
    gr.inputs_at = COUNT(w->ids, int32_t);
    put(&w->ids, g->inputs, (size_t)g->n_inputs * sizeof(int32_t));
    gr.n_outputs = (uint32_t)g->n_outputs;
    gr.outputs_at = COUNT(w->ids, int32_t);
    put(&w->ids, g->outputs, (size_t)g->n_outputs * sizeof(int32_t));
    put(&w->graphs, &gr, sizeof gr);
    return rc;
}

/* Appends a table to the CPU section body and fills its descriptor. */
static void table(wbuf *sec, rt_table_rec *t, const wbuf *src, size_t rsize)
{
    pad(sec, 8);
    t->offset = (uint32_t)sec->len;
    t->count = (uint32_t)(src->len / rsize);
    put(sec, src->d, src->len);
}

static void free_writer(writer *w)
{
    wbuf *all[] = {&w->strings, &w->graphs, &w->tensors, &w->nodes, &w->attrs, &w->quants,
                   &w->opsets, &w->ids, &w->ints, &w->floats, &w->crecs, &w->cdata};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        free(all[i]->d);
    free(w->order);
    free(w->parent);
    free(w->main_quant);
}

/* Graph and node index of the TosaDelegate node with attribute index d, or -1. */
static void find_delegate(const writer *w, int d, int32_t *graph, int32_t *node)
{
    *graph = *node = -1;
    for (int gi = 0; gi < w->n_graphs; gi++) {
        const ir_graph *g = w->order[gi];
        int live = 0;
        for (int n = 0; n < g->n_nodes; n++) {
            const ir_node *nd = &g->nodes[n];
            if (nd->dead)
                continue;
            if (strcmp(nd->op_type, TOSAC_DELEGATE_OP) == 0 &&
                strcmp(nd->domain, IR_DOMAIN_TOSAC) == 0 &&
                ir_node_attr_int(nd, "index", -1) == d) {
                *graph = gi;
                *node = live;
                return;
            }
            live++;
        }
    }
}

typedef struct section {
    uint32_t kind;
    wbuf body;
    const tosa_graph *tosa; /* a delegate's graph: its .tosa file follows body, written in
                               place (tosa_graph_write_append), its size patched into body */
} section;

static tosac_code build_sections(const tosac_program *p, writer *w, section *secs, int *n_secs,
                                 tosac_error *err)
{
    tosac_code rc = add_graphs(w, p->cpu->graph, -1, 0, err);
    if (!rc && !(w->main_quant = calloc((size_t)p->cpu->graph->n_tensors + 1, sizeof(int32_t))))
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory writing a program");
    put(&w->strings, "", 1);
    for (int gi = 0; !rc && gi < w->n_graphs; gi++)
        rc = write_graph(w, gi, err);
    for (int i = 0; !rc && i < p->cpu->n_opsets; i++) {
        rt_opset_rec o;
        memset(&o, 0, sizeof o);
        o.domain = str(w, p->cpu->opsets[i].domain);
        o.version = p->cpu->opsets[i].version;
        put(&w->opsets, &o, sizeof o);
    }
    if (rc)
        return rc;
    int ns = 0;
    /* CPU */
    rt_cpu_header_rec ch;
    memset(&ch, 0, sizeof ch);
    ch.ir_version = p->cpu->ir_version;
    ch.producer_name = str(w, p->cpu->producer_name);
    ch.producer_version = str(w, p->cpu->producer_version);
    wbuf cpu = {0};
    put(&cpu, &ch, sizeof ch);
    table(&cpu, &ch.graphs, &w->graphs, sizeof(rt_graph_rec));
    table(&cpu, &ch.tensors, &w->tensors, sizeof(rt_tensor_rec));
    table(&cpu, &ch.nodes, &w->nodes, sizeof(rt_node_rec));
    table(&cpu, &ch.attrs, &w->attrs, sizeof(rt_attr_rec));
    table(&cpu, &ch.quants, &w->quants, sizeof(rt_quant_rec));
    table(&cpu, &ch.opsets, &w->opsets, sizeof(rt_opset_rec));
    table(&cpu, &ch.ids, &w->ids, 4);
    table(&cpu, &ch.ints, &w->ints, 8);
    table(&cpu, &ch.floats, &w->floats, 4);
    if (!cpu.oom)
        memcpy(cpu.d, &ch, sizeof ch);
    /* SIGNATURE */
    const ir_graph *m = p->cpu->graph;
    wbuf sig = {0};
    uint32_t sh[4] = {(uint32_t)m->n_inputs, (uint32_t)m->n_outputs, 0, 0};
    put(&sig, sh, sizeof sh);
    for (int i = 0; i < m->n_inputs + m->n_outputs; i++) {
        int t = i < m->n_inputs ? m->inputs[i] : m->outputs[i - m->n_inputs];
        const ir_tensor *it = &m->tensors[t];
        rt_sig_rec r;
        memset(&r, 0, sizeof r);
        r.name = str(w, it->name);
        r.dtype = (uint32_t)it->dtype;
        r.rank = it->rank;
        for (int d = 0; d < it->rank; d++)
            r.shape[d] = it->shape[d];
        r.cpu_tensor = t;
        r.quant = w->main_quant[t];
        put(&sig, &r, sizeof r);
    }
    /* CONSTANTS: header, records, data (16-aligned after the records) */
    wbuf cst = {0};
    uint32_t n_const = COUNT(w->crecs, rt_const_rec);
    uint32_t chdr[4] = {n_const, 0, 0, 0};
    put(&cst, chdr, sizeof chdr);
    size_t data_at = 16 + (size_t)n_const * sizeof(rt_const_rec); /* 16-aligned: 96 * n */
    for (uint32_t i = 0; i < n_const && !w->crecs.oom; i++) {
        rt_const_rec c;
        memcpy(&c, w->crecs.d + (size_t)i * sizeof c, sizeof c);
        c.offset += data_at;
        put(&cst, &c, sizeof c);
    }
    put(&cst, w->cdata.d, w->cdata.len);
    /* STRINGS last of the CPU-derived parts: every string is in by now */
    secs[ns].kind = RT_SEC_STRINGS;
    secs[ns++].body = w->strings;
    w->strings = (wbuf){0};
    secs[ns].kind = RT_SEC_SIGNATURE;
    secs[ns++].body = sig;
    secs[ns].kind = RT_SEC_CPU;
    secs[ns++].body = cpu;
    secs[ns].kind = RT_SEC_CONSTANTS;
    secs[ns++].body = cst;
    /* DELEGATE per delegate */
    for (int d = 0; !rc && d < p->n_delegates; d++) {
        rt_delegate_rec r;
        memset(&r, 0, sizeof r);
        r.index = (uint32_t)d;
        /* a delegate no node names is written as such (graph -1): the loader refuses it,
         * so compile's read-back check reports the broken program */
        find_delegate(w, d, &r.graph, &r.node);
        const ir_node *nd = NULL;
        const ir_graph *g = r.graph >= 0 ? w->order[r.graph] : NULL;
        for (int n = 0, live = 0; g && n < g->n_nodes; n++)
            if (!g->nodes[n].dead && live++ == r.node)
                nd = &g->nodes[n];
        r.n_inputs = nd ? (uint32_t)nd->n_inputs : 0;
        r.n_outputs = nd ? (uint32_t)nd->n_outputs : 0;
        wbuf b = {0};
        put(&b, &r, sizeof r);
        if (nd) {
            put(&b, nd->inputs, (size_t)nd->n_inputs * 4);
            put(&b, nd->outputs, (size_t)nd->n_outputs * 4);
        }
        pad(&b, RT_PROGRAM_ALIGN);
        r.tosa_offset = b.len; /* r.tosa_size once written */
        if (!b.oom)
            memcpy(b.d, &r, sizeof r);
        secs[ns].kind = RT_SEC_DELEGATE;
        secs[ns].tosa = p->delegates[d];
        secs[ns++].body = b;
    }
    /* PLAN: empty here; tosac_program_build (compile_runtime.c) plans the written program
     * (tosac_plan_program with measured scratch) and replaces this section. */
    rt_plan_header_rec ph;
    memset(&ph, 0, sizeof ph);
    ph.graphs.offset = ph.delegates.offset = ph.pool.offset = (uint32_t)sizeof ph;
    wbuf plan = {0};
    put(&plan, &ph, sizeof ph);
    secs[ns].kind = RT_SEC_PLAN;
    secs[ns++].body = plan;
    if (p->report) {
        wbuf rep = {0};
        put(&rep, p->report, strlen(p->report) + 1);
        secs[ns].kind = RT_SEC_REPORT;
        secs[ns++].body = rep;
    }
    *n_secs = ns;
    return rc;
}

tosac_code tosac_program_to_bytes(const tosac_program *p, void **buf, size_t *len,
                                  tosac_error *err)
{
    size_t cap;
    return program_to_bytes_with(p, 0, 0, NULL, 0, 0, buf, len, &cap, err);
}

tosac_code program_to_bytes_with(const tosac_program *p, uint32_t kind, uint32_t flags,
                                 const void *body, size_t body_len, size_t spare, void **buf,
                                 size_t *len, size_t *cap, tosac_error *err)
{
    writer w;
    memset(&w, 0, sizeof w);
    int max_secs = p->n_delegates + 8, ns = 0;
    section *secs = calloc((size_t)max_secs, sizeof *secs);
    if (!secs)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory writing a program");
    tosac_code rc = build_sections(p, &w, secs, &ns, err);
    bool oom = false, big = w.too_big;
    int n_all = ns + (kind ? 1 : 0);
    size_t total = sizeof(rt_header_rec) + (size_t)n_all * sizeof(rt_section_rec) +
                   RT_PROGRAM_ALIGN + body_len;
    for (int i = 0; i < ns; i++) {
        oom |= secs[i].body.oom;
        big |= secs[i].body.len > UINT32_MAX;
        total += RT_PROGRAM_ALIGN + secs[i].body.len +
                 (secs[i].tosa ? tosa_graph_write_estimate(secs[i].tosa) : 0);
    }
    wbuf *all[] = {&w.graphs, &w.tensors, &w.nodes, &w.attrs, &w.quants, &w.opsets,
                   &w.ids, &w.ints, &w.floats, &w.crecs, &w.cdata};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        oom |= all[i]->oom;
    if (!rc && oom)
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory writing a program");
    if (!rc && big)
        rc = tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "program: the CPU part is larger than the "
                        "format's 4 GiB tables");
    wbuf out = {0};
    if (!rc) {
        rt_header_rec h;
        memset(&h, 0, sizeof h);
        memcpy(h.magic, RT_PROGRAM_MAGIC, 8);
        h.version = RT_PROGRAM_VERSION;
        h.n_sections = (uint32_t)n_all;
        reserve(&out, total + RT_PROGRAM_ALIGN + spare);
        put(&out, &h, sizeof h);
        put(&out, NULL, (size_t)n_all * sizeof(rt_section_rec));
        for (int i = 0; i < n_all; i++) {
            pad(&out, RT_PROGRAM_ALIGN);
            rt_section_rec s;
            memset(&s, 0, sizeof s);
            s.offset = out.len;
            if (i < ns) {
                s.kind = secs[i].kind;
                put(&out, secs[i].body.d, secs[i].body.len);
                if (secs[i].tosa && !out.oom && !rc) {
                    size_t at = out.len;
                    void *d = out.d;
                    rc = tosa_graph_write_append(secs[i].tosa, &d, &out.len, &out.cap, err);
                    out.d = d;
                    uint64_t tl = out.len - at;
                    if (!rc)
                        memcpy(out.d + s.offset + offsetof(rt_delegate_rec, tosa_size), &tl,
                               sizeof tl);
                }
                s.size = out.len - s.offset;
                big |= s.size > UINT32_MAX;
            } else { /* the caller's last section */
                s.kind = kind;
                s.flags = flags;
                s.size = body_len;
                put(&out, body, body_len);
            }
            if (!out.oom)
                memcpy(out.d + sizeof h + (size_t)i * sizeof s, &s, sizeof s);
        }
        pad(&out, RT_PROGRAM_ALIGN);
        h.file_bytes = out.len;
        if (!rc && big) /* a delegate's file over the 4 GiB fields */
            rc = tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "program: the CPU part is larger than "
                            "the format's 4 GiB tables");
        if (!out.oom)
            memcpy(out.d, &h, sizeof h);
        if (!rc && out.oom)
            rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory writing a program");
    }
    for (int i = 0; i < ns; i++)
        free(secs[i].body.d);
    free(secs);
    free_writer(&w);
    if (rc) {
        free(out.d);
        return rc;
    }
    *buf = out.d;
    *len = out.len;
    *cap = out.cap;
    return TOSAC_OK;
}

tosac_code tosac_program_write_file(const tosac_program *p, const char *path, tosac_error *err)
{
    void *buf;
    size_t len;
    /* the file `tosac run` takes: planned and measured (node order normalised, which is not a
     * change of meaning, hence the cast) */
    tosac_code rc = tosac_program_build((tosac_program *)p, &buf, &len, err);
    if (rc)
        return rc;
    rc = tosac_write_file(path, buf, len, err);
    free(buf);
    return rc;
}

/* ---------------- reading ---------------- */

static tosac_code oom(tosac_error *err)
{
    return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory reading a program");
}

static tosac_code rebuild_quant(const rt_program *v, ir_graph *g, int t, int32_t qi,
                                tosac_error *err)
{
    if (qi < 0)
        return TOSAC_OK;
    const rt_quant_rec *q = &v->quants[qi];
    tosac_code rc = ir_tensor_set_quant(g, t, rt_quant_scales(v, q), rt_quant_zps(v, q),
                                        (int)q->n, q->axis, (tosac_dtype)q->zp_dtype, err);
    if (!rc)
        g->tensors[t].quant->block_size = q->block_size;
    return rc;
}

static tosac_code rebuild_tensor(const rt_program *v, uint32_t gi, ir_graph *g, uint32_t t,
                                 tosac_error *err)
{
    const rt_tensor_rec *r = rt_graph_tensor(v, gi, t);
    const char *name = rt_str(v, r->name);
    int id;
    if (r->flags & RT_TENSOR_CONST) {
        const rt_const_rec *c = rt_constant(v, (uint32_t)r->const_ref);
        id = ir_graph_add_const(g, name, (tosac_dtype)r->dtype, r->rank, r->shape,
                                rt_constant_data(v, (uint32_t)r->const_ref), (size_t)c->nbytes,
                                err);
    } else {
        id = ir_graph_add_tensor(g, name, (tosac_dtype)r->dtype, r->rank,
                                 r->rank >= 0 ? r->shape : NULL, err);
    }
    if (id != (int)t)
        return tosac_fail(err, TOSAC_ERR_INPUT, "program: CPU graph %u tensor %u ('%s') cannot "
                          "be added", gi, t, name);
    g->tensors[t].outer_id = r->outer_id;
    tosac_code rc = rebuild_quant(v, g, (int)t, r->quant, err);
    for (int d = 0; !rc && r->dim_params >= 0 && d < r->rank; d++) {
        const char *s = rt_str(v, (rt_str_ref)v->ids[r->dim_params + d]);
        if (*s)
            rc = ir_tensor_set_dim_param(g, (int)t, d, s, err);
    }
    return rc;
}

static tosac_tensor const_view(const rt_program *v, uint32_t c)
{
    const rt_const_rec *r = rt_constant(v, c);
    tosac_tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = (tosac_dtype)r->dtype;
    t.rank = r->rank;
    memcpy(t.shape, r->shape, sizeof t.shape);
    t.data = (void *)rt_constant_data(v, c);
    t.nbytes = (size_t)r->nbytes;
    return t;
}

/* Attribute k of node n; bodies[] are the finished body graphs (taken when attached). */
static tosac_code rebuild_attr(const rt_program *v, ir_graph *g, int node,
                               const rt_attr_rec *a, ir_graph **bodies, tosac_error *err)
{
    const char *name = rt_str(v, a->name);
    switch (a->kind) {
    case RT_ATTR_FLOAT:
        return ir_node_set_float(g, node, name, a->f, err);
    case RT_ATTR_INT:
        return ir_node_set_int(g, node, name, a->i, err);
    case RT_ATTR_STRING:
        return ir_node_set_string(g, node, name, rt_str(v, a->at), err);
    case RT_ATTR_TENSOR: {
        tosac_tensor t = const_view(v, a->at);
        return ir_node_set_tensor(g, node, name, &t, err);
    }
    case RT_ATTR_GRAPH: {
        ir_graph *b = bodies[a->at];
        bodies[a->at] = NULL;
        return ir_node_set_graph(g, node, name, b, err);
    }
    case RT_ATTR_FLOATS:
        return ir_node_set_floats(g, node, name, rt_attr_floats(v, a), (int)a->n, err);
    case RT_ATTR_INTS:
        return ir_node_set_ints(g, node, name, rt_attr_ints(v, a), (int)a->n, err);
    default:
        break;
    }
    const int32_t *ids = rt_attr_ids(v, a);
    size_t n = a->n ? a->n : 1;
    tosac_code rc = TOSAC_OK;
    if (a->kind == RT_ATTR_STRINGS) {
        const char **s = malloc(n * sizeof *s);
        if (!s)
            return oom(err);
        for (uint32_t j = 0; j < a->n; j++)
            s[j] = rt_str(v, (rt_str_ref)ids[j]);
        rc = ir_node_set_strings(g, node, name, s, (int)a->n, err);
        free(s);
    } else if (a->kind == RT_ATTR_GRAPHS) {
        ir_graph **gs = malloc(n * sizeof *gs);
        if (!gs)
            return oom(err);
        for (uint32_t j = 0; j < a->n; j++) {
            gs[j] = bodies[ids[j]];
            bodies[ids[j]] = NULL;
        }
        rc = ir_node_set_graphs(g, node, name, gs, (int)a->n, err);
        free(gs);
    } else { /* TENSORS: the setter takes ownership of copies */
        tosac_tensor *ts = calloc(n, sizeof *ts);
        if (!ts)
            return oom(err);
        for (uint32_t j = 0; !rc && j < a->n; j++) {
            tosac_tensor t = const_view(v, (uint32_t)ids[j]);
            ts[j] = t;
            ts[j].data = malloc(t.nbytes ? t.nbytes : 1);
            if (!ts[j].data)
                rc = oom(err);
            else
                memcpy(ts[j].data, t.data, t.nbytes);
            ts[j].owns_data = 1;
        }
        if (!rc)
            rc = ir_node_set_tensors(g, node, name, ts, (int)a->n, err);
        else
            for (uint32_t j = 0; j < a->n; j++)
                free(ts[j].data);
        free(ts);
    }
    return rc;
}

static tosac_code rebuild_graph(const rt_program *v, uint32_t gi, ir_graph **graphs,
                                tosac_error *err)
{
    const rt_graph_rec *gr = rt_graph(v, gi);
    ir_graph *g = graphs[gi];
    tosac_code rc = TOSAC_OK;
    for (uint32_t t = 0; !rc && t < gr->n_tensors; t++)
        rc = rebuild_tensor(v, gi, g, t, err);
    for (uint32_t n = 0; !rc && n < gr->n_nodes; n++) {
        const rt_node_rec *r = rt_graph_node(v, gi, n);
        int node = ir_graph_add_node(g, rt_str(v, r->op_type), rt_str(v, r->domain),
                                     rt_str(v, r->name), v->ids + r->inputs_at,
                                     (int)r->n_inputs, v->ids + r->outputs_at,
                                     (int)r->n_outputs, err);
        if (node < 0)
            rc = tosac_fail(err, TOSAC_ERR_INPUT, "program: CPU graph %u node %u cannot be "
                            "added", gi, n);
        for (uint32_t k = 0; !rc && k < r->n_attrs; k++)
            rc = rebuild_attr(v, g, node, rt_node_attr(v, r, k), graphs, err);
    }
    for (uint32_t i = 0; !rc && i < gr->n_inputs; i++)
        rc = ir_graph_mark_input(g, rt_graph_input(v, gi, i), err);
    for (uint32_t i = 0; !rc && i < gr->n_outputs; i++)
        rc = ir_graph_mark_output(g, rt_graph_output(v, gi, i), err);
    return rc;
}

/* The CPU records as an ir_model: graphs built last to first, so every body is finished
 * when the node holding it is built (bodies follow their owner in pre-order). */
static tosac_code rebuild_model(const rt_program *v, ir_model **out, ir_graph **all,
                                tosac_error *err)
{
    ir_model *m = ir_model_new();
    ir_graph **graphs = m ? calloc(v->n_graphs, sizeof *graphs) : NULL;
    if (!graphs) {
        ir_model_free(m);
        return oom(err);
    }
    tosac_code rc = TOSAC_OK;
    for (uint32_t gi = 0; !rc && gi < v->n_graphs; gi++)
        if (!(all[gi] = graphs[gi] = ir_graph_new(rt_str(v, rt_graph(v, gi)->name), NULL)))
            rc = oom(err);
    for (uint32_t gi = v->n_graphs; !rc && gi-- > 0;)
        rc = rebuild_graph(v, gi, graphs, err);
    if (!rc) {
        ir_graph_free(m->graph);
        m->graph = graphs[0];
        graphs[0] = NULL;
        m->ir_version = v->cpu->ir_version;
        for (int i = 0; i < m->n_opsets; i++)
            free(m->opsets[i].domain);
        m->n_opsets = 0;
        for (uint32_t i = 0; !rc && i < v->n_opsets; i++)
            rc = ir_model_set_opset(m, rt_str(v, v->opsets[i].domain), v->opsets[i].version,
                                    err);
        const char *pn = rt_str(v, v->cpu->producer_name);
        const char *pv = rt_str(v, v->cpu->producer_version);
        if (!rc && ((*pn && !(m->producer_name = strdup(pn))) ||
                    (*pv && !(m->producer_version = strdup(pv)))))
            rc = oom(err);
    }
    for (uint32_t gi = 0; gi < v->n_graphs; gi++)
        ir_graph_free(graphs[gi]);
    free(graphs);
    if (!rc)
        rc = ir_model_verify(m, err);
    if (rc) {
        ir_model_free(m);
        return rc;
    }
    *out = m;
    return TOSAC_OK;
}

static tosac_code read_delegates(const rt_program *v, tosac_program *p, ir_graph **graphs,
                                 unsigned flags, tosac_error *err)
{
    tosac_code rc = TOSAC_OK;
    for (uint32_t d = 0; !rc && d < v->n_delegates; d++) {
        rt_delegate_view dv = rt_program_delegate(v, d);
        rc = tosa_graph_read_indexed(dv.tosa, dv.tosa_size, tosac_libc_allocator(),
                                     tosac_libc_allocator(), flags, &p->delegates[d], err);
        if (rc)
            return tosac_fail(err, rc, "program: delegate %u: flatbuffer refused", d);
        /* the same metadata compile writes, from the delegate node's graph */
        p->meta[d] = compile_delegate_meta(graphs[dv.rec->graph], dv.inputs,
                                           (int)dv.rec->n_inputs, dv.outputs,
                                           (int)dv.rec->n_outputs);
        if (!p->meta[d])
            rc = oom(err);
    }
    return rc;
}

/* flags: TOSA_READ_BORROW for the delegates (only when buf itself is 16-aligned). */
static tosac_code from_bytes(const void *buf, size_t len, unsigned flags, tosac_program **out,
                             tosac_error *err)
{
    *out = NULL;
    /* the loader needs a 16-aligned buffer: copy one that is not */
    void *copy = NULL;
    if ((uintptr_t)buf % RT_PROGRAM_ALIGN) {
        flags = 0; /* nothing may point into the copy */
        if (!(copy = aligned_alloc(RT_PROGRAM_ALIGN, (len + 15) / 16 * 16 + 16)))
            return oom(err);
        memcpy(copy, buf, len);
        buf = copy;
    }
    rt_program v;
    tosac_code rc = rt_program_load(buf, len, &v, err);
    tosac_program *p = NULL;
    ir_graph **graphs = NULL;
    if (!rc) {
        p = calloc(1, sizeof *p);
        graphs = calloc(v.n_graphs, sizeof *graphs);
        if (p) {
            p->delegates = calloc((size_t)v.n_delegates + 1, sizeof *p->delegates);
            p->meta = calloc((size_t)v.n_delegates + 1, sizeof *p->meta);
        }
        if (!p || !graphs || !p->delegates || !p->meta)
            rc = oom(err);
        else
            p->n_delegates = (int)v.n_delegates;
    }
    if (!rc)
        rc = rebuild_model(&v, &p->cpu, graphs, err);
    if (!rc)
        rc = read_delegates(&v, p, graphs, flags, err);
    if (!rc && v.report && !(p->report = strdup(v.report)))
        rc = oom(err);
    free(graphs);
    free(copy);
    if (rc) {
        tosac_program_free(p);
        return rc;
    }
    *out = p;
    return TOSAC_OK;
}

tosac_code tosac_program_from_bytes(const void *buf, size_t len, tosac_program **out,
                                    tosac_error *err)
{
    return from_bytes(buf, len, 0, out, err);
}

tosac_code tosac_program_from_bytes_borrowed(const void *buf, size_t len, tosac_program **out,
                                             tosac_error *err)
{
    return from_bytes(buf, len, TOSA_READ_BORROW, out, err);
}

tosac_code tosac_program_read_file(const char *path, tosac_program **out, tosac_error *err)
{
    void *buf;
    size_t len;
    tosac_code rc = tosac_read_file(path, &buf, &len, err);
    if (rc)
        return rc;
    rc = tosac_program_from_bytes(buf, len, out, err);
    free(buf);
    return rc;
}
