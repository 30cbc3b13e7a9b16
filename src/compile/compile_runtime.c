/* A program ready for the runtime (tosac_program_build): its CPU graphs put in execution order
 * (the runtime runs nodes in file order), written (tosac_program_to_bytes), planned
 * (tosac_plan_program), measured on the runtime itself (rt_measure: each CPU node's
 * temporaries and kernel scratch, the runtime's state, the values of dynamic shape), planned
 * again with those scratch sizes, and the PLAN and RUNTIME sections put in the file. */
#include <stdlib.h>
#include <string.h>

#include "compile/compile_plan.h"
#include "compile/program_internal.h"
#include "runtime/rt_internal.h"
#include "tosac/compile.h"

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

/* The file with its PLAN section's body replaced by plan and, when rr is given, a RUNTIME
 * section appended (section bodies are position-independent: everything inside is relative
 * to the section's start). */
static tosac_code rewrite(const void *in, size_t len, const buf *plan, const rt_runtime_rec *rr,
                          void **out, size_t *out_len, tosac_error *err)
{
    rt_program v;
    tosac_code rc = rt_program_load(in, len, &v, err);
    if (rc)
        return rc;
    uint32_t ns = v.n_sections + (rr ? 1 : 0);
    buf b = {0};
    size_t total = sizeof(rt_header_rec) + ns * (sizeof(rt_section_rec) + 16) + plan->len +
                   (rr ? sizeof *rr : 0) + 16;
    for (uint32_t s = 0; s < v.n_sections; s++)
        total += v.sections[s].kind == RT_SEC_PLAN ? 0 : (size_t)v.sections[s].size;
    if ((b.d = malloc(total)))
        b.cap = total;
    rt_header_rec h;
    memcpy(&h, in, sizeof h);
    h.n_sections = ns;
    put(&b, &h, sizeof h);
    put(&b, NULL, (size_t)ns * sizeof(rt_section_rec));
    for (uint32_t s = 0; s < ns; s++) {
        pad16(&b);
        rt_section_rec r;
        const void *body;
        if (s < v.n_sections) {
            r = v.sections[s];
            body = r.kind == RT_SEC_PLAN ? plan->d : (const unsigned char *)in + r.offset;
            if (r.kind == RT_SEC_PLAN)
                r.size = plan->len;
        } else {
            memset(&r, 0, sizeof r);
            r.kind = RT_SEC_RUNTIME;
            r.flags = RT_SECF_OPTIONAL;
            r.size = sizeof *rr;
            body = rr;
        }
        r.offset = b.len;
        put(&b, body, (size_t)r.size);
        if (!b.oom)
            memcpy(b.d + sizeof h + s * sizeof r, &r, sizeof r);
    }
    pad16(&b);
    h.file_bytes = b.len;
    if (!b.oom)
        memcpy(b.d, &h, sizeof h);
    if (b.oom) {
        free(b.d);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory writing a program");
    }
    *out = b.d;
    *out_len = b.len;
    return TOSAC_OK;
}

/* Plans p and writes it (raw: p's bytes with an empty plan; rr, when given). */
static tosac_code plan_and_write(const tosac_program *p, const void *raw, size_t raw_len,
                                 const tosac_plan_sizes *extra, const rt_runtime_rec *rr,
                                 tosac_program_plan *pl, void **out, size_t *out_len,
                                 tosac_error *err)
{
    buf plan = {0};
    tosac_error e;
    tosac_error_clear(&e);
    tosac_code rc = tosac_plan_program(p, extra, pl, &e);
    if (rc) /* the compiler made p: a program it cannot plan is its bug, unless unsupported */
        rc = rc == TOSAC_ERR_UNSUPPORTED
                 ? tosac_fail(err, rc, "%s", e.msg)
                 : tosac_fail(err, TOSAC_ERR_INTERNAL, "internal error: the compiled program "
                              "cannot be planned: %s", e.msg);
    if (!rc) {
        plan_section(pl, &plan);
        rc = plan.oom ? tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory writing a program")
                      : rewrite(raw, raw_len, &plan, rr, out, out_len, err);
    }
    free(plan.d);
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
        if (!(arena = aligned_alloc(4096, (arena_bytes + 4095) / 4096 * 4096)))
            rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory measuring a program");
    }
    tosac_error e;
    tosac_error_clear(&e);
    if (!rc && rt_measure(bytes, len, arena, arena_bytes, MEASURE_STATE_BYTES + 4 * len, sz, &e))
        rc = e.code == TOSAC_ERR_UNSUPPORTED /* an operator the runtime lacks: named */
                 ? tosac_fail(err, e.code, "%s", e.msg)
                 : tosac_fail(err, TOSAC_ERR_INTERNAL, "internal error: the compiled program "
                              "does not run on the runtime (measuring it on zero inputs): %s",
                              e.msg);
    free(arena);
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
    tosac_program_plan pl;
    memset(&pl, 0, sizeof pl);
    void *first = NULL;
    size_t first_len = 0;
    tosac_plan_sizes extra;
    memset(&extra, 0, sizeof extra);
    rt_sizes sz;
    memset(&sz, 0, sizeof sz);
    void *raw = NULL;
    size_t raw_len = 0;
    tosac_code rc = sort_graphs(p->cpu->graph, 0, err);
    if (!rc) /* written once: the plans replace only its PLAN section */
        rc = tosac_program_to_bytes(p, &raw, &raw_len, err);
    if (!rc)
        rc = plan_and_write(p, raw, raw_len, NULL, NULL, &pl, &first, &first_len, err);
    tosac_program_plan_free(&pl);
    if (!rc)
        rc = measure(p, first, first_len, &extra, &sz, err);
    rt_runtime_rec rr;
    memset(&rr, 0, sizeof rr);
    rr.state_bytes = sz.state_bytes + STATE_SLACK;
    rr.dynamic_bytes = (sz.dynamic_bytes + 15) / 16 * 16;
    rr.thread_scratch = sz.thread_scratch;
    if (!rc)
        rc = plan_and_write(p, raw, raw_len, &extra, &rr, &pl, out, out_len, err);
    tosac_program_plan_free(&pl);
    free(raw);
    free(first);
    free((void *)extra.n_nodes);
    free((void *)extra.scratch);
    free(sz.scratch);
    return rc;
}
