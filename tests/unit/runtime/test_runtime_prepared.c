/* The runtime's prepared blocks (issue 9): a float Conv with constant weights in the CPU part
 * packs its weights once, at init (its pack step), into the region the compiler measured (the
 * RUNTIME record's prepared_bytes), and every invoke reads them as they are.
 *
 * The program: x [1,3,8,8] -> Conv 3x3 (8 filters, pads 1, bias) -> Relu -> Conv 1x1
 * (4 filters) -> y, compiled for TOSA-1.0+INT without quantizing (nothing is delegated: both
 * Convs run on the CPU operators).
 *
 * - test_weights_packed_once: the record asks for prepared blocks; init hands out exactly 2
 *   fresh blocks (one per Conv: packed there, before any invoke) and the region is then
 *   exactly full; over 5 invokes (new inputs each time) no block is handed out again, no
 *   request is refused (no Conv packs per run) and the region's bytes stay those of init; every output is bit-identical to the ONNX CPU executor's
 *   (cpu_run_model, same kernels) on the same input; the allocator is not called during any
 *   invoke (the binary wraps malloc, calloc, realloc, aligned_alloc and free).
 * - test_without_region_as_before: the same program with prepared_bytes set to 0 (what an
 *   older compiler wrote) packs per invoke, as the runtime did before: no block handed out,
 *   each Conv's request refused on every invoke, the arena prepared_bytes smaller, outputs bit-identical to the prepared run's.
 * - test_arena_too_small_for_blocks: the arena tosac_rt_arena_size gives includes the
 *   prepared region (it is prepared_bytes larger than without it); 16 bytes fewer is refused
 *   at init with one line; a record whose state leaves no room for the region, or a
 *   misaligned or huge prepared_bytes, is refused with one line (untrusted program).
 * - test_bad_group_refused_at_init: a check of the program alone runs once, at init: conv2's
 *   group attribute (the program's only INT attribute) patched to 0 and to -3 makes init fail
 *   with one line naming the node (before, init passed and every invoke failed). */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_exec.h"
#include "runtime_testutil.h"
#include "tosac/compile.h"
#include "tosac/program.h"

#include "alloc_count_testutil.h" /* counting, n_alloc_calls */

#define NX (1 * 3 * 8 * 8)
#define NY (1 * 4 * 8 * 8)

/* Deterministic values in [-1, 1) (a small LCG): weights and inputs. */
static void fill(float *v, int n, uint32_t seed)
{
    for (int i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        v[i] = (float)(seed >> 8) / (float)(1u << 23) - 1.0f;
    }
}

static ir_model *conv_model(void)
{
    static float w1[8 * 3 * 3 * 3], b1[8], w2[4 * 8 * 1 * 1];
    fill(w1, 8 * 27, 1);
    fill(b1, 8, 2);
    fill(w2, 32, 3);
    ir_model *m = ir_model_new();
    assert_int_equal(ir_model_set_opset(m, "", 13, NULL), TOSAC_OK);
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t xs[4] = {1, 3, 8, 8}, w1s[4] = {8, 3, 3, 3}, b1s[1] = {8}, hs[4] = {1, 8, 8, 8},
            w2s[4] = {4, 8, 1, 1}, ys[4] = {1, 4, 8, 8}, pads[4] = {1, 1, 1, 1};
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 4, xs, &err);
    int tw1 = ir_graph_add_const(g, "w1", TOSAC_DT_F32, 4, w1s, w1, sizeof w1, &err);
    int tb1 = ir_graph_add_const(g, "b1", TOSAC_DT_F32, 1, b1s, b1, sizeof b1, &err);
    int tw2 = ir_graph_add_const(g, "w2", TOSAC_DT_F32, 4, w2s, w2, sizeof w2, &err);
    int h = ir_graph_add_tensor(g, "h", TOSAC_DT_F32, 4, hs, &err);
    int r = ir_graph_add_tensor(g, "r", TOSAC_DT_F32, 4, hs, &err);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 4, ys, &err);
    int in1[3] = {x, tw1, tb1}, in2[2] = {r, tw2};
    int k1 = ir_graph_add_node(g, "Conv", NULL, "conv1", in1, 3, &h, 1, &err);
    assert_int_equal(ir_node_set_ints(g, k1, "pads", pads, 4, &err), TOSAC_OK);
    assert_true(ir_graph_add_node(g, "Relu", NULL, "relu", &h, 1, &r, 1, &err) >= 0);
    int k2 = ir_graph_add_node(g, "Conv", NULL, "conv2", in2, 2, &y, 1, &err);
    assert_int_equal(ir_node_set_int(g, k2, "group", 1, &err), TOSAC_OK); /* the default */
    assert_int_equal(ir_graph_mark_output(g, y, &err), TOSAC_OK);
    if (err.code)
        fail_msg("%s", err.msg);
    return m;
}

