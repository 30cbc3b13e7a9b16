/* A program ready for the runtime (tosac_program_build): its CPU graphs put in execution order
 * (the runtime runs nodes in file order), written (tosac_program_to_bytes), planned
 * (tosac_plan_program), measured on the runtime itself (rt_measure: each CPU node's
 * temporaries and kernel scratch, the runtime's state, the values of dynamic shape), planned
 * again with those scratch sizes, and the PLAN and RUNTIME sections put in the file. */
#include <stdlib.h>
#include <string.h>

#include "compile/compile_plan.h"
#include "compile/program_internal.h"
#include "compile/program_bytes.h"
#include "runtime/rt_internal.h"
#include "util/alloc.h"
#include "util/pages.h"
#include "tosac/compile.h"

/* the runtime refuses a planned offset that is not a multiple of RT_PROGRAM_ALIGN */
_Static_assert(TOSAC_PLAN_ALIGN % RT_PROGRAM_ALIGN == 0, "plan alignment below the loader's");

/* The measuring run's arena: generous virtual memory (pages are touched only where used). */
#define MEASURE_STATE_BYTES ((size_t)64 << 20)
#define MEASURE_WORK_BYTES ((size_t)512 << 20)
/* The state's allocations may align above 16: their padding can differ by arena address. */
#define STATE_SLACK 256

typedef struct buf {
    unsigned char *d;
    size_t len, cap;
    bool oom;
} buf;

static void put(buf *b, const void *src, size_t n)
{
    if (b->oom || n == 0)
        return;
    if (b->len + n > b->cap) {
        size_t nc = b->cap ? b->cap : 1024;
        while (nc < b->len + n)
            nc *= 2;
        unsigned char *g = realloc(b->d, nc);
        if (!g) {
            b->oom = true;
            return;
        }
        b->d = g;
        b->cap = nc;
    }
    if (src)
        memcpy(b->d + b->len, src, n);
    else
        memset(b->d + b->len, 0, n);
    b->len += n;
}

static void pad16(buf *b)
{
    static const unsigned char z[16];
    put(b, z, (16 - b->len % 16) % 16);
}

static tosac_code sort_graphs(ir_graph *g, int depth, tosac_error *err)
{
    if (depth > 64)
        return tosac_fail(err, TOSAC_ERR_INPUT, "program: bodies nested over 64 deep");
    tosac_code rc = ir_graph_toposort(g, err);
    for (int i = 0; !rc && i < g->n_nodes; i++) {
        ir_graph *sub;
        for (int k = 0; !rc && (sub = ir_node_subgraph(&g->nodes[i], k)); k++)
            rc = sort_graphs(sub, depth + 1, err);
    }
    return rc;
}

/* The PLAN section body (layout in rt_program.h). */
static void plan_section(const tosac_program_plan *pl, buf *b)
{
    rt_plan_header_rec h;
    memset(&h, 0, sizeof h);
    h.arena_bytes = pl->arena_bytes;
    h.lower_bound_bytes = pl->lower_bound_bytes;
    h.n_graphs = (uint32_t)pl->n_graphs;
    h.n_delegates = (uint32_t)pl->n_delegates;
    h.graphs.offset = sizeof h;
    h.graphs.count = h.n_graphs;
    h.delegates.offset = (uint32_t)(sizeof h + h.n_graphs * sizeof(rt_plan_graph_rec));
    h.delegates.count = h.n_delegates;
    h.pool.offset = (uint32_t)((h.delegates.offset + h.n_delegates * sizeof(rt_plan_delegate_rec) + 7) / 8 * 8);
    uint32_t at = 0;
    buf recs = {0}, pool = {0};
    for (int g = 0; g < pl->n_graphs; g++) {
        rt_plan_graph_rec r = {(uint32_t)pl->n_cpu[g], (uint32_t)pl->n_steps[g], 0, 0};
        r.offsets_at = at;
        put(&pool, pl->cpu_offset[g], (size_t)pl->n_cpu[g] * 8);
        at += (uint32_t)pl->n_cpu[g];
        r.scratch_at = at;
        put(&pool, pl->scratch_offset[g], (size_t)pl->n_steps[g] * 8);
        put(&pool, pl->scratch_bytes[g], (size_t)pl->n_steps[g] * 8);
        at += 2 * (uint32_t)pl->n_steps[g];
        put(&recs, &r, sizeof r);
    }
    for (int d = 0; d < pl->n_delegates; d++) {
        rt_plan_delegate_rec r = {(uint32_t)pl->n_tosa[d], at};
        put(&pool, pl->tosa_offset[d], (size_t)pl->n_tosa[d] * 8);
        at += (uint32_t)pl->n_tosa[d];
        put(&recs, &r, sizeof r);
    }
    h.pool.count = at;
    put(b, &h, sizeof h);
    put(b, recs.d, recs.len);
    put(b, NULL, h.pool.offset - b->len);
    put(b, pool.d, pool.len);
    b->oom |= recs.oom || pool.oom;
    free(recs.d);
    free(pool.d);
}

