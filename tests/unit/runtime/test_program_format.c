/* Program file v2 (docs/PROGRAM_FORMAT.md): write -> load -> compare every record of a
 * synthetic CPU graph with every attribute kind, bodies and captures; a compiled program
 * read back and written again byte for byte (determinism); the verifying loader on
 * truncated, bit-flipped, wrong-magic, v1, out-of-range, overlapping, misaligned and huge-count
 * files (each refused with its message, never a crash); a seeded mutation loop over a real
 * program; a hand-built PLAN section (accepted, and refused for each out-of-arena offset);
 * `tosac inspect --json`'s v2 fields. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/program_internal.h" /* builds programs by hand */
#include "runtime/rt_program.h"
#include "tosac/compile.h"
#include "tosac/program.h"
#include "util/fileio.h"
#include "util/json.h"

#define MODEL "models/synth_qdq_s16_op21_split_matmul/model.onnx"

/* A 16-aligned copy with room to spare (the loader requires the alignment). */
static unsigned char *aligned_copy(const void *src, size_t len)
{
    unsigned char *d = aligned_alloc(16, (len + 16) / 16 * 16 + 16);
    assert_non_null(d);
    memcpy(d, src, len);
    return d;
}

static ir_model *synthetic_model(void)
{
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *m = ir_model_new();
    assert_int_equal(ir_model_set_opset(m, "com.microsoft", 1, &err), TOSAC_OK);
    ir_graph *g = m->graph;
    int64_t sx[3] = {1, -1, 4};
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 3, sx, &err);
    assert_int_equal(ir_tensor_set_dim_param(g, x, 1, "N", &err), TOSAC_OK);
    int64_t sw[2] = {3, 2};
    int8_t wd[6] = {1, -2, 3, -4, 5, -6};
    int w = ir_graph_add_const(g, "w", TOSAC_DT_I8, 2, sw, wd, sizeof wd, &err);
    float sc[3] = {0.5f, 0.25f, 0.125f};
    int64_t zp[3] = {0, 1, -1};
    assert_int_equal(ir_tensor_set_quant(g, w, sc, zp, 3, 0, TOSAC_DT_I8, &err), TOSAC_OK);
    int cond = ir_graph_add_input(g, "cond", TOSAC_DT_BOOL, 0, NULL, &err);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, -1, NULL, &err);
    int z = ir_graph_add_tensor(g, "z", TOSAC_DT_UNKNOWN, -1, NULL, &err);
    float qs = 0.02f;
    int64_t qz = 3;
    assert_int_equal(ir_tensor_set_quant(g, y, &qs, &qz, 1, -1, TOSAC_DT_I16, &err), TOSAC_OK);
    int ins[3] = {x, -1, w}, outs[1] = {y};
    int n0 = ir_graph_add_node(g, "Custom", "tosac.test", "n0", ins, 3, outs, 1, &err);
    assert_int_equal(ir_node_set_float(g, n0, "f", 1.5f, &err), TOSAC_OK);
    assert_int_equal(ir_node_set_int(g, n0, "i", -7, &err), TOSAC_OK);
    assert_int_equal(ir_node_set_string(g, n0, "s", "hello", &err), TOSAC_OK);
    float fl[2] = {0.25f, -3.0f};
    assert_int_equal(ir_node_set_floats(g, n0, "fs", fl, 2, &err), TOSAC_OK);
    int64_t il[3] = {1, -2, (int64_t)1 << 40};
    assert_int_equal(ir_node_set_ints(g, n0, "is", il, 3, &err), TOSAC_OK);
    const char *sl[2] = {"a", ""};
    assert_int_equal(ir_node_set_strings(g, n0, "ss", sl, 2, &err), TOSAC_OK);
    tosac_tensor t;
    int64_t st[1] = {3};
    int32_t td[3] = {10, 20, 30};
    memset(&t, 0, sizeof t);
    t.dtype = TOSAC_DT_I32;
    t.rank = 1;
    t.shape[0] = 3;
    t.data = td;
    t.nbytes = sizeof td;
    (void)st;
    assert_int_equal(ir_node_set_tensor(g, n0, "t", &t, &err), TOSAC_OK);
    tosac_tensor ts[2];
    memset(ts, 0, sizeof ts);
    ts[0].dtype = TOSAC_DT_F32;
    ts[0].rank = 0;
    ts[0].data = malloc(4);
    memcpy(ts[0].data, &qs, 4);
    ts[0].nbytes = 4;
    ts[0].owns_data = 1;
    ts[1].dtype = TOSAC_DT_U8;
    ts[1].rank = 1;
    ts[1].shape[0] = 0;
    ts[1].data = malloc(1);
    ts[1].nbytes = 0;
    ts[1].owns_data = 1;
    assert_int_equal(ir_node_set_tensors(g, n0, "ts", ts, 2, &err), TOSAC_OK);
    /* If with two bodies capturing x; the then-body nests a GRAPHS node with one body */
    ir_graph *th = ir_graph_new("then", NULL), *el = ir_graph_new("else", NULL);
    ir_graph *deep = ir_graph_new("deep", NULL);
    int cx = ir_graph_add_tensor(th, "x", TOSAC_DT_F32, 3, sx, &err);
    th->tensors[cx].outer_id = x;
    assert_int_equal(ir_graph_mark_output(th, cx, &err), TOSAC_OK);
    int dx = ir_graph_add_tensor(deep, "x", TOSAC_DT_F32, 3, sx, &err);
    deep->tensors[dx].outer_id = cx;
    assert_int_equal(ir_graph_mark_output(deep, dx, &err), TOSAC_OK);
    int tn = ir_graph_add_node(th, "Holder", "tosac.test", "", NULL, 0, NULL, 0, &err);
    assert_int_equal(ir_node_set_graphs(th, tn, "bodies", &deep, 1, &err), TOSAC_OK);
    int ex = ir_graph_add_tensor(el, "x", TOSAC_DT_F32, 3, sx, &err);
    el->tensors[ex].outer_id = x;
    assert_int_equal(ir_graph_mark_output(el, ex, &err), TOSAC_OK);
    int iin[1] = {cond}, iout[1] = {z};
    int nif = ir_graph_add_node(g, "If", NULL, "if", iin, 1, iout, 1, &err);
    assert_int_equal(ir_node_set_graph(g, nif, "then_branch", th, &err), TOSAC_OK);
    assert_int_equal(ir_node_set_graph(g, nif, "else_branch", el, &err), TOSAC_OK);
    assert_int_equal(ir_graph_mark_output(g, y, &err), TOSAC_OK);
    assert_int_equal(ir_graph_mark_output(g, z, &err), TOSAC_OK);
    assert_int_equal(ir_model_verify(m, &err), TOSAC_OK);
    return m;
}