static void *compiled(size_t *len)
{
    tosac_compile_options o;
    memset(&o, 0, sizeof o);
    o.spec = "TOSA-1.0+INT";
    tosac_program *p = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    if (tosac_compile_model(conv_model(), &o, &p, NULL, &err))
        fail_msg("compile: %s", err.msg);
    assert_int_equal(tosac_program_n_delegates(p), 0); /* both Convs on the CPU */
    void *bytes = NULL;
    if (tosac_program_build(p, &bytes, len, &err))
        fail_msg("build: %s", err.msg);
    tosac_program_free(p);
    return bytes;
}

/* The ONNX CPU executor's y for input x. */
static void reference(const float *x, float *y)
{
    ir_model *m = conv_model();
    int64_t xs[4] = {1, 3, 8, 8};
    tosac_tensor in, out;
    tosac_error err;
    tosac_error_clear(&err);
    memset(&in, 0, sizeof in);
    in.dtype = TOSAC_DT_F32;
    in.rank = 4;
    memcpy(in.shape, xs, sizeof xs);
    in.data = (void *)x;
    in.nbytes = NX * sizeof(float);
    if (cpu_run_model(m, &in, 1, &out, 1, &err))
        fail_msg("cpu_run_model: %s", err.msg);
    assert_int_equal(out.nbytes, NY * sizeof(float));
    memcpy(y, out.data, out.nbytes);
    tosac_tensor_free(&out);
    ir_model_free(m);
}

typedef struct loaded {
    void *arena;
    size_t arena_bytes;
    tosac_rt *rt;
} loaded;

static void load(const void *prog, size_t len, loaded *l)
{
    tosac_error err;
    tosac_error_clear(&err);
    if (tosac_rt_arena_size(prog, len, &l->arena_bytes, &err))
        fail_msg("%s", err.msg);
    l->arena = aligned_alloc(16, (l->arena_bytes + 15) / 16 * 16);
    if (tosac_rt_init(prog, len, l->arena, l->arena_bytes, &l->rt, &err))
        fail_msg("%s", err.msg);
}

/* One invoke on the input of seed (kept in x): y into out, no allocator call during it. */
static void invoke(tosac_rt *rt, uint32_t seed, float *x, float *out)
{
    fill(x, NX, seed);
    tosac_tensor *in = tosac_rt_input(rt, 0);
    assert_int_equal(in->nbytes, NX * sizeof(float));
    memcpy(in->data, x, NX * sizeof(float));
    tosac_error err;
    tosac_error_clear(&err);
    n_alloc_calls = 0;
    counting = 1;
    tosac_code rc = tosac_rt_invoke(rt, &err);
    counting = 0;
    if (rc)
        fail_msg("invoke: %s", err.msg);
    assert_int_equal(n_alloc_calls, 0);
    const tosac_tensor *y = tosac_rt_output(rt, 0);
    assert_int_equal(y->nbytes, NY * sizeof(float));
    memcpy(out, y->data, NY * sizeof(float));
}

static void test_weights_packed_once(void **state)
{
    (void)state;
    size_t len = 0;
    void *prog = compiled(&len);
    const rt_runtime_rec *rr = tu_runtime_rec(prog, len);
    assert_true(rr->prepared_bytes > 0);
    assert_int_equal(rr->prepared_bytes % 16, 0);
    loaded l;
    load(prog, len, &l);
    assert_int_equal(l.rt->prepd.size, rr->prepared_bytes);
    /* packed at init: one block per Conv, the region exactly as measured */
    assert_int_equal(l.rt->prep_fills, 2);
    assert_int_equal(l.rt->prepd.used, rr->prepared_bytes);
    static float x[NX], y[NY], want[NY];
    unsigned char *snap = malloc(rr->prepared_bytes);
    memcpy(snap, l.rt->prepd.base, rr->prepared_bytes);
    for (uint32_t run = 0; run < 5; run++) {
        invoke(l.rt, 100 + run, x, y);
        assert_int_equal(l.rt->prep_fills, 2); /* never again */
        assert_int_equal(l.rt->prep_misses, 0); /* and no Conv packed per run */
        assert_int_equal(l.rt->prepd.used, rr->prepared_bytes);
        assert_memory_equal(snap, l.rt->prepd.base, rr->prepared_bytes);
        reference(x, want);
        assert_memory_equal(y, want, sizeof y);
    }
    free(snap);
    free(l.arena);
    free(prog);
}