/* *io (a program whose last section is its RUNTIME record) with its PLAN section's body
 * replaced by plan and the RUNTIME record by rr, in the same buffer: the bytes before the
 * PLAN (header, table, the delegates) stay, the PLAN and the sections after it (REPORT, the
 * RUNTIME record) are written again, each 16-aligned (section bodies are position-independent:
 * everything inside is relative to the section's start). */
static tosac_code rewrite_tail(const buf *plan, const rt_runtime_rec *rr, void **io,
                               size_t *io_len, size_t *io_cap, tosac_error *err)
{
    rt_program v;
    tosac_code rc = rt_program_load(*io, *io_len, &v, err);
    if (rc)
        return rc;
    uint32_t ns = v.n_sections, sp = 0;
    while (sp < ns && v.sections[sp].kind != RT_SEC_PLAN)
        sp++;
    if (sp + 1 >= ns || v.sections[ns - 1].kind != RT_SEC_RUNTIME)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "program: no PLAN and RUNTIME to replace");
    /* the records and bodies between the PLAN and the RUNTIME record, saved: the new PLAN
     * may be longer than the old one */
    buf saved = {0};
    put(&saved, v.sections + sp, (size_t)(ns - sp) * sizeof(rt_section_rec));
    for (uint32_t s = sp + 1; s + 1 < ns; s++)
        put(&saved, (const unsigned char *)*io + v.sections[s].offset, (size_t)v.sections[s].size);
    size_t at = (size_t)(ns - sp) * sizeof(rt_section_rec); /* the first saved body */
    size_t keep = (size_t)v.sections[sp].offset, total = keep + (saved.len - at) + plan->len +
                  sizeof *rr + 16 * ((size_t)(ns - sp) + 1);
    buf b = {*io, keep, *io_cap, saved.oom};
    if (!b.oom && total > b.cap) {
        unsigned char *g = realloc(b.d, total);
        if (g) {
            b.d = g;
            b.cap = total;
            *io = g;
            *io_cap = total;
        }
        b.oom = !g;
    }
    for (uint32_t s = sp; !b.oom && s < ns; s++) {
        pad16(&b);
        rt_section_rec rec;
        memcpy(&rec, saved.d + (size_t)(s - sp) * sizeof rec, sizeof rec);
        const void *body;
        if (s == sp) {
            body = plan->d;
            rec.size = plan->len;
        } else if (s + 1 == ns) {
            body = rr;
            rec.size = sizeof *rr;
        } else {
            body = saved.d + at;
            at += (size_t)rec.size;
        }
        rec.offset = b.len;
        put(&b, body, (size_t)rec.size);
        memcpy(b.d + sizeof(rt_header_rec) + s * sizeof rec, &rec, sizeof rec);
    }
    pad16(&b);
    free(saved.d);
    if (b.oom)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory writing a program");
    rt_header_rec h;
    memcpy(&h, b.d, sizeof h);
    h.file_bytes = b.len;
    memcpy(b.d, &h, sizeof h);
    *io_len = b.len;
    return TOSAC_OK;
}

/* Plans p into the PLAN section body *plan. */
static tosac_code make_plan(const tosac_program *p, const tosac_plan_sizes *extra, buf *plan,
                            tosac_error *err)
{
    tosac_program_plan pl;
    memset(&pl, 0, sizeof pl);
    tosac_error e;
    tosac_error_clear(&e);
    tosac_code rc = tosac_plan_program(p, extra, &pl, &e);
    if (rc) /* the compiler made p: a program it cannot plan is its bug, unless unsupported */
        rc = rc == TOSAC_ERR_UNSUPPORTED
                 ? tosac_fail(err, rc, "%s", e.msg)
                 : tosac_fail(err, TOSAC_ERR_INTERNAL, "internal error: the compiled program "
                              "cannot be planned: %s", e.msg);
    if (!rc) {
        plan_section(&pl, plan);
        if (plan->oom)
            rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory writing a program");
    }
    tosac_program_plan_free(&pl);
    return rc;
}