static void to_bytes(const tosac_program *p, unsigned char **buf, size_t *len)
{
    tosac_error err;
    tosac_error_clear(&err);
    void *b = NULL;
    assert_int_equal(tosac_program_to_bytes(p, &b, len, &err), TOSAC_OK);
    *buf = aligned_copy(b, *len);
    free(b);
}

/* The synthetic program's bytes (no report). */
static unsigned char *synthetic_bytes(size_t *len)
{
    tosac_program p;
    memset(&p, 0, sizeof p);
    p.cpu = synthetic_model();
    unsigned char *buf;
    to_bytes(&p, &buf, len);
    ir_model_free(p.cpu);
    return buf;
}

/* Every record of the synthetic program, read through the loader's view. */
static void test_roundtrip_records(void **state)
{
    (void)state;
    tosac_program p;
    memset(&p, 0, sizeof p);
    p.cpu = synthetic_model();
    p.report = "{\"spec\":\"x\"}";
    unsigned char *buf;
    size_t len;
    to_bytes(&p, &buf, &len);
    assert_int_equal(len % 16, 0);
    rt_program v;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(rt_program_load(buf, len, &v, &err), TOSAC_OK);
    /* graphs in DFS pre-order: main, then (with its body deep), else */
    assert_int_equal(v.n_graphs, 4);
    const char *names[4] = {"main", "then", "deep", "else"};
    const int parents[4] = {-1, 0, 1, 0};
    for (uint32_t gi = 0; gi < 4; gi++) {
        assert_string_equal(rt_str(&v, rt_graph(&v, gi)->name), names[gi]);
        assert_int_equal(rt_graph(&v, gi)->parent, parents[gi]);
    }
    /* tensors: x with its dim param, the per-axis quantized constant w */
    const rt_tensor_rec *tx = rt_graph_tensor(&v, 0, 0);
    assert_string_equal(rt_str(&v, tx->name), "x");
    assert_int_equal(tx->dtype, TOSAC_DT_F32);
    assert_int_equal(tx->rank, 3);
    assert_true(tx->shape[0] == 1 && tx->shape[1] == -1 && tx->shape[2] == 4 && tx->shape[3] == 0);
    assert_string_equal(rt_str(&v, (rt_str_ref)v.ids[tx->dim_params + 1]), "N");
    assert_string_equal(rt_str(&v, (rt_str_ref)v.ids[tx->dim_params]), "");
    const rt_tensor_rec *tw = rt_graph_tensor(&v, 0, 1);
    assert_int_equal(tw->flags, RT_TENSOR_CONST);
    const rt_const_rec *cw = rt_constant(&v, (uint32_t)tw->const_ref);
    assert_int_equal(cw->nbytes, 6);
    assert_int_equal(cw->offset % 16, 0);
    assert_int_equal(((uintptr_t)rt_constant_data(&v, (uint32_t)tw->const_ref)) % 16, 0);
    const int8_t wd[6] = {1, -2, 3, -4, 5, -6};
    assert_memory_equal(rt_constant_data(&v, (uint32_t)tw->const_ref), wd, 6);
    const rt_quant_rec *q = &v.quants[tw->quant];
    assert_int_equal(q->axis, 0);
    assert_int_equal(q->n, 3);
    assert_int_equal(q->zp_dtype, TOSAC_DT_I8);
    assert_true(rt_quant_scales(&v, q)[2] == 0.125f && rt_quant_zps(&v, q)[2] == -1);
    const rt_tensor_rec *ty = rt_graph_tensor(&v, 0, 3);
    assert_int_equal(ty->rank, -1);
    assert_int_equal(v.quants[ty->quant].zp_dtype, TOSAC_DT_I16);
    /* the capture chain: deep.x -> then.x -> main.x */
    assert_int_equal(rt_graph_tensor(&v, 1, 0)->flags, RT_TENSOR_CAPTURE);
    assert_int_equal(rt_graph_tensor(&v, 1, 0)->outer_id, 0);
    assert_int_equal(rt_graph_tensor(&v, 2, 0)->outer_id, 0);
    /* node 0 and every attribute kind */
    const rt_node_rec *n0 = rt_graph_node(&v, 0, 0);
    assert_string_equal(rt_str(&v, n0->op_type), "Custom");
    assert_string_equal(rt_str(&v, n0->domain), "tosac.test");
    assert_string_equal(rt_str(&v, n0->name), "n0");
    assert_int_equal(n0->n_inputs, 3);
    assert_int_equal(rt_node_input(&v, n0, 0), 0);
    assert_int_equal(rt_node_input(&v, n0, 1), -1);
    assert_int_equal(rt_node_input(&v, n0, 2), 1);
    assert_int_equal(rt_node_output(&v, n0, 0), 3);
    const rt_attr_rec *a = rt_node_attr_by_name(&v, n0, "f");
    assert_true(a->kind == RT_ATTR_FLOAT && a->f == 1.5f);
    a = rt_node_attr_by_name(&v, n0, "i");
    assert_true(a->kind == RT_ATTR_INT && a->i == -7);
    a = rt_node_attr_by_name(&v, n0, "s");
    assert_int_equal(a->kind, RT_ATTR_STRING);
    assert_string_equal(rt_str(&v, a->at), "hello");
    a = rt_node_attr_by_name(&v, n0, "fs");
    assert_true(a->kind == RT_ATTR_FLOATS && a->n == 2 && rt_attr_floats(&v, a)[1] == -3.0f);
    a = rt_node_attr_by_name(&v, n0, "is");
    assert_true(a->kind == RT_ATTR_INTS && a->n == 3 &&
                rt_attr_ints(&v, a)[2] == (int64_t)1 << 40);
    a = rt_node_attr_by_name(&v, n0, "ss");
    assert_true(a->kind == RT_ATTR_STRINGS && a->n == 2);
    assert_string_equal(rt_str(&v, (rt_str_ref)rt_attr_ids(&v, a)[0]), "a");
    assert_string_equal(rt_str(&v, (rt_str_ref)rt_attr_ids(&v, a)[1]), "");
    a = rt_node_attr_by_name(&v, n0, "t");
    assert_int_equal(a->kind, RT_ATTR_TENSOR);
    const int32_t td[3] = {10, 20, 30};
    assert_int_equal(rt_constant(&v, a->at)->dtype, TOSAC_DT_I32);
    assert_memory_equal(rt_constant_data(&v, a->at), td, 12);
    a = rt_node_attr_by_name(&v, n0, "ts");
    assert_true(a->kind == RT_ATTR_TENSORS && a->n == 2);
    assert_int_equal(rt_constant(&v, (uint32_t)rt_attr_ids(&v, a)[1])->nbytes, 0);
    assert_int_equal(rt_constant(&v, (uint32_t)rt_attr_ids(&v, a)[1])->rank, 1);
    const rt_node_rec *nif = rt_graph_node(&v, 0, 1);
    assert_int_equal(rt_node_attr_by_name(&v, nif, "then_branch")->at, 1);
    assert_int_equal(rt_node_attr_by_name(&v, nif, "else_branch")->at, 3);
    a = rt_node_attr_by_name(&v, rt_graph_node(&v, 1, 0), "bodies");
    assert_true(a->kind == RT_ATTR_GRAPHS && a->n == 1 && rt_attr_ids(&v, a)[0] == 2);
    /* signature: the main graph's inputs and outputs */
    assert_int_equal(v.n_inputs, 2);
    assert_int_equal(v.n_outputs, 2);
    assert_string_equal(rt_str(&v, v.inputs[1].name), "cond");
    assert_int_equal(v.inputs[1].dtype, TOSAC_DT_BOOL);
    assert_int_equal(v.outputs[0].cpu_tensor, 3);
    assert_int_equal(v.outputs[0].quant, ty->quant);
    assert_int_equal(v.n_opsets, 2);
    assert_string_equal(rt_str(&v, v.opsets[1].domain), "com.microsoft");
    assert_false(rt_plan_present(&v));
    assert_string_equal(v.report, "{\"spec\":\"x\"}");
    /* and back into the compiler's IR: equal to what was written */
    tosac_program *r = NULL;
    assert_int_equal(tosac_program_from_bytes(buf, len, &r, &err), TOSAC_OK);
    assert_true(ir_model_equal(p.cpu, r->cpu));
    assert_string_equal(r->report, p.report);
    /* an unaligned buffer is copied by the compiler's reader, refused by the loader */
    unsigned char *odd = malloc(len + 1);
    memcpy(odd + 1, buf, len);
    tosac_program *r2 = NULL;
    assert_int_equal(tosac_program_from_bytes(odd + 1, len, &r2, &err), TOSAC_OK);
    tosac_program_free(r2);
    assert_int_equal(rt_program_load(odd + 1, len, &v, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "not 16-aligned"));
    free(odd);
    tosac_program_free(r);
    ir_model_free(p.cpu);
    free(buf);
}