static void test_without_region_as_before(void **state)
{
    (void)state;
    size_t len = 0;
    void *prog = compiled(&len);
    loaded with;
    load(prog, len, &with);
    tu_runtime_rec(prog, len)->prepared_bytes = 0; /* an older compiler's record */
    loaded l;
    load(prog, len, &l);
    assert_int_equal(with.arena_bytes - l.arena_bytes, with.rt->prepd.size);
    static float x[NX], y0[NY], y1[NY];
    assert_int_equal(l.rt->prep_misses, 2); /* init's pack steps found no region */
    for (uint32_t run = 0; run < 3; run++) {
        invoke(l.rt, 7 + run, x, y0);
        invoke(with.rt, 7 + run, x, y1);
        assert_memory_equal(y0, y1, sizeof y0);
        assert_int_equal(l.rt->prep_misses, 2 + 2 * (run + 1)); /* each Conv packs per run */
    }
    assert_int_equal(l.rt->prep_fills, 0); /* nothing kept */
    assert_int_equal(with.rt->prep_fills, 2);
    free(l.arena);
    free(with.arena);
    free(prog);
}

static void test_arena_too_small_for_blocks(void **state)
{
    (void)state;
    size_t len = 0;
    void *prog = compiled(&len);
    rt_runtime_rec *rr = tu_runtime_rec(prog, len);
    tosac_error err;
    tosac_error_clear(&err);
    size_t bytes = 0;
    assert_int_equal(tosac_rt_arena_size(prog, len, &bytes, &err), TOSAC_OK);
    void *arena = aligned_alloc(16, bytes);
    tosac_rt *rt = NULL;
    assert_int_equal(tosac_rt_init(prog, len, arena, bytes - 16, &rt, &err), TOSAC_ERR_INPUT);
    assert_null(rt);
    assert_non_null(strstr(err.msg, "the arena has"));
    assert_null(strchr(err.msg, '\n'));
    /* a lying record: the state it claims leaves no room for the prepared region */
    uint64_t st = rr->state_bytes, pb = rr->prepared_bytes;
    rr->state_bytes = 32;
    rr->prepared_bytes = (st + pb + 15) / 16 * 16 - 32;
    tosac_error_clear(&err);
    assert_int_equal(tosac_rt_init(prog, len, arena, bytes, &rt, &err), TOSAC_ERR_INPUT);
    assert_null(rt);
    assert_non_null(strstr(err.msg, "prepared blocks"));
    assert_null(strchr(err.msg, '\n'));
    rr->state_bytes = st;
    static const uint64_t bad[] = {8, (uint64_t)1 << 50};
    for (size_t i = 0; i < 2; i++) {
        rr->prepared_bytes = bad[i];
        tosac_error_clear(&err);
        assert_int_equal(tosac_rt_arena_size(prog, len, &bytes, &err), TOSAC_ERR_INPUT);
        assert_non_null(strstr(err.msg, "prepared blocks"));
        assert_null(strchr(err.msg, '\n'));
    }
    rr->prepared_bytes = pb;
    assert_int_equal(tosac_rt_arena_size(prog, len, &bytes, &err), TOSAC_OK);
    assert_int_equal(tosac_rt_init(prog, len, arena, bytes, &rt, &err), TOSAC_OK);
    free(arena);
    free(prog);
}

static void test_bad_group_refused_at_init(void **state)
{
    (void)state;
    size_t len = 0;
    unsigned char *prog = compiled(&len);
    rt_program p;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(rt_program_load(prog, len, &p, &err), TOSAC_OK);
    const rt_cpu_header_rec *h = p.cpu;
    rt_attr_rec *group = NULL;
    for (uint32_t i = 0; i < h->attrs.count; i++) {
        rt_attr_rec *a = (rt_attr_rec *)((unsigned char *)h + h->attrs.offset) + i;
        if (a->kind == IR_ATTR_INT) {
            assert_null(group); /* the only one */
            group = a;
        }
    }
    assert_non_null(group);
    assert_int_equal(group->i, 1);
    size_t bytes = 0;
    assert_int_equal(tosac_rt_arena_size(prog, len, &bytes, &err), TOSAC_OK);
    void *arena = aligned_alloc(16, bytes);
    static const int64_t bad[] = {0, -3};
    for (int k = 0; k < 2; k++) {
        group->i = bad[k];
        tosac_rt *rt = NULL;
        tosac_error_clear(&err);
        assert_int_equal(tosac_rt_init(prog, len, arena, bytes, &rt, &err), TOSAC_ERR_INPUT);
        assert_null(rt);
        assert_non_null(strstr(err.msg, "conv2"));
        assert_non_null(strstr(err.msg, "group must be at least 1"));
        assert_null(strchr(err.msg, '\n'));
    }
    group->i = 1;
    tosac_rt *rt = NULL;
    tosac_error_clear(&err);
    assert_int_equal(tosac_rt_init(prog, len, arena, bytes, &rt, &err), TOSAC_OK);
    free(arena);
    free(prog);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_weights_packed_once),
        cmocka_unit_test(test_without_region_as_before),
        cmocka_unit_test(test_arena_too_small_for_blocks),
        cmocka_unit_test(test_bad_group_refused_at_init),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