/* Every CPU node's temporaries and scratch on the runtime, per graph and node. */
static tosac_code measure(const tosac_program *p, const void *bytes, size_t len,
                          tosac_plan_sizes *extra, rt_sizes *sz, tosac_error *err)
{
    const ir_graph **graphs = NULL;
    int n = 0;
    tosac_code rc = plan_graph_list(p->cpu->graph, &graphs, NULL, NULL, &n, err);
    if (rc)
        return rc;
    int *n_nodes = calloc((size_t)n + 1, sizeof *n_nodes);
    const uint64_t **rows = calloc((size_t)n + 1, sizeof *rows);
    size_t total = 0;
    for (int g = 0; n_nodes && g < n; g++)
        total += (size_t)(n_nodes[g] = graphs[g]->n_nodes);
    sz->scratch = calloc(total + 1, sizeof *sz->scratch);
    sz->n_scratch = total;
    size_t arena_bytes = MEASURE_STATE_BYTES + 4 * len + MEASURE_WORK_BYTES;
    void *arena = NULL;
    if (!n_nodes || !rows || !sz->scratch)
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory measuring a program");
    rt_program v;
    if (!rc)
        rc = rt_program_load(bytes, len, &v, err);
    for (int g = 0; !rc && g < n; g++)
        if ((uint32_t)g >= v.n_graphs || v.graphs[g].n_nodes != (uint32_t)n_nodes[g])
            rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "program: the plan's graph %d is not the "
                            "file's", g);
    if (!rc && v.plan->arena_bytes > (uint64_t)TOSAC_LIMIT_RUNTIME_REGION) /* before malloc */
        rc = tosac_fail(err, TOSAC_ERR_INPUT, "the program's tensors need an arena of %llu "
                        "bytes, beyond the limit of %llu (TOSAC_LIMIT_RUNTIME_REGION)",
                        (unsigned long long)v.plan->arena_bytes,
                        (unsigned long long)TOSAC_LIMIT_RUNTIME_REGION);
    if (!rc) {
        arena_bytes += (size_t)v.plan->arena_bytes;
        /* page-aligned: padding above 16-byte alignment is the same on every run, so the
         * measured state (and the file) is deterministic */
        if (!(arena = tosac_pages_alloc(arena_bytes)))
            rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory measuring a program");
    }
    tosac_error e;
    tosac_error_clear(&e);
    if (!rc && rt_measure(bytes, len, arena, arena_bytes, MEASURE_STATE_BYTES + 4 * len,
                              tosac_libc_allocator(), sz, &e))
        rc = e.code == TOSAC_ERR_UNSUPPORTED /* an operator the runtime lacks: named */
                 ? tosac_fail(err, e.code, "%s", e.msg)
             /* a data-dependent CPU output (Range of runtime values, ...) larger than the
              * shape the model declares for it: the model's declaration is wrong, not the
              * compiler */
             : e.code == TOSAC_ERR_CAPACITY
                 ? tosac_fail(err, TOSAC_ERR_INPUT, "a value is larger than the shape the model "
                              "declares for it: the compiled program does not run on the "
                              "runtime (measuring it on zero inputs): %s", e.msg)
                 : tosac_fail(err, TOSAC_ERR_INTERNAL, "internal error: the compiled program "
                              "does not run on the runtime (measuring it on zero inputs): %s",
                              e.msg);
    tosac_pages_free(arena, arena_bytes);
    for (size_t off = 0, g = 0; !rc && g < (size_t)n; off += (size_t)n_nodes[g++])
        rows[g] = sz->scratch + off;
    extra->n_graphs = n;
    extra->n_nodes = n_nodes;
    extra->scratch = rows;
    free(graphs);
    return rc;
}

tosac_code tosac_program_build(tosac_program *p, void **out, size_t *out_len, tosac_error *err)
{
    *out = NULL;
    *out_len = 0;
    tosac_plan_sizes extra;
    memset(&extra, 0, sizeof extra);
    rt_sizes sz;
    memset(&sz, 0, sizeof sz);
    void *bytes = NULL;
    size_t len = 0, cap = 0;
    buf plan = {0};
    /* written once, with an empty plan and an empty RUNTIME record, and room for the plan:
     * the plans (both the same size: they differ in offsets and sizes only) and the measured
     * sizes replace only the file's tail, in the same buffer (rewrite_tail) */
    rt_runtime_rec rr;
    memset(&rr, 0, sizeof rr);
    tosac_code rc = sort_graphs(p->cpu->graph, 0, err);
    if (!rc)
        rc = make_plan(p, NULL, &plan, err);
    if (!rc)
        rc = program_to_bytes_with(p, RT_SEC_RUNTIME, RT_SECF_OPTIONAL, &rr, sizeof rr,
                                   plan.len + 256, &bytes, &len, &cap, err);
    if (!rc)
        rc = rewrite_tail(&plan, &rr, &bytes, &len, &cap, err);
    if (!rc)
        rc = measure(p, bytes, len, &extra, &sz, err);
    rr.state_bytes = sz.state_bytes + STATE_SLACK;
    rr.dynamic_bytes = (sz.dynamic_bytes + 15) / 16 * 16;
    rr.thread_scratch = sz.thread_scratch;
    rr.prepared_bytes = sz.prepared_bytes;
    plan.len = 0;
    if (!rc)
        rc = make_plan(p, &extra, &plan, err);
    if (!rc)
        rc = rewrite_tail(&plan, &rr, &bytes, &len, &cap, err);
    free(plan.d);
    if (!rc) {
        *out = bytes;
        *out_len = len;
        bytes = NULL;
    }
    free(bytes);
    free((void *)extra.n_nodes);
    free((void *)extra.scratch);
    free(sz.scratch);
    return rc;
}