static unsigned char *compiled(size_t *len)
{
    char *dir = tu_mkdtemp();
    char prg[600];
    snprintf(prg, sizeof prg, "%s/sm.prg", dir);
    char *model = strdup(tu_shared(MODEL));
    assert_int_equal(tu_cli(NULL, NULL, "compile", model, "--spec", "TOSA-1.0+INT+int16+u55",
                            "-o", prg, NULL), 0);
    free(model);
    void *b = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_read_file(prg, &b, len, &err), TOSAC_OK);
    unsigned char *buf = aligned_copy(b, *len);
    free(b);
    tu_rmtree_free(dir);
    return buf;
}

/* The file compile writes (planned and measured) of p. */
static void built_bytes(tosac_program *p, unsigned char **buf, size_t *len)
{
    tosac_error err;
    tosac_error_clear(&err);
    void *b = NULL;
    assert_int_equal(tosac_program_build(p, &b, len, &err), TOSAC_OK);
    *buf = aligned_copy(b, *len);
    free(b);
}

/* A compiled program read back and built again is the same bytes (plan and measured sizes
 * included); twice the same. */
static void test_deterministic(void **state)
{
    (void)state;
    size_t len, len2, len3;
    unsigned char *buf = compiled(&len), *b2, *b3;
    tosac_program *p = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_program_from_bytes(buf, len, &p, &err), TOSAC_OK);
    assert_int_equal(p->n_delegates, 1);
    built_bytes(p, &b2, &len2);
    built_bytes(p, &b3, &len3);
    assert_int_equal(len2, len);
    assert_memory_equal(b2, buf, len);
    assert_int_equal(len3, len);
    assert_memory_equal(b3, buf, len);
    /* the delegate's flatbuffer is stored as the deterministic writer makes it */
    rt_program v;
    assert_int_equal(rt_program_load(buf, len, &v, &err), TOSAC_OK);
    void *t = NULL;
    size_t tl = 0;
    assert_int_equal(tosa_graph_write(p->delegates[0], &t, &tl, &err), TOSAC_OK);
    rt_delegate_view dv = rt_program_delegate(&v, 0);
    assert_int_equal(dv.tosa_size, tl);
    assert_memory_equal(dv.tosa, t, tl);
    assert_int_equal((uintptr_t)dv.tosa % 16, 0);
    free(t);
    tosac_program_free(p);
    free(buf);
    free(b2);
    free(b3);
}

/* Read borrowed (compile's read-back check): the same program as the copying read, its
 * delegate's constants in the file buffer itself (aligned constants are borrowed), and it
 * builds the same bytes. An unaligned buffer is copied and nothing points into it. */
static void test_borrowed_read(void **state)
{
    (void)state;
    size_t len, len2;
    unsigned char *buf = compiled(&len), *b2;
    tosac_program *p = NULL, *q = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_program_from_bytes(buf, len, &p, &err), TOSAC_OK);
    assert_int_equal(tosac_program_from_bytes_borrowed(buf, len, &q, &err), TOSAC_OK);
    assert_int_equal(q->n_delegates, p->n_delegates);
    assert_true(tosa_graph_equal(p->delegates[0], q->delegates[0]));
    assert_true(ir_model_equal(p->cpu, q->cpu));
    int in_buf = 0, n_data = 0;
    const tosa_graph *g = q->delegates[0];
    for (int r = 0; r < g->n_regions; r++)
        for (int b = 0; b < g->regions[r].n_blocks; b++)
            for (int t = 0; t < g->regions[r].blocks[b].n_tensors; t++) {
                const unsigned char *d = g->regions[r].blocks[b].tensors[t].data;
                if (!d)
                    continue;
                n_data++;
                in_buf += d >= buf && d < buf + len;
            }
    assert_true(n_data > 0);
    assert_true(in_buf > 0);
    built_bytes(q, &b2, &len2);
    assert_int_equal(len2, len);
    assert_memory_equal(b2, buf, len);
    free(b2);
    tosac_program_free(q);
    unsigned char *odd = malloc(len + 1);
    memcpy(odd + 1, buf, len);
    assert_int_equal(tosac_program_from_bytes_borrowed(odd + 1, len, &q, &err), TOSAC_OK);
    memset(odd, 0, len + 1); /* nothing of q may live there */
    free(odd);
    assert_true(tosa_graph_equal(p->delegates[0], q->delegates[0]));
    tosac_program_free(q);
    tosac_program_free(p);
    free(buf);
}

/* Loads a modified copy and expects a refusal whose message contains want. */
static void refused(const unsigned char *buf, size_t len, const char *want)
{
    unsigned char *c = aligned_copy(buf, len);
    rt_program v;
    tosac_error err;
    tosac_error_clear(&err);
    tosac_code rc = rt_program_load(c, len, &v, &err);
    if (rc == TOSAC_OK || !strstr(err.msg, want))
        fail_msg("expected a refusal with '%s', got %d '%s'", want, rc, err.msg);
    assert_null(strchr(err.msg, '\n'));
    free(c);
}

static void put32(unsigned char *b, size_t at, uint32_t v) { memcpy(b + at, &v, 4); }
static void put64(unsigned char *b, size_t at, uint64_t v) { memcpy(b + at, &v, 8); }

static void test_refusals(void **state)
{
    (void)state;
    size_t len;
    unsigned char *buf = compiled(&len), *m = aligned_copy(buf, len);
    rt_program v;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(rt_program_load(buf, len, &v, &err), TOSAC_OK);
    /* every truncation */
    for (size_t n = 0; n < len; n++) {
        unsigned char *c = aligned_copy(buf, n);
        tosac_error_clear(&err);
        assert_int_equal(rt_program_load(c, n, &v, &err), TOSAC_ERR_INPUT);
        assert_true(err.msg[0] != '\0');
        free(c);
    }
    memcpy(m, buf, len);
    m[0] = 'X';
    refused(m, len, "no TOSACPRG magic");
    memcpy(m, buf, len);
    put32(m, 8, 1);
    refused(m, len, "version 1 program: recompile with this tosac");
    put32(m, 8, 3);
    refused(m, len, "version 3 is not supported");
    memcpy(m, buf, len);
    put32(m, 24, 0xffffffffu); /* n_sections */
    refused(m, len, "sections do not fit");
    tosac_error_clear(&err);
    assert_int_equal(rt_program_load(buf, len, &v, &err), TOSAC_OK);
    size_t tab = 32, sec1 = tab + 24;
    /* overlapping: section 1 starts where section 0 does */
    memcpy(m, buf, len);
    memcpy(m + sec1 + 8, m + tab + 8, 8);
    refused(m, len, "overlaps");
    /* misaligned: section 1 moved by 8 bytes */
    memcpy(m, buf, len);
    put64(m, sec1 + 8, v.sections[1].offset + 8);
    refused(m, len, "not 16-aligned");
    /* beyond the file */
    memcpy(m, buf, len);
    put64(m, sec1 + 16, (uint64_t)len);
    refused(m, len, "beyond the");
    /* huge counts in the CPU tables */
    size_t cpu = (size_t)((const unsigned char *)v.cpu - buf);
    memcpy(m, buf, len);
    put32(m, cpu + 8 + 4, 0xffffffffu); /* tensors.count */
    refused(m, len, "table tensors");
    /* a table inside its section by size but running past its end from its offset: the
     * ints table's count one more than fits after its offset (still below section / 8) */
    const rt_section_rec *cpu_sec = NULL, *const_sec = NULL;
    for (uint32_t i = 0; i < v.n_sections; i++) {
        if (v.sections[i].kind == RT_SEC_CPU)
            cpu_sec = &v.sections[i];
        if (v.sections[i].kind == RT_SEC_CONSTANTS)
            const_sec = &v.sections[i];
    }
    assert_non_null(cpu_sec);
    assert_non_null(const_sec);
    uint32_t ints_count = (uint32_t)((cpu_sec->size - v.cpu->ints.offset) / 8 + 1);
    assert_true(v.cpu->ints.offset >= 8 && (uint64_t)ints_count * 8 <= cpu_sec->size);
    memcpy(m, buf, len);
    put32(m, cpu + 7 * sizeof(rt_table_rec) + 4, ints_count); /* ints.count */
    refused(m, len, "CPU section: table ints");
    /* constant data starting inside its section but ending past it: the CONSTANTS section
     * shortened by 2 bytes, so the record with the last data keeps its offset and runs out */
    uint32_t last = 0;
    for (uint32_t i = 1; i < v.n_constants; i++)
        if (rt_constant(&v, i)->offset > rt_constant(&v, last)->offset)
            last = i;
    assert_true(rt_constant(&v, last)->offset + rt_constant(&v, last)->nbytes == const_sec->size);
    assert_true(rt_constant(&v, last)->nbytes > 2);
    memcpy(m, buf, len);
    put64(m, tab + 24 * (size_t)(const_sec - v.sections) + 16, const_sec->size - 2);
    char want_c[64];
    snprintf(want_c, sizeof want_c, "CONSTANTS record %u: data at", last);
    refused(m, len, want_c);
    /* a node input id out of its graph */
    const rt_node_rec *n0 = rt_graph_node(&v, 0, 0);
    size_t id_at = (size_t)((const unsigned char *)&v.ids[n0->inputs_at] - buf);
    memcpy(m, buf, len);
    put32(m, id_at, v.graphs[0].n_tensors);
    refused(m, len, "out of range");
    put32(m, id_at, (uint32_t)-2);
    refused(m, len, "out of range");
    /* a string ref past STRINGS */
    size_t name_at = (size_t)((const unsigned char *)&n0->op_type - buf);
    memcpy(m, buf, len);
    put32(m, name_at, v.strings_bytes);
    refused(m, len, "bad string");
    /* STRINGS not NUL-terminated */
    memcpy(m, buf, len);
    m[(size_t)((const unsigned char *)v.strings - buf) + v.strings_bytes - 1] = 'x';
    refused(m, len, "STRINGS section");
    /* a bad dtype and a rank above the maximum */
    size_t t0 = (size_t)((const unsigned char *)rt_graph_tensor(&v, 0, 0) - buf);
    memcpy(m, buf, len);
    put32(m, t0 + 4, TOSAC_DT_COUNT);
    refused(m, len, "dtype");
    memcpy(m, buf, len);
    put32(m, t0 + 8, TOSAC_MAX_RANK + 1);
    refused(m, len, "rank");
    /* a constant whose size does not match its type and shape */
    size_t c0 = (size_t)((const unsigned char *)rt_constant(&v, 0) - buf);
    memcpy(m, buf, len);
    put64(m, c0 + 16, rt_constant(&v, 0)->nbytes + 1);
    refused(m, len, "CONSTANTS record 0");
    /* a dim whose byte size overflows */
    memcpy(m, buf, len);
    put32(m, c0 + 4, 2);
    put64(m, c0 + 32, (uint64_t)1 << 40);
    put64(m, c0 + 40, (uint64_t)1 << 40);
    refused(m, len, "CONSTANTS record 0");
    /* the delegate's node: its index attribute changed */
    rt_delegate_view dv = rt_program_delegate(&v, 0);
    const rt_node_rec *dn = rt_graph_node(&v, (uint32_t)dv.rec->graph, (uint32_t)dv.rec->node);
    size_t ix_at = (size_t)((const unsigned char *)&rt_node_attr_by_name(&v, dn, "index")->i - buf);
    memcpy(m, buf, len);
    put64(m, ix_at, 1);
    refused(m, len, "delegate index 1 out of range");
    /* the delegate's flatbuffer past its section */
    size_t d_at = (size_t)((const unsigned char *)dv.rec - buf);
    memcpy(m, buf, len);
    put64(m, d_at + 32, dv.rec->tosa_size + 16);
    refused(m, len, "DELEGATE 0: flatbuffer");
    /* an empty plan with an arena */
    size_t plan_at = (size_t)((const unsigned char *)v.plan - buf);
    memcpy(m, buf, len);
    put64(m, plan_at, 64);
    refused(m, len, "PLAN section");
    /* a graph naming itself as its body (a cycle) */
    size_t sl;
    unsigned char *sb = synthetic_bytes(&sl);
    assert_int_equal(rt_program_load(sb, sl, &v, &err), TOSAC_OK);
    const rt_attr_rec *tb = rt_node_attr_by_name(&v, rt_graph_node(&v, 0, 1), "then_branch");
    size_t tb_at = (size_t)((const unsigned char *)&tb->at - sb);
    put32(sb, tb_at, 0);
    refused(sb, sl, "is not a body of this graph");
    put32(sb, tb_at, 3); /* else's body named twice */
    refused(sb, sl, "named twice");
    free(sb);
    free(m);
    free(buf);
}

/* Every bit of the header, the section table and the CPU header flipped, then seeded random
 * mutations over the whole file: the loader refuses or accepts, never crashes (ASan), and an
 * accepted file reads into the compiler's IR or is refused there. */
static void test_mutations(void **state)
{
    (void)state;
    size_t len;
    unsigned char *buf = compiled(&len), *m = aligned_copy(buf, len);
    rt_program v;
    tosac_error err;
    assert_int_equal(rt_program_load(buf, len, &v, &err), TOSAC_OK);
    size_t head = (size_t)((const unsigned char *)v.cpu - buf) + sizeof(rt_cpu_header_rec);
    int refusals = 0;
    for (size_t bit = 0; bit < head * 8; bit++) {
        memcpy(m, buf, len);
        m[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        tosac_error_clear(&err);
        if (rt_program_load(m, len, &v, &err) != TOSAC_OK) {
            refusals++;
            assert_true(err.msg[0] != '\0');
        }
    }
    assert_true(refusals > 0);
    tu_seed(0x70726f67);
    int iters = getenv("TOSAC_FUZZ_PROGRAM_ITERS") ? atoi(getenv("TOSAC_FUZZ_PROGRAM_ITERS")) : 3000;
    int accepted = 0, rebuilt = 0;
    for (int it = 0; it < iters; it++) {
        memcpy(m, buf, len);
        int n = 1 + (int)tu_below(8);
        for (int k = 0; k < n; k++) {
            size_t at = tu_below((uint32_t)len);
            switch (tu_below(3)) {
            case 0: m[at] ^= (unsigned char)(1u << tu_below(8)); break;
            case 1: m[at] = (unsigned char)tu_rand(); break;
            default: m[at] = tu_below(2) ? 0xff : 0; break;
            }
        }
        tosac_error_clear(&err);
        if (rt_program_load(m, len, &v, &err) == TOSAC_OK) {
            accepted++;
            tosac_program *p = NULL;
            tosac_error_clear(&err);
            if (tosac_program_from_bytes(m, len, &p, &err) == TOSAC_OK) {
                rebuilt++;
                tosac_program_free(p);
            } else
                assert_true(err.msg[0] != '\0');
        } else {
            assert_true(err.msg[0] != '\0');
        }
    }
    /* the loop reaches both the loader's refusals and the IR rebuild (mutations in constant
     * data and the report keep a file valid) */
    assert_true(accepted > 0 && accepted < iters);
    assert_true(rebuilt > 0);
    free(m);
    free(buf);
}

/* inspect --json: format, sections, signature, delegate version and bytes, CPU operators,
 * constants, memory. */
static void test_inspect_json(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp(), prg[600], *out = NULL;
    snprintf(prg, sizeof prg, "%s/sm.prg", dir);
    char *model = strdup(tu_shared(MODEL));
    assert_int_equal(tu_cli(NULL, NULL, "compile", model, "--spec", "TOSA-1.0+INT+int16+u55",
                            "-o", prg, NULL), 0);
    free(model);
    assert_int_equal(tu_cli(&out, NULL, "inspect", prg, "--json", NULL), 0);
    tosac_json *j = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_json_parse(out, strlen(out), &j, &err), TOSAC_OK);
    int64_t x;
    assert_true(tosac_json_int(tosac_json_get(j, "format_version"), &x));
    assert_int_equal(x, 2);
    tosac_program *p = NULL;
    assert_int_equal(tosac_program_read_file(prg, &p, &err), TOSAC_OK);
    /* signature: the main graph's input, float [1,2,64,49] (the model's declared input) */
    const tosac_json *in0 = tosac_json_at(tosac_json_get(tosac_json_get(j, "signature"), "inputs"), 0);
    assert_string_equal(tosac_json_string(tosac_json_get(in0, "name")),
                        p->cpu->graph->tensors[p->cpu->graph->inputs[0]].name);
    assert_string_equal(tosac_json_string(tosac_json_get(in0, "dtype")), "f32");
    const tosac_json *shape = tosac_json_get(in0, "shape");
    assert_int_equal(tosac_json_count(shape), 4);
    assert_true(tosac_json_int(tosac_json_at(shape, 2), &x));
    assert_int_equal(x, 64);
    /* delegate 0: TOSA 1.0.0, its bytes those of the flatbuffer the writer makes */
    const tosac_json *d0 = tosac_json_at(tosac_json_get(j, "delegates"), 0);
    assert_string_equal(tosac_json_string(tosac_json_get(d0, "tosa_version")), "1.0.0");
    void *t = NULL;
    size_t tl = 0;
    assert_int_equal(tosa_graph_write(p->delegates[0], &t, &tl, &err), TOSAC_OK);
    free(t);
    assert_true(tosac_json_int(tosac_json_get(d0, "bytes"), &x));
    assert_int_equal(x, (int64_t)tl);
    /* CPU operators over every graph: one TosaDelegate */
    const tosac_json *ops = tosac_json_get(tosac_json_get(j, "cpu"), "operators");
    assert_true(tosac_json_int(tosac_json_get(ops, "TosaDelegate"), &x));
    assert_int_equal(x, 1);
    /* constants: the bytes of the CPU graph's initializers (counted on the IR) */
    int64_t cbytes = 0, ccount = 0;
    for (int i = 0; i < p->cpu->graph->n_tensors; i++)
        if (p->cpu->graph->tensors[i].data) {
            cbytes += (int64_t)p->cpu->graph->tensors[i].nbytes;
            ccount++;
        }
    assert_true(ccount > 0);
    const tosac_json *cs = tosac_json_get(j, "constants");
    assert_true(tosac_json_int(tosac_json_get(cs, "bytes"), &x));
    assert_int_equal(x, cbytes);
    assert_true(tosac_json_int(tosac_json_get(cs, "count"), &x));
    assert_int_equal(x, ccount);
    /* memory: both fields present, the bound never above the arena, a program without a
     * plan says so with zeros */
    const tosac_json *mem = tosac_json_get(j, "memory");
    int64_t arena, lower;
    assert_true(tosac_json_int(tosac_json_get(mem, "arena_bytes"), &arena));
    assert_true(tosac_json_int(tosac_json_get(mem, "arena_lower_bound_bytes"), &lower));
    assert_true(lower <= arena);
    const tosac_json *planned = tosac_json_get(mem, "planned");
    assert_non_null(planned);
    if (!planned->boolean)
        assert_true(arena == 0 && lower == 0);
    /* sections: STRINGS first, the file's size */
    assert_string_equal(tosac_json_string(tosac_json_get(
                            tosac_json_at(tosac_json_get(j, "sections"), 0), "kind")),
                        "STRINGS");
    tosac_program_free(p);
    tosac_json_free(j);
    free(out);
    tu_rmtree_free(dir);
}

/* The synthetic program (no report: PLAN is its last section) with the PLAN section replaced
 * by one built here: tensor 1 of graph 0 (the 6-byte constant w) at w_off, every other tensor
 * unplanned (-1), one step per graph with 16 scratch bytes at scratch_off; graph 0 claims
 * tensors_delta more tensors than it has. */
static unsigned char *with_plan(size_t *len, uint64_t arena, uint64_t lower, int64_t w_off,
                                int64_t scratch_off, int tensors_delta)
{
    size_t n;
    unsigned char *buf = synthetic_bytes(&n);
    rt_program v;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(rt_program_load(buf, n, &v, &err), TOSAC_OK);
    assert_int_equal(v.sections[v.n_sections - 1].kind, RT_SEC_PLAN);
    /* header, graph records, pool */
    unsigned char body[4096];
    memset(body, 0, sizeof body);
    rt_plan_header_rec h;
    memset(&h, 0, sizeof h);
    h.arena_bytes = arena;
    h.lower_bound_bytes = lower;
    h.n_graphs = h.graphs.count = v.n_graphs;
    h.graphs.offset = sizeof h;
    h.delegates.offset = h.pool.offset = (uint32_t)(sizeof h + v.n_graphs * sizeof(rt_plan_graph_rec));
    int64_t pool[256];
    uint32_t at = 0;
    for (uint32_t g = 0; g < v.n_graphs; g++) {
        rt_plan_graph_rec r = {v.graphs[g].n_tensors + (g == 0 ? (uint32_t)tensors_delta : 0), 1,
                               at, 0};
        for (uint32_t t = 0; t < r.n_tensors; t++)
            pool[at++] = g == 0 && t == 1 ? w_off : -1;
        r.scratch_at = at;
        pool[at++] = scratch_off;
        pool[at++] = 16;
        memcpy(body + sizeof h + g * sizeof r, &r, sizeof r);
    }
    h.pool.count = at;
    memcpy(body, &h, sizeof h);
    memcpy(body + h.pool.offset, pool, at * 8);
    size_t body_len = h.pool.offset + at * 8;
    *len = n + (body_len + 15) / 16 * 16;
    unsigned char *out = aligned_alloc(16, *len);
    assert_non_null(out);
    memcpy(out, buf, n);
    memset(out + n, 0, *len - n);
    memcpy(out + n, body, body_len);
    rt_section_rec sec;
    memcpy(&sec, out + 32 + (v.n_sections - 1) * sizeof sec, sizeof sec);
    sec.offset = n;
    sec.size = body_len;
    memcpy(out + 32 + (v.n_sections - 1) * sizeof sec, &sec, sizeof sec);
    uint64_t fb = *len;
    memcpy(out + 16, &fb, 8);
    free(buf);
    return out;
}

static void test_plan_section(void **state)
{
    (void)state;
    size_t len;
    rt_program v;
    tosac_error err;
    tosac_error_clear(&err);
    unsigned char *b = with_plan(&len, 4096, 1024, 4080, 0, 0);
    assert_int_equal((uintptr_t)b % 16, 0);
    assert_int_equal(rt_program_load(b, len, &v, &err), TOSAC_OK);
    assert_true(rt_plan_present(&v));
    assert_int_equal(v.plan->arena_bytes, 4096);
    assert_int_equal(rt_plan_cpu_offset(&v, 0, 1), 4080);
    assert_int_equal(rt_plan_cpu_offset(&v, 0, 0), -1);
    assert_int_equal(rt_plan_n_steps(&v, 3), 1);
    assert_int_equal(rt_plan_scratch_offset(&v, 3, 0), 0);
    assert_int_equal(rt_plan_scratch_bytes(&v, 3, 0), 16);
    assert_int_equal(rt_plan_tosa_offset(&v, 0, 0), -1);
    free(b);
    /* w's 6 bytes at 4096 (aligned) end past the arena */
    b = with_plan(&len, 4096, 1024, 4096, 0, 0);
    refused(b, len, "PLAN graph 0 tensor 1: offset 4096 outside the 4096-byte arena");
    free(b);
    /* inside the arena but not where the planner puts anything: a float kernel would store
     * misaligned (fuzz_program found one at offset 18) */
    b = with_plan(&len, 4096, 1024, 8, 0, 0);
    refused(b, len, "PLAN graph 0 tensor 1: offset 8 outside the 4096-byte arena or not 16-byte "
            "aligned");
    free(b);
    b = with_plan(&len, 4096, 0, 0, 8, 0);
    refused(b, len, "PLAN graph 0 step 0: scratch outside the arena or not 16-byte aligned");
    free(b);
    b = with_plan(&len, 4096, 4097, 0, 0, 0);
    refused(b, len, "below its lower bound");
    free(b);
    b = with_plan(&len, 4096, 0, 0, 0, 1);
    refused(b, len, "PLAN graph 0: tensor count");
    free(b);
    b = with_plan(&len, 4096, 0, 0, -1, 0); /* 16 scratch bytes nowhere */
    refused(b, len, "PLAN graph 0 step 0: scratch outside the arena");
    free(b);
    b = with_plan(&len, 4096, 0, 0, 4088, 0);
    refused(b, len, "PLAN graph 0 step 0: scratch outside the arena");
    free(b);
}

/* The version 1 program kept from fuzzing (fuzz/regress/program) is refused by version. */
static void test_v1_kept_input(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/fuzz/regress/program/"
             "oom-0bdceb2ea42d1b1840066847b435334b461ed824", TOSAC_SOURCE_DIR);
    tosac_program *p = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_program_read_file(path, &p, &err), TOSAC_ERR_INPUT);
    assert_string_equal(err.msg, "version 1 program: recompile with this tosac");
    assert_null(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_records), cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_refusals),          cmocka_unit_test(test_mutations),
        cmocka_unit_test(test_inspect_json),      cmocka_unit_test(test_v1_kept_input),
        cmocka_unit_test(test_plan_section),      cmocka_unit_test(test_borrowed_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
